// Reading each target's entries from the shipped image and giving kernels their targets.
#include "pipeline/ImageCheck.h"

#include "pipeline/DeviceImage.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

namespace tlc {

namespace {

// What identifies a target's entries inside the image: PTX or SASS, arch number, arch-specific.
struct TargetKey {
  bool ptx = false;
  unsigned arch = 0;
  bool archSpecific = false;
  bool operator<(const TargetKey& other) const {
    return std::tie(ptx, arch, archSpecific) < std::tie(other.ptx, other.arch, other.archSpecific);
  }
};

TargetKey keyOf(const GpuTarget& target) {
  TargetKey key{target.ptx(), 0, false};
  std::string text = target.number(); // kept: the StringRef below must not outlive it
  llvm::StringRef number = text;
  number.take_while(llvm::isDigit).getAsInteger(10, key.arch);
  key.archSpecific = number.ends_with("a");
  return key;
}

std::string listed(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names)
    text += "\n    " + name;
  return text.empty() ? "\n    (none)" : text;
}

} // namespace

llvm::Expected<std::vector<std::set<std::string>>>
readTargetEntries(const DevicePlan& plan, const std::set<std::string>& fromInputs) {
  auto contents = readDeviceImageFile(plan.image);
  if (!contents)
    return contents.takeError();
  std::map<TargetKey, std::set<std::string>> byKey; // relocatable PTX: the union of its files
  for (const ImageContents::Part& part : contents->parts) {
    TargetKey key{part.entry.ptx, part.entry.arch, part.entry.archSpecific};
    if (!part.entry.ptx)
      key.arch = part.info.sm;                   // a cubin says its own arch
    std::set<std::string>& entries = byKey[key]; // a part without entries still counts
    for (const ImageEntry& entry : part.info.entries)
      if (!plan.relocatable || fromInputs.count(entry.symbol))
        entries.insert(entry.symbol);
  }
  std::vector<std::set<std::string>> entries;
  for (const TargetImage& image : plan.targets) {
    // An image that is one cubin holds the one target (its ELF flags do not say 'a').
    auto found = plan.fatbin ? byKey.find(keyOf(image.target)) : byKey.begin();
    if (found == byKey.end())
      return internalError("the device image has no " + image.target.code + " entry");
    entries.push_back(found->second);
  }
  return entries;
}

std::set<std::string> undeclaredEntries(const Module& module,
                                        const std::vector<std::set<std::string>>& entries) {
  std::set<std::string> known(module.otherEntries.begin(), module.otherEntries.end());
  for (const Kernel& kernel : module.kernels)
    known.insert(kernel.symbol);
  std::set<std::string> undeclared;
  for (const std::set<std::string>& target : entries)
    for (const std::string& symbol : target)
      if (!known.count(symbol))
        undeclared.insert(symbol);
  return undeclared;
}

// "outermost namespace::name" of the function `symbol` names, as the frontend records library
// kernel templates; "" where it does not demangle.
std::string libraryKeyOf(const std::string& symbol) {
  llvm::ItaniumPartialDemangler demangler;
  if (demangler.partialDemangle(symbol.c_str()))
    return "";
  size_t size = 0;
  char* context = demangler.getFunctionDeclContextName(nullptr, &size);
  char* base = demangler.getFunctionBaseName(nullptr, &size);
  std::string key;
  if (context && base) {
    llvm::StringRef outermost = llvm::StringRef(context).split("::").first;
    key = outermost.str() + "::" + base;
  }
  std::free(context);
  std::free(base);
  return key;
}

// Instances of library kernel templates that Clang did not see instantiated (the header body
// that does it was skipped: Clang reads declarations) become library entries.
void adoptLibraryInstances(Module& module, std::set<std::string>& undeclared) {
  std::set<std::string> templates(module.libraryKernelTemplates.begin(),
                                  module.libraryKernelTemplates.end());
  for (auto it = undeclared.begin(); it != undeclared.end();) {
    if (templates.count(libraryKeyOf(*it))) {
      module.otherEntries.push_back(*it);
      it = undeclared.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(module.otherEntries.begin(), module.otherEntries.end());
}

llvm::Error assignKernelTargets(Module& module, const DevicePlan& plan,
                                const std::vector<std::set<std::string>>& entries) {
  std::set<std::string> undeclared = undeclaredEntries(module, entries);
  adoptLibraryInstances(module, undeclared);
  if (!undeclared.empty())
    return internalError(
        "the device image holds kernels Clang did not find in the inputs, for any of the "
        "build's archs (nvcc and Clang saw different code, e.g. under a macro only one of them "
        "defines):" +
        listed(undeclared));
  for (Kernel& kernel : module.kernels) {
    kernel.targets.clear();
    for (size_t i = 0; i < plan.targets.size(); ++i)
      if (entries[i].count(kernel.symbol))
        kernel.targets.push_back(plan.targets[i].target.code);
    if (kernel.targets.empty())
      return internalError("kernel '" + kernel.displayName + "' (" + kernel.symbol +
                           "), which Clang found, is in none of the image's targets: nvcc did "
                           "not compile it (code nvcc and Clang see differently, e.g. under a "
                           "macro only one of them defines)");
  }
  return llvm::Error::success();
}

} // namespace tlc
