// Every kernel's exact symbol, from the image: the image's symbol table is the truth. A kernel
// with external linkage is in the image under the name Clang gives it. A static or
// anonymous-namespace kernel is renamed by nvcc: `_Z2skPi` whole-program, or
// `__nv_static_<n>__<file id>__Z2skPi` in relocatable code, an anonymous namespace becomes
// nvcc's own `_GLOBAL__N__<hash>_<file>...`, and a static function named in a template argument
// (`k<&dequantize>`) nvcc's `_INTERNAL_<hash>_<file>...::dequantize`. Such a kernel is matched to
// the entry of its own input whose name, with nvcc's marks removed and demangled, is its own;
// the launcher then looks it up by that exact symbol. A kernel that matches no entry, or several,
// keeps Clang's symbol: the image check then makes the entries nvcc did emit kernels of their own
// (builder/ImageKernels.h), or reports a kernel nvcc did not compile.
#pragma once

#include "model/Model.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tlc {

// An input's entry symbols, by the input's name in the module (Kernel::translationUnits).
using EntriesByInput = std::map<std::string, std::set<std::string>>;

// Sets Kernel::symbol of every internal-linkage kernel of `module` that one entry of its input
// matches, and of every external one whose template arguments Clang mangles with a conversion
// nvcc leaves out (withoutArgumentConversions). Returns the indices of the internal-linkage ones
// no entry matches, whose symbols stay Clang's, with why.
struct UnresolvedKernel {
  size_t index = 0; // in Module::kernels
  std::string why;
};
std::vector<UnresolvedKernel> resolveKernelSymbols(Module& module, const EntriesByInput& entries);

// "sk(int*)" for `_ZL2skPi`, `_Z2skPi` and `__nv_static_24__..._cu__Z2pkPi__Z2skPi` alike: a
// kernel's name without the marks linkage and nvcc leave on it.
std::string kernelIdentity(const std::string& symbol);

// `symbol` without the `__nv_static_<N>__<file id>_` prefix nvcc gives file-local entities in
// relocatable code; `symbol` itself if it has none.
llvm::StringRef withoutStaticPrefix(llvm::StringRef symbol);

// What nvcc's per-file names add to demangled text removed: `_INTERNAL_<hash>_<file>...::` before
// a static entity's name. (The demangler spells nvcc's anonymous namespaces as Clang's already.)
std::string withoutInternalScopes(std::string demangled);

// Demangled text with the template arguments Clang mangles with a conversion spelled as nvcc
// mangles them: `lookup<&table.<float at offset 0>>` (an array decayed to its first element) and
// `byref<(int const*)(&value)>` (an address converted to the parameter's type) become
// `lookup<&table>` and `byref<&value>`. resolveKernelSymbols matches external kernels by it.
std::string withoutArgumentConversions(const std::string& demangled);

// The input whose entries hold `symbol`, or "" (EntriesByInput's key).
std::string inputHolding(const EntriesByInput& entries, const std::string& symbol);

} // namespace tlc
