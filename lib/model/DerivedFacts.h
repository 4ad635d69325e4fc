// Facts that follow from the rest of the model and that generated code needs: each kernel's
// index and its slice of the module's tensor-map table, each parameter's name in C, and which
// tensor maps of a kernel share descriptor settings. Computed once per module, after merging
// (buildModule) and again when --entry drops kernels (selectEntries); `inspect --json` shows
// them and the launcher templates print them.
#pragma once

#include "model/Model.h"

#include <string>

namespace tlc {

// Fills Kernel::index, firstTensorMap and tensorMapCount, Param::cName and
// TensorMapSpec::group for every kernel of `module`, in order.
void deriveFacts(Module& module);

// The parameter name used in generated C code: the kernel's, unless C or the launcher itself
// reserves it ("restrict", "config", ...), then with a trailing underscore.
std::string cParameterName(const std::string& name);

// Whether two tensor maps encode alike for the same tensor: every setting but the annotation's
// text and location (and the group being computed).
bool sameDescriptorSettings(const TensorMapSpec& a, const TensorMapSpec& b);

} // namespace tlc
