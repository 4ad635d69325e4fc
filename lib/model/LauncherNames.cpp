// Readable, unique C identifiers for launchers.
#include "model/LauncherNames.h"

#include "frontend/ParameterTypes.h"
#include "support/Identifiers.h"
#include "checks/SourceDiagnostics.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <map>

namespace tlc {

const std::vector<std::string>& reservedLauncherNames() {
  static const std::vector<std::string> names = {
      "load",          "unload",      "last_error",   "find_kernel", "launch_kernel",
      "kernel_count",  "kernel_name", "get_function", "set_image_path", "status_string",
      "config",        "kernel",
  };
  return names;
}

std::vector<std::string> entryPointNames(const Kernel& kernel) {
  std::vector<std::string> names = {kernel.launcher};
  if (kernel.hasTensorMaps())
    names.push_back(kernel.launcher + "_encoded");
  return names;
}

static std::string templateSuffix(const Kernel& kernel) {
  std::string suffix;
  for (const TemplateArgument& arg : kernel.templateArgs) {
    std::string part = identifierFrom(arg.value);
    if (!part.empty())
      suffix += "_" + part;
  }
  return suffix;
}

static std::string baseName(const Kernel& kernel) {
  std::string base = kernel.explicitName.empty() ? identifierFrom(kernel.name)
                                                 : kernel.explicitName;
  return base + templateSuffix(kernel);
}

// `scale(float*, float)` -> "float_ptr_float"; restrict cannot overload, so it is left out.
static std::string overloadSuffix(const Kernel& kernel) {
  if (kernel.params.empty())
    return "void";
  std::string spelled;
  for (const Param& param : kernel.params)
    spelled += param.canonicalType + " ";
  for (const char* qualifier : {"__restrict", "restrict"})
    for (size_t at; (at = spelled.find(qualifier)) != std::string::npos;)
      spelled.erase(at, std::string(qualifier).size());
  return identifierFrom(spelled);
}

bool assignLauncherNames(std::vector<Kernel>& kernels, SourceDiagnostics& diagnostics) {
  std::map<std::string, std::vector<Kernel*>> byBase;
  for (Kernel& kernel : kernels)
    byBase[baseName(kernel)].push_back(&kernel);
  for (auto& [base, group] : byBase) {
    for (Kernel* kernel : group) {
      bool overloaded = group.size() > 1 && kernel->explicitName.empty();
      kernel->launcher = overloaded ? base + "_" + overloadSuffix(*kernel) : base;
    }
  }

  bool ok = true;
  const auto& reserved = reservedLauncherNames();
  std::map<std::string, const Kernel*> taken;
  for (const Kernel& kernel : kernels) {
    SourceLocation at = kernel.explicitName.empty() ? kernel.location : kernel.explicitNameLocation;
    for (const std::string& name : entryPointNames(kernel)) {
      if (std::find(reserved.begin(), reserved.end(), name) != reserved.end()) {
        diagnostics.error(at, "launcher name '" + name + "' of kernel '" + kernel.displayName +
                                  "' is taken by the launcher API; rename it with "
                                  "TLC_NAME(\"...\") from tlc/annotations.h");
        ok = false;
        continue;
      }
      auto [it, inserted] = taken.emplace(name, &kernel);
      if (inserted)
        continue;
      const Kernel& other = *it->second;
      diagnostics.error(at, "launcher name '" + name + "' of kernel '" + kernel.displayName +
                                "' collides with kernel '" + other.displayName +
                                "'; rename one with TLC_NAME(\"...\") from tlc/annotations.h");
      diagnostics.note(other.explicitName.empty() ? other.location : other.explicitNameLocation,
                       "kernel '" + other.displayName + "' is named '" + name + "' here");
      ok = false;
    }
  }
  return ok;
}

} // namespace tlc
