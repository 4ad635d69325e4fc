// Reading each target's entries from the shipped image and giving kernels their targets, the
// image's own kernels included.
#include "builder/ImageCheck.h"

#include "builder/ImageKernels.h"
#include "support/Error.h"
#include "support/Terminal.h"

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

} // namespace

llvm::Expected<std::vector<TargetEntries>>
readTargetEntries(const DevicePlan& plan, const std::set<std::string>& fromInputs) {
  auto contents = readDeviceImageFile(plan.image);
  if (!contents)
    return contents.takeError();
  std::map<TargetKey, TargetEntries> byKey; // relocatable PTX: the union of its files
  for (const ImageContents::Part& part : contents->parts) {
    TargetKey key{part.entry.ptx, part.entry.arch, part.entry.archSpecific};
    if (!part.entry.ptx)
      key.arch = part.info.sm;           // a cubin says its own arch
    TargetEntries& entries = byKey[key]; // a part without entries still counts
    for (const ImageEntry& entry : part.info.entries)
      if (!plan.relocatable || fromInputs.count(entry.symbol))
        entries.emplace(entry.symbol, entry);
  }
  std::vector<TargetEntries> entries;
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
                                        const std::vector<TargetEntries>& entries) {
  std::set<std::string> known(module.otherEntries.begin(), module.otherEntries.end());
  for (const Kernel& kernel : module.kernels)
    known.insert(kernel.symbol);
  std::set<std::string> undeclared;
  for (const TargetEntries& target : entries)
    for (const auto& [symbol, entry] : target)
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
// that does it was skipped: Clang reads declarations) become library entries: like the library
// kernels Clang did see (Module::otherEntries), they are the library's business and get no
// launcher; a launcher of its own is for a kernel of the user's inputs.
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

// The image's entry `symbol`: from the first target that holds it and describes its parameters.
static const ImageEntry* describedEntry(const std::vector<TargetEntries>& entries,
                                        const std::string& symbol) {
  const ImageEntry* found = nullptr;
  for (const TargetEntries& target : entries)
    if (auto it = target.find(symbol); it != target.end()) {
      if (it->second.paramsKnown)
        return &it->second;
      if (!found)
        found = &it->second;
    }
  return found;
}

// Why a kernel made from the image has no typed form, for its warning.
static std::string imageKernelWarning(const Kernel& kernel, const std::string* unresolved,
                                      bool images) {
  std::string text = "kernel '" + kernel.displayName + "' of " + kernel.translationUnits.front() +
                     (images ? " is the image's entry " : " is nvcc's entry ") + kernel.symbol;
  if (images)
    text += ", which no header given declares";
  else if (unresolved)
    text += ", which tlc could not match to the kernel Clang parsed here (" + *unresolved + ")";
  else
    text += ", which Clang's parse did not see (code under a macro only nvcc defines, or "
            "otherwise hidden from Clang)";
  text += ": its launcher is made from the image and the symbol";
  std::string untyped;
  for (const Param& param : kernel.params)
    if (param.kind == ParamKind::Bytes)
      untyped += (untyped.empty() ? "" : ", ") + param.name + " (" + param.type + ", " +
                 std::to_string(param.size) + " bytes)";
  if (!untyped.empty())
    text += ", and takes as bytes " + untyped;
  return text;
}

// Kernels of their own for the entries in `undeclared`, each with a warning. An unresolved kernel
// of the same input and name stands for the declaration and leaves the module.
static void addImageKernels(Module& module, const std::set<std::string>& undeclared,
                            const std::vector<TargetEntries>& entries, const ParseFacts& parse,
                            SourceDiagnostics& diagnostics) {
  std::set<size_t> replaced; // unresolved kernels whose entries became kernels of their own
  std::vector<Kernel> made;
  for (const std::string& symbol : undeclared) {
    const ImageEntry* entry = describedEntry(entries, symbol);
    std::string input = inputHolding(parse.inputs, symbol);
    if (input.empty())
      input = module.inputs.empty() ? std::string() : module.inputs.front();
    std::string name = qualifiedNameOf(symbol);
    const UnresolvedKernel* declaration = nullptr;
    for (const UnresolvedKernel& unresolved : parse.unresolved) {
      const Kernel& candidate = module.kernels[unresolved.index];
      if (candidate.name != name || candidate.translationUnits.front() != input)
        continue;
      replaced.insert(unresolved.index);
      if (!declaration)
        declaration = &unresolved;
    }
    Kernel kernel =
        kernelFromImage(*entry, input, declaration ? &module.kernels[declaration->index] : nullptr);
    std::string warning =
        imageKernelWarning(kernel, declaration ? &declaration->why : nullptr, parse.images);
    if (parse.images && !parse.declarationsGiven)
      printToolMessage(MessageKind::Note, warning); // the user chose the image's own facts
    else if (kernel.location.valid())
      diagnostics.warning(kernel.location, warning);
    else
      printToolMessage(MessageKind::Warning, warning);
    made.push_back(std::move(kernel));
  }
  for (auto it = replaced.rbegin(); it != replaced.rend(); ++it)
    module.kernels.erase(module.kernels.begin() + static_cast<std::ptrdiff_t>(*it));
  for (Kernel& kernel : made)
    module.kernels.push_back(std::move(kernel));
}

llvm::Error assignKernelTargets(Module& module, const DevicePlan& plan,
                                const std::vector<TargetEntries>& entries, const ParseFacts& parse,
                                SourceDiagnostics& diagnostics) {
  std::set<std::string> undeclared = undeclaredEntries(module, entries);
  adoptLibraryInstances(module, undeclared);
  // nvcc is the compiler of record: what it compiled gets a launcher, typed or not.
  addImageKernels(module, undeclared, entries, parse, diagnostics);
  for (Kernel& kernel : module.kernels) {
    kernel.targets.clear();
    for (size_t i = 0; i < plan.targets.size(); ++i)
      if (entries[i].count(kernel.symbol))
        kernel.targets.push_back(plan.targets[i].target.code);
    if (kernel.targets.empty()) // the user's code says two things: inputError
      return inputError(
          "kernel '" + kernel.displayName + "' (" + kernel.symbol +
          "), which Clang found, is in none of the image's targets: nvcc did not compile it "
          "(code nvcc and Clang see differently, e.g. under a macro only one of them defines)" +
          (kernel.internalLinkage ? std::string(", or no entry of its input has its name once "
                                                "nvcc's renaming of static and anonymous-"
                                                "namespace kernels is undone")
                                  : std::string()));
  }
  return llvm::Error::success();
}

} // namespace tlc
