// The human-readable table `tlc inspect` prints.
#include "commands/InspectTable.h"

#include "llvm/Support/Format.h"

#include <algorithm>

namespace tlc {

// A parameter as C++ declares it: `float *x`, and inside the declarator's parentheses where
// the type has them (`float (*rows)[4]`, from `float rows[8][4]`; `void (*f)(int)`).
static std::string declaration(const std::string& type, const std::string& name) {
  size_t open = type.find_first_of("(");
  bool inTemplate = std::count(type.begin(), type.begin() + std::min(open, type.size()), '<') !=
                    std::count(type.begin(), type.begin() + std::min(open, type.size()), '>');
  if (open != std::string::npos && !inTemplate && open + 1 < type.size() &&
      (type[open + 1] == '*' || type[open + 1] == '&')) {
    size_t close = type.find(')', open);
    if (close != std::string::npos)
      return type.substr(0, close) + name + type.substr(close);
  }
  bool tight = !type.empty() && (type.back() == '*' || type.back() == '&');
  return type + (tight ? "" : " ") + name;
}

static std::string signature(const Kernel& kernel) {
  std::string text = kernel.displayName + "(";
  for (const Param& param : kernel.params) {
    if (param.index)
      text += ", ";
    text += declaration(param.type, param.name);
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
