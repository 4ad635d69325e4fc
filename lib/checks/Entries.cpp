// --entry: selecting kernels by C++ name, launcher name or symbol.
#include "checks/Entries.h"

#include "model/DerivedFacts.h"
#include "support/Error.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <set>

namespace tlc {

static bool names(const Kernel& kernel, const std::string& entry) {
  return kernel.name == entry || kernel.displayName == entry || kernel.launcher == entry ||
         kernel.symbol == entry;
}

static std::string closest(const Module& module, const std::string& entry) {
  std::string best;
  unsigned bestDistance = ~0u;
  for (const Kernel& kernel : module.kernels)
    for (const std::string* candidate : {&kernel.launcher, &kernel.name, &kernel.displayName}) {
      unsigned distance = llvm::StringRef(*candidate).edit_distance(entry);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = *candidate;
      }
    }
  return best;
}

llvm::Error selectEntries(Module& module, const std::vector<std::string>& entries) {
  if (entries.empty())
    return llvm::Error::success();
  for (const std::string& entry : entries) {
    bool known = std::any_of(module.kernels.begin(), module.kernels.end(),
                             [&](const Kernel& kernel) { return names(kernel, entry); });
    if (known)
      continue;
    std::string available;
    for (const Kernel& kernel : module.kernels)
      available += "\n  " + kernel.launcher + "  (" + kernel.displayName + ")";
    return inputError("--entry '" + entry + "' names no kernel; did you mean '" +
                      closest(module, entry) + "'? The kernels are:" + available);
  }
  std::vector<Kernel> kept;
  std::set<std::string> others(module.otherEntries.begin(), module.otherEntries.end());
  for (Kernel& kernel : module.kernels) {
    bool wanted = std::any_of(entries.begin(), entries.end(),
                              [&](const std::string& entry) { return names(kernel, entry); });
    if (wanted)
      kept.push_back(std::move(kernel));
    else
      others.insert(kernel.symbol);
  }
  module.kernels = std::move(kept);
  module.otherEntries.assign(others.begin(), others.end());
  deriveFacts(module); // indices and tensor-map slices follow the kernels kept
  return llvm::Error::success();
}

} // namespace tlc
