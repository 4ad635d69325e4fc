// The module as the build ships it: the parse's module checked against the device image nvcc
// built (or that was given). Every kernel gets its symbol from the image (SymbolResolution.h);
// every target's entries are matched with the kernels (ImageCheck.h), the inputs parsed again for
// the other archs of the build when a target holds kernels the parse did not see, and entries no
// kernel claims made kernels of their own (ImageKernels.h); launchers are named, --entry applied,
// and every launcher's parameter layout proven against the image (LayoutCheck.h).
#pragma once

#include "builder/BuildOptions.h"
#include "builder/DeviceBuild.h"
#include "builder/DisplayPaths.h"
#include "builder/ImageInputs.h"
#include "builder/SymbolResolution.h"
#include "checks/Analysis.h"
#include "support/Jobs.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Error.h"

#include <set>
#include <string>

namespace tlc {

// What the image check reads besides the parse's result.
struct ImageCheckInputs {
  const BuildOptions& options; // resolved: the name, targets, --entry and the parse's options
  const DevicePlan& device;    // the image that ships, and each target's
  const ImageSet* images;      // a build of device images (ImageInputs.h), else null
  const CudaToolkit& toolkit;  // for the parses of the other archs
  JobSlots* slots;
  const DisplayPaths& paths; // how the module names files, and how messages name them
};

// The parse's module, before the image check: every one of `inputs` parsed and checked
// (checks/Analysis.h), its paths as the outputs name them. A parse that finds no kernel does not
// make a module without any: nvcc's image decides what gets launchers. A build of device images
// (`images`) whose kernels nothing declares parses nothing: the image check makes their launchers.
// `store`: the parses kept before (frontend/Frontend.h), if any.
llvm::Expected<Analysis> parseModule(const std::vector<std::string>& inputs, const ImageSet* images,
                                     const FrontendOptions& options, const CudaToolkit& toolkit,
                                     JobSlots* slots, const DisplayPaths& paths,
                                     ParseStore* store = nullptr);

// The module as Clang names the kernels, rendered so that the launcher compiles while nvcc runs
// (nvcc agrees for every kernel with external linkage; the check corrects the rest): --entry
// applied where it applies, else the module as parsed (the check reports what --entry refuses,
// with the final symbols).
Module guessedModule(const Module& parsed, const std::vector<std::string>& entries);

// Each input's entry symbols, by its name in the module: from the image itself for one input
// compiled whole-program, else from each input's own relocatable object.
llvm::Expected<EntriesByInput> entriesByInput(const ImageCheckInputs& inputs);

// Kernels some target holds that the parse did not see, being for another arch (code under
// `#if __CUDA_ARCH__ < 900`, say): the inputs are parsed again for each other arch of the
// build, and the kernels found there join `parsed`'s module (their headers its files read).
// `undeclared` keeps what none explains.
llvm::Error parseOtherArchs(Analysis& parsed, std::set<std::string>& undeclared,
                            const EntriesByInput& entries, const ImageCheckInputs& inputs);

// Checks `parsed`'s module against the image and completes it as above. Source problems are
// reported at their place (checks/SourceDiagnostics.h) and end in an InputError.
llvm::Error checkModuleAgainstImage(Analysis& parsed, const ImageCheckInputs& inputs);

} // namespace tlc
