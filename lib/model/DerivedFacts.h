// Facts that follow from the rest of the model and that generated code needs: each kernel's
// index and its slice of the module's tensor-map table, each parameter's name in C, which
// tensor maps of a kernel share descriptor settings, and the C type of each untyped parameter.
// Computed once per module, after merging (buildModule) and again when --entry drops kernels
// (selectEntries); `inspect --json` shows them and the launcher templates print them.
#pragma once

#include "model/Model.h"

#include <string>

namespace tlc {

// Fills Kernel::index, firstTensorMap and tensorMapCount, Param::cName, the ctype of bytes
// parameters and TensorMapSpec::group for every kernel of `module`, in order.
void deriveFacts(Module& module);

// The C type of an untyped (ParamKind::Bytes) parameter of `size` bytes aligned to `align`: a
// struct of that many bytes, one per size and alignment, which the compiler of a C caller checks
// the argument against (a `const void*` would let a too small object through, and the driver
// would copy bytes beyond it).
CType bytesCType(uint64_t size, uint64_t align);

// The parameter name used in generated C code: the kernel's, unless C or the launcher itself
// reserves it ("restrict", "config", ...), then with a trailing underscore.
std::string cParameterName(const std::string& name);

// Whether two tensor maps encode alike for the same tensor: every setting but the annotation's
// text and location (and the group being computed).
bool sameDescriptorSettings(const TensorMapSpec& a, const TensorMapSpec& b);

} // namespace tlc
