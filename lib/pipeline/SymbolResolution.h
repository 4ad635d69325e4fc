// Every kernel's exact symbol, from the image: the image's symbol table is the truth. A kernel
// with external linkage is in the image under the name Clang gives it. A static or
// anonymous-namespace kernel is renamed by nvcc: `_Z2skPi` whole-program, or
// `__nv_static_<n>__<file id>__Z2skPi` in relocatable code, and an anonymous namespace becomes
// nvcc's own `_GLOBAL__N__<hash>_<file>...`. Such a kernel is matched to the entry of its own
// input whose name, with nvcc's prefix removed and demangled, is its own; the launcher then
// looks it up by that exact symbol.
#pragma once

#include "model/Model.h"

#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>

namespace tlc {

// An input's entry symbols, by the input's name in the module (Kernel::translationUnits).
using EntriesByInput = std::map<std::string, std::set<std::string>>;

// Sets Kernel::symbol of every internal-linkage kernel of `module`; InternalError naming the
// kernel if its input holds no entry (or several) that can be it.
llvm::Error resolveKernelSymbols(Module& module, const EntriesByInput& entries);

// "sk(int*)" for `_ZL2skPi`, `_Z2skPi` and `__nv_static_24__..._cu__Z2pkPi__Z2skPi` alike: a
// kernel's name without the marks linkage and nvcc leave on it.
std::string kernelIdentity(const std::string& symbol);

} // namespace tlc
