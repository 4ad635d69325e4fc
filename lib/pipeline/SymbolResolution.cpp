// Matching internal-linkage kernels to nvcc's names for them in the image.
#include "pipeline/SymbolResolution.h"

#include "support/Error.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Demangle/Demangle.h"

#include <cstdlib>

namespace tlc {

// nvcc's relocatable name for a file-local entity: "__nv_static_" N "__" then N characters that
// identify the file (a hash, the file's name, an external symbol of it), then the name it has
// in whole-program code.
static llvm::StringRef withoutStaticPrefix(llvm::StringRef symbol) {
  llvm::StringRef rest = symbol;
  if (!rest.consume_front("__nv_static_"))
    return symbol;
  size_t length = 0;
  if (rest.consumeInteger(10, length) || !rest.consume_front("__") || rest.size() <= length)
    return symbol;
  return rest.drop_front(length);
}

std::string kernelIdentity(const std::string& symbol) {
  std::string plain = withoutStaticPrefix(symbol).str();
  // The demangler spells Clang's `_GLOBAL__N_1` and nvcc's per-file anonymous namespaces alike,
  // "(anonymous namespace)", and reads `_ZL` (internal linkage) as `_Z`.
  return llvm::demangle(plain);
}

llvm::Error resolveKernelSymbols(Module& module, const EntriesByInput& entries) {
  for (Kernel& kernel : module.kernels) {
    if (!kernel.internalLinkage)
      continue;
    const std::string& input = kernel.translationUnits.front();
    auto symbols = entries.find(input);
    std::string identity = kernelIdentity(kernel.symbol);
    std::vector<std::string> matches;
    if (symbols != entries.end())
      for (const std::string& symbol : symbols->second)
        if (kernelIdentity(symbol) == identity)
          matches.push_back(symbol);
    if (matches.size() == 1) {
      kernel.symbol = matches.front();
      continue;
    }
    return internalError(
        "kernel '" + kernel.displayName + "' of " + input + " (" +
        (matches.empty() ? std::string("not") : std::to_string(matches.size()) + " times") +
        " found in the device image as " + identity +
        "): nvcc renames static and anonymous-namespace kernels, and tlc could not tell which "
        "entry is this one");
  }
  return llvm::Error::success();
}

} // namespace tlc
