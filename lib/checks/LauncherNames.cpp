// Readable, unique C identifiers for launchers.
#include "checks/LauncherNames.h"

#include "checks/SourceDiagnostics.h"
#include "frontend/ParameterTypes.h"
#include "support/Hashing.h"
#include "support/Identifiers.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

namespace tlc {

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

// The kernel's qualified name without anonymous namespaces, which name nothing a reader knows.
static std::string nameWithoutAnonymousNamespaces(std::string name) {
  const std::string anonymous = "(anonymous namespace)::";
  for (size_t at; (at = name.find(anonymous)) != std::string::npos;)
    name.erase(at, anonymous.size());
  return name;
}

// The kernel's qualified name without an outermost namespace named as the module, which the
// API's prefix repeats.
static std::string nameInModule(std::string name, const std::string& moduleName) {
  std::string prefix = moduleName + "::";
  if (!moduleName.empty() && llvm::StringRef(name).starts_with(prefix))
    name.erase(0, prefix.size());
  return name;
}

// A name no C++ compiler makes, and no demangler spells: a quote, a semicolon, a backslash, a
// backquote or a control character (what a forged device image's entry holds).
static bool foreignName(llvm::StringRef name) {
  return name.find_first_of("\"';\\`") != llvm::StringRef::npos || llvm::any_of(name, [](char c) {
           return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
         });
}

static std::string baseName(const Kernel& kernel, const std::string& moduleName) {
  // Such a name gives its launcher none of its words, only a short hash of it: the library's
  // API never spells what a forged image chose (the symbol itself stays an escaped string).
  if (kernel.explicitName.empty() && foreignName(kernel.name))
    return "kernel_" + sha256Hex(kernel.name).substr(0, 8);
  std::string base =
      kernel.explicitName.empty()
          ? identifierFrom(nameInModule(nameWithoutAnonymousNamespaces(kernel.name), moduleName))
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

// A kernel with internal linkage is its input's own: where kernels of several inputs share a
// name, such a kernel's launcher says which input it comes from (`a_k` for a.cu's static k).
static std::string inputPrefix(const Kernel& kernel, const std::vector<const Kernel*>& sameName) {
  if (!kernel.internalLinkage || !kernel.explicitName.empty())
    return "";
  auto inputOf = [](const Kernel& k) {
    return k.translationUnits.empty() ? std::string() : k.translationUnits.front();
  };
  std::string input = inputOf(kernel);
  bool otherInputs = std::any_of(sameName.begin(), sameName.end(),
                                 [&](const Kernel* other) { return inputOf(*other) != input; });
  return otherInputs ? identifierFrom(llvm::sys::path::stem(input).str()) + "_" : "";
}

// The kernel's own name: `device_kernel` for `cutlass::device_kernel<Gemm<...>>`.
static std::string unqualifiedName(const Kernel& kernel) {
  llvm::StringRef name = kernel.name;
  size_t colons = name.rfind("::");
  return identifierFrom(colons == llvm::StringRef::npos ? name.str()
                                                        : name.drop_front(colons + 2).str());
}

// A launcher name a person can type: one longer than kMaxLauncherName (a template instance of a
// template library spells thousands of characters) becomes the kernel's own name (or its
// TLC_NAME) and a short hash of the full one, which keeps it unique and the same in every build.
// A TLC_NAME alone is the user's choice, whatever its length.
static std::string typeable(const Kernel& kernel, const std::string& full) {
  if (full.size() <= kMaxLauncherName || full == kernel.explicitName)
    return full;
  std::string base = kernel.explicitName.empty() ? unqualifiedName(kernel) : kernel.explicitName;
  return base + "_" + sha256Hex(full).substr(0, 8);
}

bool assignLauncherNames(std::vector<Kernel>& kernels, SourceDiagnostics& diagnostics,
                         const std::string& moduleName) {
  std::map<std::string, std::vector<const Kernel*>> byBase;
  for (const Kernel& kernel : kernels)
    byBase[baseName(kernel, moduleName)].push_back(&kernel);
  std::map<std::string, std::vector<Kernel*>> byName; // after input prefixes
  for (Kernel& kernel : kernels) {
    std::string base = baseName(kernel, moduleName);
    byName[inputPrefix(kernel, byBase[base]) + base].push_back(&kernel);
  }
  for (auto& [base, group] : byName) {
    for (Kernel* kernel : group) {
      bool overloaded = group.size() > 1 && kernel->explicitName.empty();
      kernel->launcher = overloaded ? base + "_" + overloadSuffix(*kernel) : base;
      kernel->launcher = typeable(*kernel, kernel->launcher);
    }
  }

  bool ok = true;
  std::map<std::string, const Kernel*> taken;
  for (const Kernel& kernel : kernels) {
    SourceLocation at = kernel.explicitName.empty() ? kernel.location : kernel.explicitNameLocation;
    for (const std::string& name : entryPointNames(kernel)) {
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
