// The view the launcher templates render: the model's JSON, a build section, presentation helpers.
#include "render/LauncherView.h"

#include "model/ModelJson.h"
#include "render/ModuleApi.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <map>
#include <set>

namespace tlc {

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

// What the build knows and the model does not.
static nlohmann::json buildSection(const LauncherFacts& facts) {
  return {{"module", facts.name},
          {"MODULE", llvm::StringRef(facts.name).upper()},
          {"cxx_module", cxxIdentifier(facts.name)},
          {"tlc_version", tlcVersion()},
          {"inputs", facts.inputs},
          {"targets", targetsView(facts.targets)},
          {"target_count", facts.targets.size()},
          {"image",
           {{"file", facts.imageFile},
            {"embedded", facts.embedImage},
            {"symbol", "tlc_image_" + facts.name}}},
          {"launcher_types", facts.launcherTypes},
          {"api", moduleApiView()}};
}

// The row of the runtime's TensorMapInfo table beyond what the model's JSON says as is: the
// runtime's mode enumerator, the driver's fixed-size arrays (zero-padded) and im2col's channels
// and pixels (0 for tiled maps).
static nlohmann::json tensorMapTableRow(const TensorMapSpec& spec) {
  auto padded = [](std::vector<int64_t> values, size_t size) {
    values.resize(size, 0);
    return values;
  };
  return {{"mode", spec.mode == TensorMapMode::Im2col ? "Im2col" : "Tiled"},
          {"box", padded(spec.box, 5)},
          {"element_strides", padded(spec.elemStrides, 5)},
          {"lower", padded(spec.lower, 3)},
          {"upper", padded(spec.upper, 3)},
          {"channels", spec.channels},
          {"pixels", spec.pixels}};
}

// The runtime's KernelInfo::targets: bit i for the build's target i, if it holds the kernel.
static std::string targetsMask(const Kernel& kernel, const std::vector<std::string>& targets) {
  unsigned long long mask = 0;
  for (size_t i = 0; i < targets.size(); ++i)
    if (kernel.targets.empty() || // not checked against an image: every target
        std::find(kernel.targets.begin(), kernel.targets.end(), targets[i]) != kernel.targets.end())
      mask |= 1ull << i;
  return std::to_string(mask) + "u";
}

// The toolkit header a C type needs NAME.h to include (cuda.h is included anyway).
static void addToolkitHeader(const CType& type, std::set<std::string>& headers) {
  if (type.baseKind == CType::Base::Toolkit && type.header != "cuda.h")
    headers.insert(type.header);
}

// A single pointer to one of tlc's 16-bit float mirrors (tlc_half*, const tlc_bfloat162*): in C++
// NAME.h's overload also takes the CUDA type's pointer there (tlc_cuda_pointer, tlc/launcher.h).
static bool takesCudaPointer(const CType& type) {
  bool mirror = type.baseKind == CType::Base::Half || type.baseKind == CType::Base::BFloat16 ||
                type.baseKind == CType::Base::Half2 || type.baseKind == CType::Base::BFloat162;
  return mirror && type.pointers.size() == 1;
}

// C++ keywords and alternative tokens that C does not reserve: a module or launcher named so gets
// a '_' in namespace tlc::NAME (cxxIdentifier).
static bool isCxxOnlyKeyword(llvm::StringRef name) {
  static const char* const keywords[] = {"alignas",
                                         "alignof",
                                         "and",
                                         "and_eq",
                                         "asm",
                                         "bitand",
                                         "bitor",
                                         "bool",
                                         "catch",
                                         "char8_t",
                                         "char16_t",
                                         "char32_t",
                                         "class",
                                         "compl",
                                         "concept",
                                         "consteval",
                                         "constexpr",
                                         "constinit",
                                         "const_cast",
                                         "co_await",
                                         "co_return",
                                         "co_yield",
                                         "decltype",
                                         "delete",
                                         "dynamic_cast",
                                         "explicit",
                                         "export",
                                         "false",
                                         "friend",
                                         "mutable",
                                         "namespace",
                                         "new",
                                         "noexcept",
                                         "not",
                                         "not_eq",
                                         "nullptr",
                                         "operator",
                                         "or",
                                         "or_eq",
                                         "private",
                                         "protected",
                                         "public",
                                         "reinterpret_cast",
                                         "requires",
                                         "static_assert",
                                         "static_cast",
                                         "template",
                                         "this",
                                         "thread_local",
                                         "throw",
                                         "true",
                                         "try",
                                         "typeid",
                                         "typename",
                                         "using",
                                         "virtual",
                                         "wchar_t",
                                         "xor",
                                         "xor_eq"};
  for (const char* keyword : keywords)
    if (name == keyword)
      return true;
  return false;
}

// The keywords C and C++ share (GNU's `typeof` among them): a module may be named so (its C
// functions are NAME_*), but not its namespace.
static bool isSharedKeyword(llvm::StringRef name) {
  static const char* const keywords[] = {
      "auto",  "break",    "case",   "char",     "const",  "continue", "default",
      "do",    "double",   "else",   "enum",     "extern", "float",    "for",
      "goto",  "if",       "inline", "int",      "long",   "register", "return",
      "short", "signed",   "sizeof", "static",   "struct", "switch",   "typedef",
      "union", "unsigned", "void",   "volatile", "while",  "typeof"};
  return llvm::is_contained(keywords, name);
}

std::string cxxIdentifier(const std::string& name) {
  return isCxxOnlyKeyword(name) || isSharedKeyword(name) ? name + "_" : name;
}

// Whether a C++ declaration may qualify this base type with `::` (every name but the
// fundamental types' keywords): NAME.h's C++ launchers spell each type they take so, since a
// launcher's own name in namespace tlc::NAME would hide a global type of the same name.
static bool cxxQualifies(llvm::StringRef base) {
  static const char* const fundamental[] = {"void",  "bool",   "char",   "short",    "int",  "long",
                                            "float", "double", "signed", "unsigned", "_Bool"};
  llvm::StringRef first = base.split(' ').first;
  for (const char* keyword : fundamental)
    if (first == keyword)
      return false;
  return !base.empty();
}

// A record the C++ launchers accept a caller's own type for (tlc_record): one C spells field
// by field.
static bool byFields(const Module& module, const std::string& cName) {
  for (const Record& record : module.records)
    if (record.cName == cName)
      return !record.opaque;
  return false;
}

// The C++ launchers' view of the records: each non-opaque record's fields under their C++
// names, and for a field that is a record by value, that record, whose layout is checked in turn.
static void addCxxRecordViews(const Module& module, nlohmann::json& view) {
  for (size_t r = 0; r < module.records.size(); ++r) {
    const Record& record = module.records[r];
    nlohmann::json& recordView = view["records"][r];
    recordView["by_fields"] = !record.opaque;
    for (size_t f = 0; f < record.fields.size(); ++f) {
      const RecordField& field = record.fields[f];
      nlohmann::json& fieldView = recordView["fields"][f];
      fieldView["cxx_name"] = field.name;
      fieldView["owner"] = record.name;
      bool nested = field.ctype.baseKind == CType::Base::Record && field.ctype.pointers.empty() &&
                    byFields(module, field.ctype.base);
      fieldView["has_record"] = nested;
      if (nested)
        fieldView["record"] = field.ctype.base;
    }
  }
}

// The byte structs of untyped parameters, one per C type, in size and alignment order.
static nlohmann::json byteTypes(const Module& module) {
  std::map<std::pair<uint64_t, uint64_t>, std::string> types;
  for (const Kernel& kernel : module.kernels)
    for (const Param& param : kernel.params)
      if (param.kind == ParamKind::Bytes)
        types[{param.size, param.align}] = param.ctype.base;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [layout, name] : types)
    list.push_back({{"c_name", name}, {"size", layout.first}, {"align", layout.second}});
  return list;
}

// Mustache can test a value but not count, pad or filter a list: these helpers do it.
static void addPresentationHelpers(const Module& module, const LauncherFacts& facts,
                                   nlohmann::json& view) {
  bool anyTensorMaps = false, anyEmpty = false;
  std::set<std::string> toolkitHeaders; // beyond cuda.h, which NAME.h includes anyway
  for (const Record& record : module.records)
    for (const RecordField& field : record.fields)
      addToolkitHeader(field.ctype, toolkitHeaders);
  for (size_t k = 0; k < module.kernels.size(); ++k) {
    const Kernel& kernel = module.kernels[k];
    assert(kernel.index == k && "the module's derived facts are stale (deriveFacts)");
    nlohmann::json& kernelView = view["kernels"][k];
    kernelView["targets_mask"] = targetsMask(kernel, facts.targets);
    // The launcher's `tensors` array: the tensor-map parameters alone, comma-separated.
    nlohmann::json mapNames = nlohmann::json::array();
    for (size_t p = 0; p < kernel.params.size(); ++p) {
      const Param& param = kernel.params[p];
      if (!param.tensorMap)
        continue;
      mapNames.push_back(param.cName);
      kernelView["params"][p]["tensor_map"]["table_row"] = tensorMapTableRow(*param.tensorMap);
    }
    kernelView["tensor_map_c_names"] = std::move(mapNames);
    kernelView["has_location"] = kernel.location.valid();
    nlohmann::json untyped = nlohmann::json::array();
    for (const Param& param : kernel.params)
      if (param.kind == ParamKind::Bytes)
        untyped.push_back({{"c_name", param.cName}, {"type", param.type}});
    kernelView["has_untyped_params"] = !untyped.empty();
    kernelView["untyped_params"] = std::move(untyped);
    anyTensorMaps |= kernel.tensorMapCount != 0;
    bool cudaPointers = false;
    for (size_t p = 0; p < kernel.params.size(); ++p) {
      const Param& param = kernel.params[p];
      anyEmpty |= param.kind == ParamKind::Empty;
      addToolkitHeader(param.ctype, toolkitHeaders);
      bool cudaPointer = !param.tensorMap && takesCudaPointer(param.ctype);
      kernelView["params"][p]["cuda_pointer"] = cudaPointer;
      cudaPointers |= cudaPointer;
    }
    kernelView["has_cuda_pointers"] = cudaPointers;
    for (size_t p = 0; p < kernel.params.size(); ++p) {
      const CType& type = kernel.params[p].ctype;
      nlohmann::json& paramView = kernelView["params"][p];
      bool record = type.baseKind == CType::Base::Record && byFields(module, type.base) &&
                    !kernel.params[p].tensorMap;
      paramView["cxx_record"] = record && type.pointers.empty();
      paramView["cxx_record_pointer"] = record && type.pointers.size() == 1;
      paramView["c_type"]["cxx_global"] = cxxQualifies(type.base);
    }
  }
  // Launcher names in namespace tlc::NAME: C++ keywords get a '_', kept apart from the others.
  std::set<std::string> cxxNames;
  for (const Kernel& kernel : module.kernels)
    cxxNames.insert(kernel.launcher);
  for (size_t k = 0; k < module.kernels.size(); ++k) {
    std::string name = module.kernels[k].launcher;
    if (isCxxOnlyKeyword(name))
      do
        name += "_";
      while (cxxNames.count(name));
    cxxNames.insert(name);
    view["kernels"][k]["cxx_launcher"] = name;
  }
  addCxxRecordViews(module, view);
  view["kernel_count"] = module.kernels.size();
  view["has_records"] = !module.records.empty();
  view["byte_types"] = byteTypes(module);
  view["has_byte_types"] = !view["byte_types"].empty();
  view["has_tensor_maps"] = anyTensorMaps;
  view["has_empty_params"] = anyEmpty;
  view["toolkit_headers"] = std::vector<std::string>(toolkitHeaders.begin(), toolkitHeaders.end());
}

std::string cFieldName(const std::string& name) {
  // C keywords that are not C++ keywords, so a C++ field may be named so.
  static const char* const keywords[] = {
      "restrict",   "_Bool",      "_Complex",    "_Imaginary",     "_Alignas",      "_Alignof",
      "_Atomic",    "_Generic",   "_Noreturn",   "_Static_assert", "_Thread_local", "_BitInt",
      "_Decimal32", "_Decimal64", "_Decimal128", "typeof",         "typeof_unqual"};
  for (const char* keyword : keywords)
    if (name == keyword)
      return name + "_";
  return name;
}

// Record fields that C reserves, renamed: the mirrors' fields are C identifiers.
static void renameReservedFields(nlohmann::json& view) {
  for (nlohmann::json& record : view["records"]) {
    // Renamed fields stay distinct from the others: restrict_ may be taken already.
    std::set<std::string> taken;
    for (nlohmann::json& field : record["fields"])
      taken.insert(field["name"].get<std::string>());
    for (nlohmann::json& field : record["fields"]) {
      std::string name = field["name"].get<std::string>();
      std::string safe = cFieldName(name);
      while (safe != name && taken.count(safe))
        safe += "_";
      taken.insert(safe);
      field["name"] = safe;
    }
  }
}

nlohmann::json launcherView(const Module& module, const LauncherFacts& facts) {
  nlohmann::json view = toJson(module);
  addPresentationHelpers(module, facts, view);
  view["build"] = buildSection(facts);
  renameReservedFields(view);
  return view;
}

} // namespace tlc
