// The image check of a build, from the parse's module to the one the launchers are made of.
#include "builder/CheckedModule.h"

#include "builder/DeviceImage.h"
#include "builder/ImageCheck.h"
#include "builder/LayoutCheck.h"
#include "checks/Entries.h"
#include "checks/LauncherNames.h"
#include "checks/SourceDiagnostics.h"
#include "model/DerivedFacts.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace tlc {

llvm::Expected<Analysis> parseModule(const std::vector<std::string>& inputs, const ImageSet* images,
                                     const FrontendOptions& options, const CudaToolkit& toolkit,
                                     JobSlots* slots, const DisplayPaths& paths,
                                     ParseStore* store) {
  llvm::Expected<Analysis> analyzed = Analysis();
  if (images && images->declarations.empty())
    analyzed->module.inputs = images->images;
  else
    analyzed = analyze(inputs, options, toolkit, slots, store);
  if (!analyzed)
    return analyzed.takeError();
  paths.relativize(analyzed->module);
  return analyzed;
}

Module guessedModule(const Module& parsed, const std::vector<std::string>& entries) {
  Module guess = parsed;
  if (llvm::Error error = selectEntries(guess, entries)) {
    llvm::consumeError(std::move(error));
    guess = parsed;
  }
  return guess;
}

llvm::Expected<EntriesByInput> entriesByInput(const ImageCheckInputs& inputs) {
  const DisplayPaths& paths = inputs.paths;
  if (inputs.images)
    return imageEntriesByInput(*inputs.images,
                               [&](const std::string& input) { return paths.input(input); });
  EntriesByInput entries;
  const std::vector<std::string>& files = inputs.options.sources.inputs;
  const DevicePlan& device = inputs.device;
  const TargetImage& first = device.targets.front();
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& file = first.perInput.empty() ? device.image : first.perInput[i];
    auto contents = readDeviceImageFile(file);
    if (!contents)
      return contents.takeError();
    std::set<std::string>& symbols = entries[paths.input(files[i])];
    for (const ImageContents::Part& part : contents->parts)
      for (const ImageEntry& entry : part.info.entries)
        symbols.insert(entry.symbol);
  }
  return entries;
}

llvm::Error parseOtherArchs(Analysis& parsed, std::set<std::string>& undeclared,
                            const EntriesByInput& entries, const ImageCheckInputs& inputs) {
  if (inputs.images) // declarations are not code for one arch
    return llvm::Error::success();
  const BuildOptions& options = inputs.options;
  Module& module = parsed.module;
  std::set<std::string> archs;
  for (const GpuTarget& target : options.targets)
    archs.insert("sm_" + target.number());
  archs.erase(options.sources.frontend.arch);
  for (const std::string& arch : archs) {
    if (undeclared.empty())
      break;
    FrontendOptions frontend = options.sources.frontend;
    frontend.arch = arch;
    auto analyzed = analyze(options.sources.inputs, frontend, inputs.toolkit, inputs.slots);
    if (!analyzed)
      return analyzed.takeError();
    Module& other = analyzed->module;
    inputs.paths.relativize(other);
    resolveKernelSymbols(other, entries); // those it cannot resolve are no entry's
    for (Kernel& kernel : other.kernels)
      if (undeclared.erase(kernel.symbol))
        module.kernels.push_back(std::move(kernel));
    for (const std::string& entry : other.otherEntries)
      if (undeclared.erase(entry))
        module.otherEntries.push_back(entry);
    parsed.filesRead.insert(parsed.filesRead.end(), analyzed->filesRead.begin(),
                            analyzed->filesRead.end());
  }
  return llvm::Error::success();
}

llvm::Error checkModuleAgainstImage(Analysis& parsed, const ImageCheckInputs& inputs) {
  const BuildOptions& options = inputs.options;
  bool images = inputs.images != nullptr;
  auto entries = entriesByInput(inputs);
  if (!entries)
    return entries.takeError();
  Module& module = parsed.module;
  std::vector<UnresolvedKernel> unresolved = resolveKernelSymbols(module, *entries);
  std::set<std::string> fromInputs;
  for (const auto& [input, symbols] : *entries)
    fromInputs.insert(symbols.begin(), symbols.end());
  auto targetEntries = readTargetEntries(inputs.device, fromInputs);
  if (!targetEntries)
    return targetEntries.takeError();
  if (std::set<std::string> undeclared = undeclaredEntries(module, *targetEntries);
      !undeclared.empty())
    if (llvm::Error error = parseOtherArchs(parsed, undeclared, *entries, inputs))
      return error;
  SourceDiagnostics diagnostics(llvm::errs(), options.sources.frontend.color);
  const DisplayPaths& paths = inputs.paths;
  diagnostics.setFileNames([&](const std::string& file) { return paths.sourcePath(file); });
  if (images)
    if (llvm::Error error = checkDeclaredKernels(module, *targetEntries, diagnostics))
      return error;
  ParseFacts parse{*entries, unresolved, images, images && !inputs.images->declarations.empty()};
  if (llvm::Error error =
          assignKernelTargets(module, inputs.device, *targetEntries, parse, diagnostics))
    return error;
  if (module.kernels.empty())
    return inputError("no kernels to launch in " + llvm::join(options.sources.inputs, ", ") +
                      (module.otherEntries.empty() ? ": nvcc's image holds none"
                                                   : ": nvcc's image holds library kernels only"));
  if (!assignLauncherNames(module.kernels, diagnostics, options.name))
    return reportedInputError("launcher names collide");
  deriveFacts(module);
  // --entry names kernels by their final symbols too; the others stay in the image.
  if (llvm::Error error = selectEntries(module, options.entries))
    return error;
  if (llvm::Error error =
          checkParameterLayouts(module, inputs.device, *targetEntries, diagnostics, images))
    return error;
  deriveFacts(module); // untyped parameters' C types follow the image's sizes
  return llvm::Error::success();
}

} // namespace tlc
