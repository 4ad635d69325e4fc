// Every launcher's parameter layout, proven against the image at build time. A launcher hands
// cuLaunchKernel one pointer per parameter (runtime/src/Launch.cpp: kernelParams), and the driver
// copies from each as many bytes as the image's parameter info says, to the offset it says. So
// the launcher is right only where, for every kernel and every target holding it, the image's
// parameter count, and each parameter's size and offset, equal those of the types the launcher
// passes: the parse's sizes and alignments, laid out one after the other as a C struct's members.
// Clang and nvcc (with gcc as host compiler) can disagree about a type's layout (`#ifdef __clang__`
// in a user header, packing pragmas, `alignas` on a member, `long double`): without this check the
// launcher would pass wrong bytes without a word.
//
// An untyped parameter (ParamKind::Bytes) takes the image's size as it is: the byte struct the
// launcher passes is made to measure.
#pragma once

#include "builder/DeviceBuild.h"
#include "builder/ImageCheck.h"
#include "checks/SourceDiagnostics.h"
#include "model/Model.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace tlc {

// Gives each untyped parameter the image's size, then checks every kernel of `module` against
// every target holding it (Kernel::targets, names from `plan`). A mismatch is an error at the
// parameter (or at the kernel, for a parameter count) naming both layouts; InputError after all
// are reported. InternalError where the image does not describe a kernel's parameters.
// `images`: the image is an input, declared by a header (builder/ImageInputs.h).
llvm::Error checkParameterLayouts(Module& module, const DevicePlan& plan,
                                  const std::vector<TargetEntries>& entries,
                                  SourceDiagnostics& diagnostics, bool images = false);

} // namespace tlc
