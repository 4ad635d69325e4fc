// The model without parsing anything: its enum tables (every enumerator named once, names round
// trip, driver names as cuda.h declares them), its derived facts (C names, kernel indices,
// tensor-map slices and groups), and the launcher view built on its JSON.
#include "checks/Entries.h"
#include "frontend/TensorMapSpecs.h"
#include "model/DerivedFacts.h"
#include "model/EnumTables.h"
#include "model/ModelJson.h"
#include "render/LauncherView.h"
#include "toolchain/Toolchain.h"

#include "TestSupport.h"

#include <catch2/catch.hpp>

#include <regex>
#include <set>

using namespace tlc;

namespace {

// Every enumerator of Enum from 0 to `last` has the row at its own index, and its name reads
// back as itself; names are unique.
template <typename Enum> void checkTable(Enum last) {
  llvm::ArrayRef<EnumRow<Enum>> rows = EnumTable<Enum>::rows();
  REQUIRE(rows.size() == static_cast<size_t>(last) + 1);
  std::set<std::string> names;
  for (size_t i = 0; i < rows.size(); ++i) {
    Enum value = static_cast<Enum>(i);
    INFO("enumerator " << i << ": " << rows[i].name);
    CHECK(rows[i].value == value);
    CHECK(&describe(value) == &rows[i]);
    CHECK(fromString<Enum>(toString(value)) == value);
    CHECK(names.insert(rows[i].name).second);
  }
  CHECK_FALSE(fromString<Enum>("no such name"));
}

// The driver enumerators of Enum's table, in order.
template <typename Enum> std::vector<std::string> driverNames() {
  std::vector<std::string> names;
  for (const EnumRow<Enum>& row : EnumTable<Enum>::rows())
    names.push_back(row.driverName);
  return names;
}

// The enumerators of `typedef enum NAME_enum { ... }` in cuda.h's text, in order.
std::vector<std::string> enumeratorsOf(const std::string& header, const std::string& name) {
  std::smatch body;
  if (!std::regex_search(header, body, std::regex("typedef enum " + name + "_enum \\{([^}]*)\\}")))
    return {};
  std::vector<std::string> names;
  std::string text = body[1];
  std::regex enumerator("(CU_[A-Z0-9_]+)\\s*(=[^,]*)?(,|$)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), enumerator);
       it != std::sregex_iterator(); ++it)
    names.push_back((*it)[1]);
  return names;
}

} // namespace

TEST_CASE("every enum of the model has one row per enumerator, in order, and names round-trip",
          "[model]") {
  checkTable(ParamKind::Bytes);
  checkTable(CType::Base::Bytes);
  checkTable(ScalarType::BF16x2);
  checkTable(TemplateArgumentKind::Value);
  checkTable(TensorMapMode::Im2col);
  checkTable(TensorMapDataType::Packed16U6Align16B);
  checkTable(TensorMapSwizzle::B128Atom64B);
  checkTable(TensorMapL2Promotion::B256);
  checkTable(TensorMapOobFill::NanRequestZeroFma);
  checkTable(TensorMapInterleave::B32);
}

TEST_CASE("enum names are what annotations and inspect --json spell", "[model]") {
  // docs/model-schema.md and docs/tma.md list these spellings; they are a contract.
  CHECK(nameList<ParamKind>() == "pointer, scalar, record, tensor_map, empty, bytes");
  CHECK(nameList<ScalarType>() ==
        "bool, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64, f16x2, bf16x2");
  CHECK(nameList<TemplateArgumentKind>() == "type, value");
  CHECK(nameList<TensorMapMode>() == "tiled, im2col");
  CHECK(nameList<TensorMapSwizzle>() ==
        "none, 32B, 64B, 128B, 128B_atom_32B, 128B_atom_32B_flip_8B, 128B_atom_64B");
  CHECK(nameList<TensorMapL2Promotion>() == "none, 64B, 128B, 256B");
  CHECK(nameList<TensorMapOobFill>() == "none, nan");
  CHECK(nameList<TensorMapInterleave>() == "none, 16B, 32B");
  CHECK(std::string(driverName(TensorMapSwizzle::B128)) == "CU_TENSOR_MAP_SWIZZLE_128B");
  CHECK(std::string(driverName(TensorMapL2Promotion::B256)) ==
        "CU_TENSOR_MAP_L2_PROMOTION_L2_256B");
  CHECK(describe(TensorMapDataType::BFloat16).bits == 16);
  CHECK(describe(TensorMapSwizzle::B64).span == 64);
  CHECK(std::string(describe(TensorMapMode::Im2col).macro) == "TLC_TMA_IM2COL");
  // Annotation values are matched in any case, JSON names exactly.
  REQUIRE(findRow<TensorMapSwizzle>("128b", /*ignoreCase=*/true));
  CHECK(findRow<TensorMapSwizzle>("128b", true)->value == TensorMapSwizzle::B128);
  CHECK_FALSE(fromString<TensorMapSwizzle>("128b"));
}

TEST_CASE("the driver names are cuda.h's enumerators, in cuda.h's order", "[model]") {
  auto toolkit = findCudaToolkit("");
  if (!toolkit) {
    WARN("skipped: no CUDA toolkit (" << llvm::toString(toolkit.takeError()) << ")");
    return;
  }
  std::string header = tlc::test::readText(toolkit->includeDir + "/cuda.h");
  // A newer toolkit may add enumerators at the end; tlc's tables are then a prefix.
  auto checkPrefix = [&](const std::string& cudaEnum, const std::vector<std::string>& ours) {
    INFO(cudaEnum);
    std::vector<std::string> theirs = enumeratorsOf(header, cudaEnum);
    REQUIRE(theirs.size() >= ours.size());
    theirs.resize(ours.size());
    CHECK(theirs == ours);
  };
  checkPrefix("CUtensorMapDataType", driverNames<TensorMapDataType>());
  checkPrefix("CUtensorMapInterleave", driverNames<TensorMapInterleave>());
  checkPrefix("CUtensorMapSwizzle", driverNames<TensorMapSwizzle>());
  checkPrefix("CUtensorMapL2promotion", driverNames<TensorMapL2Promotion>());
  checkPrefix("CUtensorMapFloatOOBfill", driverNames<TensorMapOobFill>());
}

namespace {

// A tensor map from an annotation whose values are plain integers.
TensorMapSpec tensorMap(const std::string& text, TensorMapMode mode = TensorMapMode::Tiled) {
  TensorMapSpec spec;
  spec.mode = mode;
  spec.text = text;
  auto integers = [](llvm::StringRef value, int64_t& out, std::string& error) {
    error = "not an integer";
    return !value.getAsInteger(10, out);
  };
  std::vector<std::string> problems = parseTensorMapSpec(spec, integers);
  INFO(text);
  REQUIRE(problems.empty());
  return spec;
}

Param mapParam(const std::string& name, const TensorMapSpec& spec) {
  Param param;
  param.name = name;
  param.kind = ParamKind::TensorMap;
  param.tensorMap = spec;
  return param;
}

Param intParam(const std::string& name) {
  Param param;
  param.name = name;
  param.kind = ParamKind::Scalar;
  param.scalar.type = ScalarType::I32;
  return param;
}

Kernel kernelWith(const std::string& name, std::vector<Param> params) {
  Kernel kernel;
  kernel.name = kernel.displayName = kernel.symbol = kernel.launcher = name;
  for (size_t i = 0; i < params.size(); ++i)
    params[i].index = static_cast<unsigned>(i);
  kernel.params = std::move(params);
  return kernel;
}

std::vector<unsigned> groupsOf(const Kernel& kernel) {
  std::vector<unsigned> groups;
  for (const Param& param : kernel.params)
    if (param.tensorMap)
      groups.push_back(param.tensorMap->group);
  return groups;
}

const char* const kTile = "dtype=bf16 box=64x64 swizzle=128B";

} // namespace

TEST_CASE("c_name keeps a parameter's name unless C or the launcher reserves it", "[model]") {
  CHECK(cParameterName("x") == "x");
  CHECK(cParameterName("Config") == "Config");
  CHECK(cParameterName("restrict_") == "restrict_");
  for (const char* reserved :
       {"restrict", "_Bool", "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic",
        "_Generic", "_Noreturn", "_Static_assert", "_Thread_local", "config", "args", "tensors",
        "launch", "launchWithTensors", "launchEncoded", "gModule", "kEmpty"}) {
    INFO(reserved);
    CHECK(cParameterName(reserved) == std::string(reserved) + "_");
  }
}

TEST_CASE("only the annotation's text and location leave descriptor settings alike", "[model]") {
  TensorMapSpec base = tensorMap(kTile);
  TensorMapSpec renamed = tensorMap("swizzle=128B box=64x64 dtype=bf16");
  renamed.location = {"other.cu", 7, 3};
  CHECK(sameDescriptorSettings(base, renamed));
  std::vector<std::pair<const char*, void (*)(TensorMapSpec&)>> changes = {
      {"mode", [](TensorMapSpec& s) { s.mode = TensorMapMode::Im2col; }},
      {"dtype", [](TensorMapSpec& s) { s.dtype = TensorMapDataType::Float16; }},
      {"rank", [](TensorMapSpec& s) { s.rank = 3; }},
      {"box", [](TensorMapSpec& s) { s.box[1] = 32; }},
      {"element strides", [](TensorMapSpec& s) { s.elemStrides[1] = 2; }},
      {"swizzle", [](TensorMapSpec& s) { s.swizzle = TensorMapSwizzle::B64; }},
      {"l2", [](TensorMapSpec& s) { s.l2 = TensorMapL2Promotion::B128; }},
      {"oob", [](TensorMapSpec& s) { s.oob = TensorMapOobFill::NanRequestZeroFma; }},
      {"interleave", [](TensorMapSpec& s) { s.interleave = TensorMapInterleave::B16; }},
      {"lower", [](TensorMapSpec& s) { s.lower = {-1}; }},
      {"upper", [](TensorMapSpec& s) { s.upper = {1}; }},
      {"channels", [](TensorMapSpec& s) { s.channels = 8; }},
      {"pixels", [](TensorMapSpec& s) { s.pixels = 8; }},
      {"address alignment", [](TensorMapSpec& s) { s.addressAlignment = 32; }},
      {"stride multiple", [](TensorMapSpec& s) { s.strideMultiple = 32; }},
      {"dim0 multiple", [](TensorMapSpec& s) { s.dim0Multiple = 2; }},
  };
  for (const auto& [what, change] : changes) {
    INFO(what);
    TensorMapSpec changed = base;
    change(changed);
    CHECK_FALSE(sameDescriptorSettings(base, changed));
  }
}

TEST_CASE("a kernel's tensor maps share the group of its first map with the same settings",
          "[model]") {
  const char* wide = "dtype=bf16 box=64x64 swizzle=128B l2=256B";
  Module module;
  module.kernels.push_back(
      kernelWith("first", {mapParam("a", tensorMap(kTile)), intParam("n"),
                           mapParam("b", tensorMap("box=64x64 swizzle=128B dtype=bf16")),
                           mapParam("c", tensorMap(wide)), mapParam("d", tensorMap(wide)),
                           mapParam("e", tensorMap(kTile))}));
  // Groups count within a kernel: the same settings in another kernel start a group there.
  module.kernels.push_back(
      kernelWith("second", {mapParam("x", tensorMap(wide)), mapParam("y", tensorMap(kTile))}));
  deriveFacts(module);
  CHECK(groupsOf(module.kernels[0]) == std::vector<unsigned>{0, 0, 2, 2, 0});
  CHECK(groupsOf(module.kernels[1]) == std::vector<unsigned>{0, 1});
}

TEST_CASE("kernel indices and tensor-map slices follow the kernels, also after --entry",
          "[model]") {
  Module module;
  module.kernels.push_back(kernelWith(
      "two_maps", {mapParam("config", tensorMap(kTile)), mapParam("out", tensorMap(kTile))}));
  module.kernels.push_back(kernelWith("no_maps", {intParam("restrict")}));
  module.kernels.push_back(kernelWith("no_params", {}));
  module.kernels.push_back(
      kernelWith("one_map", {intParam("n"), mapParam("in", tensorMap("dtype=f16 rank=4 channels=64 "
                                                                     "pixels=128",
                                                                     TensorMapMode::Im2col))}));
  deriveFacts(module);
  struct Row {
    unsigned index, first, count;
  };
  const Row expected[] = {{0, 0, 2}, {1, 2, 0}, {2, 2, 0}, {3, 2, 1}};
  for (size_t k = 0; k < std::size(expected); ++k) {
    INFO(module.kernels[k].name);
    CHECK(module.kernels[k].index == expected[k].index);
    CHECK(module.kernels[k].firstTensorMap == expected[k].first);
    CHECK(module.kernels[k].tensorMapCount == expected[k].count);
  }
  CHECK(module.kernels[0].params[0].cName == "config_");
  CHECK(module.kernels[0].params[1].cName == "out");
  CHECK(module.kernels[1].params[0].cName == "restrict_");

  REQUIRE_FALSE(llvm::errorToBool(selectEntries(module, {"one_map", "no_maps"})));
  REQUIRE(module.kernels.size() == 2);
  CHECK(module.kernels[0].name == "no_maps");
  CHECK(module.kernels[0].index == 0);
  CHECK(module.kernels[1].name == "one_map");
  CHECK(module.kernels[1].index == 1);
  CHECK(module.kernels[1].firstTensorMap == 0);
  CHECK(module.kernels[1].tensorMapCount == 1);
}

TEST_CASE("inspect --json shows the derived facts", "[model]") {
  Module module;
  module.kernels.push_back(kernelWith("plain", {intParam("args")}));
  module.kernels.push_back(kernelWith(
      "maps", {mapParam("a", tensorMap(kTile)), mapParam("tensors", tensorMap(kTile)),
               mapParam("c", tensorMap("dtype=u8 box=16x4x2 interleave=32B swizzle=32B"))}));
  deriveFacts(module);
  nlohmann::json document = moduleDocument(module, {"1.2.3", "22.1.8", "13.0.88"}, "sm_90a");
  const nlohmann::json& plain = document["kernels"][0];
  CHECK(plain["index"] == 0);
  CHECK(plain["has_params"] == true);
  CHECK(plain["has_tensor_maps"] == false);
  CHECK(plain["first_tensor_map"] == 0);
  CHECK(plain["tensor_map_count"] == 0);
  CHECK(plain["params"][0]["c_name"] == "args_");
  CHECK(plain["params"][0]["is_tensor_map"] == false);
  const nlohmann::json& maps = document["kernels"][1];
  CHECK(maps["index"] == 1);
  CHECK(maps["has_tensor_maps"] == true);
  CHECK(maps["first_tensor_map"] == 0);
  CHECK(maps["tensor_map_count"] == 3);
  CHECK(maps["params"][1]["c_name"] == "tensors_");
  CHECK(maps["params"][1]["is_tensor_map"] == true);
  const nlohmann::json& interleaved = maps["params"][2]["tensor_map"];
  CHECK(maps["params"][1]["tensor_map"]["group"] == 0);
  CHECK(interleaved["group"] == 2);
  CHECK(interleaved["mode"] == "tiled");
  CHECK(interleaved["dtype"] == "u8");
  CHECK(interleaved["dtype_enum"] == "CU_TENSOR_MAP_DATA_TYPE_UINT8");
  CHECK(interleaved["element_bits"] == 8);
  CHECK(interleaved["interleave"] == "32B");
  CHECK(interleaved["interleave_enum"] == "CU_TENSOR_MAP_INTERLEAVE_32B");
  CHECK(interleaved["swizzle_enum"] == "CU_TENSOR_MAP_SWIZZLE_32B");
  CHECK(interleaved["address_alignment"] == 32);
  CHECK(interleaved["stride_multiple"] == 32);
  CHECK(interleaved["dim0_multiple"] == 1);
  CHECK(interleaved["box"] == nlohmann::json::array({16, 4, 2}));
}

TEST_CASE("the launcher view is the model's JSON plus a build section and helpers", "[model]") {
  Module module;
  module.inputs = {"k.cu"};
  module.kernels.push_back(kernelWith("plain", {intParam("n")}));
  module.kernels.push_back(kernelWith("maps", {intParam("n"), mapParam("a", tensorMap(kTile)),
                                               mapParam("config", tensorMap(kTile))}));
  module.kernels.push_back(kernelWith(
      "im2col", {mapParam("in", tensorMap("dtype=f16 rank=4 channels=64 pixels=128 lower=-1x-1",
                                          TensorMapMode::Im2col))}));
  deriveFacts(module);
  LauncherFacts facts;
  facts.name = "m";
  facts.inputs = {"k.cu"};
  facts.targets = {"sm_80", "sm_90a"};
  facts.imageFile = "m.fatbin";
  nlohmann::json view = launcherView(module, facts);
  nlohmann::json model = toJson(module);

  // Every key of the model's JSON is in the view with the same value; the view adds only the
  // build section and the presentation helpers.
  nlohmann::json stripped = view;
  for (const char* helper : {"build", "kernel_count", "has_records", "has_tensor_maps",
                             "has_empty_params", "toolkit_headers", "byte_types", "has_byte_types"})
    CHECK(stripped.erase(helper) == 1);
  for (nlohmann::json& kernel : stripped["kernels"]) {
    for (const char* helper :
         {"tensor_map_c_names", "targets_mask", "has_location", "untyped_params",
          "has_untyped_params", "has_cuda_pointers", "cxx_launcher"})
      CHECK(kernel.erase(helper) == 1);
    for (nlohmann::json& param : kernel["params"]) {
      for (const char* helper : {"cuda_pointer", "cxx_record", "cxx_record_pointer"})
        CHECK(param.erase(helper) == 1);
      CHECK(param["c_type"].erase("cxx_global") == 1);
      if (param["is_tensor_map"] == true)
        CHECK(param["tensor_map"].erase("table_row") == 1);
    }
  }
  CHECK(stripped == model);

  CHECK(view["build"]["module"] == "m");
  CHECK(view["build"]["MODULE"] == "M");
  CHECK(view["build"]["target_count"] == 2);
  // A kernel not checked against an image yet: every target; else the targets that hold it.
  CHECK(view["kernels"][0]["targets_mask"] == "3u");
  module.kernels[0].targets = {"sm_90a"};
  CHECK(launcherView(module, facts)["kernels"][0]["targets_mask"] == "2u");
  CHECK(view["build"]["targets"][1]["variant_literal"] == "'a'");
  CHECK(view["build"]["image"]["symbol"] == "tlc_image_m");
  CHECK(view["kernel_count"] == 3);
  CHECK(view["has_records"] == false);
  CHECK(view["has_tensor_maps"] == true);
  CHECK(view["kernels"][0]["tensor_map_c_names"].empty());
  CHECK(view["kernels"][1]["tensor_map_c_names"] == nlohmann::json::array({"a", "config_"}));
  const nlohmann::json& tiled = view["kernels"][1]["params"][1]["tensor_map"]["table_row"];
  CHECK(tiled["mode"] == "Tiled");
  CHECK(tiled["box"] == nlohmann::json::array({64, 64, 0, 0, 0}));
  CHECK(tiled["element_strides"] == nlohmann::json::array({1, 1, 0, 0, 0}));
  CHECK(tiled["lower"] == nlohmann::json::array({0, 0, 0}));
  CHECK(tiled["channels"] == 0);
  const nlohmann::json& im2col = view["kernels"][2]["params"][0]["tensor_map"]["table_row"];
  CHECK(im2col["mode"] == "Im2col");
  CHECK(im2col["box"] == nlohmann::json::array({0, 0, 0, 0, 0}));
  CHECK(im2col["lower"] == nlohmann::json::array({-1, -1, 0}));
  CHECK(im2col["channels"] == 64);
  CHECK(im2col["pixels"] == 128);
}

TEST_CASE("the C++ launchers' names: a C++ keyword C does not reserve gets a '_'", "[model]") {
  Module module;
  module.inputs = {"k.cu"};
  module.kernels.push_back(kernelWith("new", {intParam("n")}));
  module.kernels.push_back(kernelWith("new_", {intParam("n")})); // taken: `new` becomes new__
  module.kernels.push_back(kernelWith("saxpy", {intParam("n")}));
  deriveFacts(module);
  LauncherFacts facts;
  facts.name = "class";
  nlohmann::json view = launcherView(module, facts);
  CHECK(view["build"]["cxx_module"] == "class_");
  CHECK(view["kernels"][0]["cxx_launcher"] == "new__");
  CHECK(view["kernels"][1]["cxx_launcher"] == "new_");
  CHECK(view["kernels"][2]["cxx_launcher"] == "saxpy");
  CHECK(cxxIdentifier("and") == "and_");
  CHECK(cxxIdentifier("restrict") == "restrict"); // C's, which C already refuses
  // A keyword of both: a module may be named so (its C API is int_*), its namespace may not.
  CHECK(cxxIdentifier("int") == "int_");
  CHECK(cxxIdentifier("volatile") == "volatile_");
  facts.name = "int";
  CHECK(launcherView(module, facts)["build"]["cxx_module"] == "int_");
}
