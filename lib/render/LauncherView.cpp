// The view the launcher templates render: the model plus build facts.
#include "render/LauncherView.h"

#include "model/EnumTables.h"
#include "model/ModelJson.h"
#include "render/ModuleApi.h"
#include "build/Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>

namespace tlc {

std::string cParameterName(const std::string& name) {
  // C keywords that are not C++ keywords, and the launcher's own parameter and local names.
  static const char* const reserved[] = {
      "restrict", "_Bool",     "_Complex", "_Imaginary",     "_Alignas", "_Alignof",
      "_Atomic",  "_Generic",  "_Noreturn", "_Static_assert", "_Thread_local",
      "config",   "args",      "tensors"};
  bool clash = std::find(std::begin(reserved), std::end(reserved), name) != std::end(reserved);
  return clash ? name + "_" : name;
}

// What the launcher's table of tensor maps needs: fixed-size arrays for the C initialiser and
// the run-time rules on the tensor.
static nlohmann::json tensorMapEntry(const TensorMapSpec& spec, const Param& param,
                                     const Kernel& kernel) {
  auto padded = [](std::vector<int64_t> values, size_t size) {
    values.resize(size, 0);
    return values;
  };
  return {{"kernel", kernel.launcher},
          {"parameter", param.name},
          {"argument", param.index},
          {"mode", spec.mode == TensorMapMode::Im2col ? "Im2col" : "Tiled"},
          {"dtype_enum", driverName(spec.dtype)},
          {"rank", spec.rank},
          {"box", padded(spec.box, 5)},
          {"element_strides", padded(spec.elemStrides, 5)},
          {"lower", padded(spec.lower, 3)},
          {"upper", padded(spec.upper, 3)},
          {"channels", spec.channels},
          {"pixels", spec.pixels},
          {"interleave_enum", driverName(spec.interleave)},
          {"swizzle_enum", driverName(spec.swizzle)},
          {"l2_enum", driverName(spec.l2)},
          {"oob_enum", driverName(spec.oob)},
          {"address_alignment", spec.addressAlignment},
          {"stride_multiple", spec.strideMultiple},
          {"dim0_multiple", spec.dim0Multiple}};
}

// Whether two tensor-map entries would encode alike for the same tensor (names aside).
static bool sameDescriptorSettings(nlohmann::json a, nlohmann::json b) {
  for (nlohmann::json* entry : {&a, &b})
    for (const char* name : {"kernel", "parameter", "argument", "group"})
      entry->erase(name);
  return a == b;
}

// "sm_90a" -> {name, arch 90, variant "a", ptx false}; "compute_80" -> PTX.
static nlohmann::json targetEntry(llvm::StringRef target) {
  bool ptx = target.consume_front("compute_");
  if (!ptx)
    target.consume_front("sm_");
  std::string variant;
  if (!target.empty() && (target.back() == 'a' || target.back() == 'f')) {
    variant = target.back();
    target = target.drop_back();
  }
  unsigned arch = 0;
  target.getAsInteger(10, arch);
  return {{"arch", arch},
          {"variant", variant},
          {"variant_literal", variant.empty() ? "0" : "'" + variant + "'"},
          {"ptx", ptx}};
}

static nlohmann::json targetsView(const std::vector<std::string>& targets) {
  nlohmann::json list = nlohmann::json::array();
  for (const std::string& target : targets) {
    nlohmann::json entry = targetEntry(target);
    entry["name"] = target;
    list.push_back(std::move(entry));
  }
  return list;
}

nlohmann::json launcherView(const Module& module, const LauncherFacts& facts) {
  nlohmann::json kernels = nlohmann::json::array();
  nlohmann::json tensorMaps = nlohmann::json::array();
  for (size_t i = 0; i < module.kernels.size(); ++i) {
    const Kernel& kernel = module.kernels[i];
    nlohmann::json view = toJson(kernel);
    view["index"] = i;
    view["has_params"] = !kernel.params.empty();
    // Every target holds every kernel until the image says otherwise.
    view["targets_mask"] = std::to_string((1ull << facts.targets.size()) - 1) + "u";
    size_t firstMap = tensorMaps.size();
    view["first_tensor_map"] = firstMap;
    nlohmann::json mapArguments = nlohmann::json::array();
    for (size_t p = 0; p < kernel.params.size(); ++p) {
      nlohmann::json& param = view["params"][p];
      param["c_name"] = cParameterName(kernel.params[p].name);
      param["is_tensor_map"] = kernel.params[p].tensorMap.has_value();
      if (!kernel.params[p].tensorMap)
        continue;
      size_t slot = mapArguments.size(); // this map's index among the kernel's maps
      mapArguments.push_back(p);
      nlohmann::json entry = tensorMapEntry(*kernel.params[p].tensorMap, kernel.params[p], kernel);
      // The kernel's first map with the same descriptor settings (this one if none): maps of
      // one group can share an encoding at run time, and the launcher compares group numbers.
      entry["group"] = slot;
      for (size_t earlier = firstMap; earlier < tensorMaps.size(); ++earlier)
        if (sameDescriptorSettings(tensorMaps[earlier], entry)) {
          entry["group"] = earlier - firstMap;
          break;
        }
      tensorMaps.push_back(std::move(entry));
    }
    view["tensor_map_args"] = mapArguments;
    nlohmann::json mapNames = nlohmann::json::array();
    for (const Param& param : kernel.params)
      if (param.tensorMap)
        mapNames.push_back(cParameterName(param.name));
    view["tensor_map_params"] = mapNames;
    view["tensor_map_count"] = mapArguments.size();
    view["has_tensor_maps"] = !mapArguments.empty();
    kernels.push_back(std::move(view));
  }
  nlohmann::json records = nlohmann::json::array();
  for (const Record& record : module.records)
    records.push_back(toJson(record));

  nlohmann::json view = {{"module", facts.name},
                         {"MODULE", llvm::StringRef(facts.name).upper()},
                         {"tlc_version", tlcVersion()},
                         {"inputs", facts.inputs},
                         {"targets", targetsView(facts.targets)},
                         {"target_count", facts.targets.size()},
                         {"image",
                          {{"file", facts.imageFile},
                           {"embedded", facts.embedImage},
                           {"symbol", "tlc_image_" + facts.name}}},
                         {"launcher_types", facts.launcherTypes},
                         {"uses_vector_types", false},
                         {"api", moduleApiView()}};
  view["kernel_count"] = module.kernels.size();
  view["kernels"] = kernels;
  view["records"] = records;
  view["has_records"] = !module.records.empty();
  view["tensor_maps"] = tensorMaps;
  view["has_tensor_maps"] = !tensorMaps.empty();
  return view;
}

} // namespace tlc
