// Checking the launchers' parameter layouts against the image's parameter info.
#include "builder/LayoutCheck.h"

#include "builder/ImageKernels.h"
#include "support/Error.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tlc {

namespace {

// Where the launcher's types put each parameter: a typed one at the first offset after the one
// before that its alignment allows (counted from the image's parameter base, as ptxas counts),
// an untyped one where the image puts it (it takes the image's layout as it is).
std::vector<ImageParam> launcherLayout(const Kernel& kernel, const ImageEntry& image) {
  std::vector<ImageParam> layout;
  uint64_t end = 0, base = image.paramBase;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Param& param = kernel.params[i];
    uint64_t offset = param.kind == ParamKind::Bytes && i < image.params.size()
                          ? image.params[i].offset
                          : llvm::alignTo(base + end, std::max<uint64_t>(param.align, 1)) - base;
    layout.push_back({offset, param.size, param.align});
    end = offset + param.size;
  }
  return layout;
}

std::string placed(const ImageParam& param) {
  return std::to_string(param.size) + " bytes at offset " + std::to_string(param.offset);
}

// "a: 4 bytes at offset 0, b: 16 bytes at offset 16"
std::string layoutText(const Kernel& kernel, const std::vector<ImageParam>& layout) {
  std::string text;
  for (size_t i = 0; i < layout.size(); ++i)
    text += (i ? ", " : "") +
            (i < kernel.params.size() ? kernel.params[i].name : "arg" + std::to_string(i)) + ": " +
            placed(layout[i]);
  return text.empty() ? "no parameters" : text;
}

// The entry of `kernel` in target `index` of `entries`.
const ImageEntry& entryOf(const std::vector<TargetEntries>& entries, size_t index,
                          const Kernel& kernel) {
  return entries[index].at(kernel.symbol);
}

// Untyped parameters take the image's size, and an alignment that divides it.
void adoptImageSizes(Kernel& kernel, const ImageEntry& entry) {
  for (size_t i = 0; i < kernel.params.size() && i < entry.params.size(); ++i) {
    Param& param = kernel.params[i];
    if (param.kind != ParamKind::Bytes)
      continue;
    param.size = entry.params[i].size;
    param.align = bytesAlignment(param.size, entry.paramBase + entry.params[i].offset,
                                 param.align ? param.align : entry.params[i].align);
  }
}

// Reports the first difference between the launcher's layout and the image's, if any.
// `images`: the image is an input and the kernel's declaration a header's (ImageInputs.h), so
// the message blames the declaration, not a disagreement between Clang and nvcc.
bool layoutsAgree(const Kernel& kernel, const ImageEntry& entry, const std::string& target,
                  SourceDiagnostics& diagnostics, bool images) {
  std::vector<ImageParam> launcher = launcherLayout(kernel, entry);
  std::string image = images ? "the image" : "nvcc's image";
  std::string both = image + " (" + target + "): " + layoutText(kernel, entry.params) +
                     "; the launcher: " + layoutText(kernel, launcher);
  if (launcher.size() != entry.params.size()) {
    diagnostics.error(kernel.location,
                      "kernel '" + kernel.displayName + "' takes " +
                          std::to_string(launcher.size()) + " parameter(s) as Clang parsed it, " +
                          std::to_string(entry.params.size()) + " in " + image + " (" + target +
                          (images ? "): the declaration is not the image's kernel's"
                                  : "): the two compilers saw different declarations"));
    diagnostics.note(kernel.location, both);
    return false;
  }
  for (size_t i = 0; i < launcher.size(); ++i) {
    if (launcher[i] == entry.params[i])
      continue;
    const Param& param = kernel.params[i];
    SourceLocation at = param.location.valid() ? param.location : kernel.location;
    diagnostics.error(
        at, "parameter '" + param.name + "' of kernel '" + kernel.displayName + "' is " +
                placed(entry.params[i]) + " in " + image + " (" + target + "), but " +
                placed(launcher[i]) + " as Clang lays '" + param.type + "' out (aligned to " +
                std::to_string(param.align) +
                (images ? "): the declaration does not say the image's kernel's parameter, and "
                          "its launcher would pass the wrong bytes; declare it as the kernel "
                          "that made the image has it"
                        : "): the two compilers lay it out differently (a member under #ifdef "
                          "__clang__, a packing pragma, alignas, long double...), and its "
                          "launcher would pass the wrong bytes; give the type one layout for "
                          "both"));
    diagnostics.note(at, both);
    return false;
  }
  return true;
}

} // namespace

llvm::Error checkParameterLayouts(Module& module, const DevicePlan& plan,
                                  const std::vector<TargetEntries>& entries,
                                  SourceDiagnostics& diagnostics, bool images) {
  unsigned wrong = 0;
  for (Kernel& kernel : module.kernels) {
    std::vector<size_t> holding; // the kernel's targets, as indices into the plan's
    for (size_t i = 0; i < plan.targets.size(); ++i)
      if (std::find(kernel.targets.begin(), kernel.targets.end(), plan.targets[i].target.code) !=
          kernel.targets.end())
        holding.push_back(i);
    for (size_t i : holding)
      if (!entryOf(entries, i, kernel).paramsKnown)
        return internalError("the device image's " + plan.targets[i].target.code +
                             " code does not describe the parameters of kernel '" +
                             kernel.displayName + "' (" + kernel.symbol + ")");
    if (!holding.empty())
      adoptImageSizes(kernel, entryOf(entries, holding.front(), kernel));
    for (size_t i : holding)
      if (!layoutsAgree(kernel, entryOf(entries, i, kernel), plan.targets[i].target.code,
                        diagnostics, images)) {
        ++wrong;
        break; // one error a kernel: the other targets say the same
      }
  }
  if (wrong)
    return reportedInputError(std::to_string(wrong) +
                              (images ? " kernel(s) declared with other parameters than the image's"
                                      : " kernel(s) whose parameters Clang and nvcc lay out "
                                        "differently"));
  return llvm::Error::success();
}

} // namespace tlc
