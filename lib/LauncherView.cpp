#include "LauncherView.h"

#include "ModelJson.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace tlc {

std::string cParameterName(const std::string& name) {
  // C keywords that are not C++ keywords, and the launcher's own parameter and local names.
  static const char* const reserved[] = {
      "restrict", "_Bool",     "_Complex", "_Imaginary",     "_Alignas", "_Alignof",
      "_Atomic",  "_Generic",  "_Noreturn", "_Static_assert", "_Thread_local",
      "config",   "args"};
  bool clash = std::find(std::begin(reserved), std::end(reserved), name) != std::end(reserved);
  return clash ? name + "_" : name;
}

nlohmann::json launcherView(const Module& module, const LauncherFacts& facts) {
  nlohmann::json kernels = nlohmann::json::array();
  for (size_t i = 0; i < module.kernels.size(); ++i) {
    const Kernel& kernel = module.kernels[i];
    nlohmann::json view = toJson(kernel);
    view["index"] = i;
    view["function"] = facts.name + "_" + kernel.launcher;
    view["has_params"] = !kernel.params.empty();
    for (nlohmann::json& param : view["params"])
      param["c_name"] = cParameterName(param["name"].get<std::string>());
    kernels.push_back(std::move(view));
  }
  nlohmann::json records = nlohmann::json::array();
  for (const Record& record : module.records)
    records.push_back(toJson(record));

  return {{"module", facts.name},
          {"MODULE", llvm::StringRef(facts.name).upper()},
          {"tlc_version", tlcVersion()},
          {"inputs", facts.inputs},
          {"archs", facts.archs},
          {"kernel_count", module.kernels.size()},
          {"kernels", kernels},
          {"records", records},
          {"has_records", !module.records.empty()},
          {"image",
           {{"file", facts.imageFile},
            {"embedded", facts.embedImage},
            {"symbol", "tlc_image_" + facts.name}}}};
}

} // namespace tlc
