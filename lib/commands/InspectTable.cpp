// The human-readable table `tlc inspect` prints.
#include "commands/InspectTable.h"

#include "llvm/Support/Format.h"

#include <algorithm>

namespace tlc {

static std::string signature(const Kernel& kernel) {
  std::string text = kernel.displayName + "(";
  for (const Param& param : kernel.params) {
    if (param.index)
      text += ", ";
    bool tight = !param.type.empty() && (param.type.back() == '*' || param.type.back() == '&');
    text += param.type + (tight ? "" : " ") + param.name;
  }
  return text + ")";
}

static std::string details(const Kernel& kernel) {
  std::string text = "symbol " + kernel.symbol;
  if (kernel.externC)
    text += " (extern \"C\")";
  if (kernel.launchBounds) {
    text += " | __launch_bounds__(" + std::to_string(kernel.launchBounds->maxThreads);
    if (kernel.launchBounds->minBlocks)
      text += ", " + std::to_string(*kernel.launchBounds->minBlocks);
    if (kernel.launchBounds->maxBlocksPerCluster)
      text += ", " + std::to_string(*kernel.launchBounds->maxBlocksPerCluster);
    text += ")";
  }
  if (kernel.clusterDims)
    text += " | __cluster_dims__(" + std::to_string((*kernel.clusterDims)[0]) + ", " +
            std::to_string((*kernel.clusterDims)[1]) + ", " +
            std::to_string((*kernel.clusterDims)[2]) + ")";
  if (kernel.instantiatedAt)
    text += " | instantiated at " + kernel.instantiatedAt->str();
  return text;
}

void printKernelTable(const Module& module, llvm::raw_ostream& out) {
  size_t launcherWidth = std::string("LAUNCHER").size();
  for (const Kernel& kernel : module.kernels)
    launcherWidth = std::max(launcherWidth, kernel.launcher.size());
  out << llvm::left_justify("LAUNCHER", launcherWidth) << "  KERNEL\n";
  for (const Kernel& kernel : module.kernels) {
    out << llvm::left_justify(kernel.launcher, launcherWidth) << "  " << signature(kernel) << "\n";
    out << llvm::left_justify("", launcherWidth) << "    " << kernel.location.str() << " | "
        << details(kernel) << "\n";
  }
  out << module.kernels.size() << (module.kernels.size() == 1 ? " kernel" : " kernels") << " in "
      << module.inputs.size() << (module.inputs.size() == 1 ? " file" : " files") << "\n";
}

} // namespace tlc
