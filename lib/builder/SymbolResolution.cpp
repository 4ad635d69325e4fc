// Matching internal-linkage kernels to nvcc's names for them in the image.
#include "builder/SymbolResolution.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Demangle/Demangle.h"

#include <cstdlib>
#include <regex>

namespace tlc {

// nvcc's relocatable name for a file-local entity: "__nv_static_" N "__" then N characters that
// identify the file (a hash, the file's name, an external symbol of it), then the name it has
// in whole-program code.
llvm::StringRef withoutStaticPrefix(llvm::StringRef symbol) {
  llvm::StringRef rest = symbol;
  if (!rest.consume_front("__nv_static_"))
    return symbol;
  size_t length = 0;
  if (rest.consumeInteger(10, length) || !rest.consume_front("__") || rest.size() <= length)
    return symbol;
  return rest.drop_front(length);
}

std::string withoutInternalScopes(std::string demangled) {
  // nvcc names a file's static entities as if in a namespace of its own: `_INTERNAL_` then the
  // file's hash and name, all identifier characters, up to the `::`. Identifiers beginning with
  // an underscore and a capital are the implementation's, so no user scope looks like it.
  static const std::string mark = "_INTERNAL_";
  for (size_t at = 0; (at = demangled.find(mark, at)) != std::string::npos;) {
    bool starts = at == 0 || !(llvm::isAlnum(demangled[at - 1]) || demangled[at - 1] == '_');
    size_t end = at + mark.size();
    while (end < demangled.size() && (llvm::isAlnum(demangled[end]) || demangled[end] == '_'))
      ++end;
    if (starts && demangled.compare(end, 2, "::") == 0)
      demangled.erase(at, end + 2 - at);
    else
      at = end;
  }
  return demangled;
}

std::string kernelIdentity(const std::string& symbol) {
  std::string plain = withoutStaticPrefix(symbol).str();
  // The demangler spells Clang's `_GLOBAL__N_1` and nvcc's per-file anonymous namespaces alike,
  // "(anonymous namespace)", and reads `_ZL` (internal linkage) as `_Z`.
  return withoutInternalScopes(llvm::demangle(plain));
}

std::string withoutArgumentConversions(const std::string& demangled) {
  // `&table.<float at offset 0>`: Clang's subobject spelling of an array decayed to its first
  // element; `(int const*)(&value)`: its cast of an address to the parameter's type.
  static const std::regex subobject(R"(\.<[^<>]* at offset 0>)");
  static const std::regex cast(R"(\([^()]*\)\((&[^()]*)\))");
  return std::regex_replace(std::regex_replace(demangled, subobject, ""), cast, "$1");
}

// An external kernel whose symbol is not in its input's image but whose name is, once the
// template arguments Clang spells with a conversion are spelled as nvcc (and GCC) spell them
// (`lookup<&table>`): that entry, when it is the only one.
static void resolveConvertedArguments(Kernel& kernel, const EntriesByInput& entries) {
  auto symbols = entries.find(kernel.translationUnits.front());
  if (symbols == entries.end() || symbols->second.count(kernel.symbol))
    return;
  std::string identity = withoutArgumentConversions(llvm::demangle(kernel.symbol));
  if (identity == llvm::demangle(kernel.symbol))
    return; // no conversion to tell apart: nvcc did not compile it
  std::vector<std::string> matches;
  for (const std::string& symbol : symbols->second)
    if (llvm::demangle(symbol) == identity)
      matches.push_back(symbol);
  if (matches.size() == 1)
    kernel.symbol = matches.front();
}

std::string inputHolding(const EntriesByInput& entries, const std::string& symbol) {
  for (const auto& [input, symbols] : entries)
    if (symbols.count(symbol))
      return input;
  return "";
}

std::vector<UnresolvedKernel> resolveKernelSymbols(Module& module, const EntriesByInput& entries) {
  std::vector<UnresolvedKernel> unresolved;
  for (size_t k = 0; k < module.kernels.size(); ++k) {
    Kernel& kernel = module.kernels[k];
    if (!kernel.internalLinkage) {
      resolveConvertedArguments(kernel, entries);
      continue;
    }
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
    unresolved.push_back(
        {k, (matches.empty() ? std::string("not") : std::to_string(matches.size()) + " times") +
                " found in the device image of " + input + " as " + identity +
                ": nvcc renames static and anonymous-namespace kernels, and tlc could not tell "
                "which entry is this one"});
  }
  return unresolved;
}

} // namespace tlc
