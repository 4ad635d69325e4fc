// The device image against the parsed module, target by target. Clang parses for one arch, but a
// fatbin holds several targets, and code under `#if __CUDA_ARCH__ >= 900` gives each target its
// own kernels. So: every entry of every target must be a kernel Clang found (for the parse arch,
// or for the target's own arch when the build parses again), and each kernel records which
// targets hold it; its launcher refuses a device whose target lacks it (TLC_ERROR_NO_BINARY).
#pragma once

#include "model/Model.h"
#include "pipeline/DeviceBuild.h"

#include "llvm/Support/Error.h"

#include <set>
#include <string>
#include <vector>

namespace tlc {

// Each target's entries, in the plan's target order, read from the image that ships. For
// relocatable code only entries of the inputs' own objects count (`fromInputs`): the device
// link adds library code (the device runtime's kernels, for dynamic parallelism).
llvm::Expected<std::vector<std::set<std::string>>>
readTargetEntries(const DevicePlan& plan, const std::set<std::string>& fromInputs);

// Entries some target holds that are neither a kernel of `module` nor one of its other entries.
std::set<std::string> undeclaredEntries(const Module& module,
                                        const std::vector<std::set<std::string>>& entries);

// Sets each kernel's `targets` (names from `plan`) to those whose entries hold it. InternalError
// for a target with undeclared entries, or a kernel no target holds.
llvm::Error assignKernelTargets(Module& module, const DevicePlan& plan,
                                const std::vector<std::set<std::string>>& entries);

} // namespace tlc
