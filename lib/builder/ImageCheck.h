// The device image against the parsed module, target by target. Clang parses for one arch, but a
// fatbin holds several targets, and code under `#if __CUDA_ARCH__ >= 900` gives each target its
// own kernels. So: every entry of every target is a kernel Clang found (for the parse arch, or
// for the target's own arch when the build parses again), a library entry, or else a kernel made
// from the image (ImageKernels.h); and each kernel records which targets hold it; its launcher
// refuses a device whose target lacks it (TLC_ERROR_NO_BINARY).
#pragma once

#include "builder/DeviceBuild.h"
#include "builder/DeviceImage.h"
#include "builder/SymbolResolution.h"
#include "checks/SourceDiagnostics.h"
#include "model/Model.h"

#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tlc {

// One target's entries, by symbol.
using TargetEntries = std::map<std::string, ImageEntry>;

// Each target's entries, in the plan's target order, read from the image that ships. For
// relocatable code only entries of the inputs' own objects count (`fromInputs`): the device
// link adds library code (the device runtime's kernels, for dynamic parallelism).
llvm::Expected<std::vector<TargetEntries>>
readTargetEntries(const DevicePlan& plan, const std::set<std::string>& fromInputs);

// Entries some target holds that are neither a kernel of `module` nor one of its other entries.
std::set<std::string> undeclaredEntries(const Module& module,
                                        const std::vector<TargetEntries>& entries);

// What the parse knew that the image check uses for entries it did not declare: which input
// holds each entry, and the kernels whose symbols tlc could not resolve (resolveKernelSymbols).
struct ParseFacts {
  const EntriesByInput& inputs;
  const std::vector<UnresolvedKernel>& unresolved;
  // The inputs are device images (builder/ImageInputs.h): an entry without a launcher was not
  // declared, rather than hidden from Clang; and whether any header declares their kernels (if
  // none does, every launcher comes from the image, which a note says once).
  bool images = false;
  bool declarationsGiven = false;
};

// Sets each kernel's `targets` (names from `plan`) to those whose entries hold it. Entries no
// kernel claims become the library's (adoptLibraryInstances) or kernels of their own, made from
// the image (ImageKernels.h), each with a warning saying why its typed form is missing; an
// unresolved kernel of the same name and input is the declaration such a warning points at, and
// leaves the module. InputError for a kernel no target holds (nvcc did not compile it).
llvm::Error assignKernelTargets(Module& module, const DevicePlan& plan,
                                const std::vector<TargetEntries>& entries, const ParseFacts& parse,
                                SourceDiagnostics& diagnostics);

} // namespace tlc
