// Extraction over many kernel shapes (test/fixtures/shapes): names, symbols, launcher names,
// parameters, attributes. One parse per TEST_CASE; each shape is a row or a SECTION.
#include "TestSupport.h"

#include "model/EnumTables.h"
#include "model/ModelJson.h"

#include <catch2/catch.hpp>

#include <set>

using namespace tlc;
using namespace tlc::test;

namespace {

struct KernelRow {
  const char* displayName;
  const char* launcher;
  const char* symbol;
  bool externC;
  bool weak;
};

// The symbols are what nvcc emits (GroundTruthTests compares them with a real cubin).
const KernelRow kShapes[] = {
    {"saxpy", "saxpy", "saxpy", true, false},
    {"nn::act::gelu", "nn_act_gelu", "_ZN2nn3act4geluEPfi", false, false},
    {"scale", "scale_float_ptr_float", "_Z5scalePff", false, false},
    {"scale", "scale_double_ptr_double", "_Z5scalePdd", false, false},
    {"copy_vec<float, 4>", "copy_vec_float_4", "_Z8copy_vecIfLi4EEvPKT_PS0_i", false, true},
    {"copy_vec<double, 2>", "copy_vec_double_2", "_Z8copy_vecIdLi2EEvPKT_PS0_i", false, true},
    {"bounded_one", "bounded_one", "_Z11bounded_onePi", false, false},
    {"bounded_two", "bounded_two", "_Z11bounded_twoPi", false, false},
    {"widths", "widths", "_Z6widthsbahstijxyfdamm", false, false},
    {"halves", "halves", "_Z6halvesPK6__halfP13__nv_bfloat16S_S2_", false, false},
    {"modes", "modes", "_Z5modes4Mode6Legacy", false, false},
    {"extent", "extent", "_Z6extentN3geo6ExtentEPKS0_", false, false},
    {"unnamed", "unnamed", "_Z7unnamediPPf", false, false},
    {"original_name", "renamed", "_Z13original_namePi", false, false},
    {"tiled<64>", "tile_64", "_Z5tiledILi64EEvPf", false, true},
    {"clustered", "clustered", "_Z9clusteredPf", false, false},
    {"tensor", "tensor", "_Z6tensor14CUtensorMap_sti", false, false},
    {"flagged<true, Mode::Exact>", "flagged_true_Mode_Exact", "_Z7flaggedILb1EL4Mode2EEvPi", false,
     true},
    {"fill<float>", "fill_float", "_Z4fillIfEvPT_S0_i", false, true},
    {"touch", "touch", "_Z5touchPi", false, false},
};

const Kernel& bySymbol(const Module& module, const std::string& symbol) {
  for (const Kernel& kernel : module.kernels)
    if (kernel.symbol == symbol)
      return kernel;
  FAIL("no kernel with symbol " << symbol);
  return module.kernels.front();
}

std::vector<std::string> scalarTypes(const Kernel& kernel) {
  std::vector<std::string> types;
  for (const Param& param : kernel.params)
    types.push_back(toString(param.scalar.type));
  return types;
}

} // namespace

TEST_CASE("every kernel shape is extracted with its exact symbol and launcher name",
          "[extraction]") {
  Analysis analysis = analyzeOk({fixture("shapes/shapes.cu"), fixture("shapes/host_main.cu")});
  const Module& module = analysis.module;
  REQUIRE(module.kernels.size() == std::size(kShapes));
  for (size_t i = 0; i < std::size(kShapes); ++i) {
    const KernelRow& row = kShapes[i];
    INFO("row " << i << ": " << row.displayName);
    const Kernel& kernel = module.kernels[i]; // input order, then source order
    CHECK(kernel.displayName == row.displayName);
    CHECK(kernel.launcher == row.launcher);
    CHECK(kernel.symbol == row.symbol);
    CHECK(kernel.externC == row.externC);
    CHECK(kernel.weak == row.weak);
  }
}

TEST_CASE("parameters are classified with device sizes and C types", "[extraction]") {
  Analysis analysis = analyzeOk({fixture("shapes/shapes.cu"), fixture("shapes/host_main.cu")});
  const Module& module = analysis.module;

  SECTION("extern C kernel: scalar and pointer parameters with names and locations") {
    const Kernel& saxpy = bySymbol(module, "saxpy");
    REQUIRE(saxpy.params.size() == 4);
    CHECK(saxpy.params[0].name == "a");
    CHECK(saxpy.params[0].kind == ParamKind::Scalar);
    CHECK(saxpy.params[0].scalar.type == ScalarType::F32);
    CHECK(saxpy.params[1].kind == ParamKind::Pointer);
    CHECK(saxpy.params[1].pointer.pointee == "float");
    CHECK(saxpy.params[1].pointer.pointeeConst);
    CHECK_FALSE(saxpy.params[1].pointer.isRestrict);
    CHECK(saxpy.params[1].size == 8);
    CHECK(saxpy.params[2].pointer.pointeeConst == false);
    CHECK(saxpy.location.line == 11);
    CHECK(saxpy.params[3].location.line == 11);
  }

  SECTION("const T* __restrict__ in a template instance") {
    const Kernel& copy = bySymbol(module, "_Z8copy_vecIfLi4EEvPKT_PS0_i");
    REQUIRE(copy.params.size() == 3);
    CHECK(copy.params[0].pointer.pointee == "float");
    CHECK(copy.params[0].pointer.pointeeConst);
    CHECK(copy.params[0].pointer.isRestrict);
    CHECK(copy.params[0].ctype.base == "float");
    CHECK(copy.params[0].ctype.baseConst);
    REQUIRE(copy.params[0].ctype.pointers.size() == 1);
    CHECK(copy.params[0].ctype.pointers[0].isRestrict);
    REQUIRE(copy.templateArgs.size() == 2);
    CHECK(copy.templateArgs[0].kind == TemplateArgumentKind::Type);
    CHECK(copy.templateArgs[0].value == "float");
    CHECK(copy.templateArgs[1].kind == TemplateArgumentKind::Value);
    CHECK(copy.templateArgs[1].value == "4");
    REQUIRE(copy.instantiatedAt);
    CHECK(copy.instantiatedAt->line == 28);
    CHECK(copy.location.line == 27);
  }

  SECTION("every scalar width, standard typedefs kept as spelled") {
    const Kernel& widths = bySymbol(module, "_Z6widthsbahstijxyfdamm");
    CHECK(scalarTypes(widths) == std::vector<std::string>{"bool", "i8", "u8", "i16", "u16", "i32",
                                                          "u32", "i64", "u64", "f32", "f64", "i8",
                                                          "u64", "u64"});
    std::vector<uint64_t> sizes;
    for (const Param& p : widths.params)
      sizes.push_back(p.size);
    CHECK(sizes == std::vector<uint64_t>{1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 1, 8, 8});
    CHECK(widths.params[11].ctype.base == "int8_t");
    CHECK(widths.params[12].ctype.base == "uint64_t");
    CHECK(widths.params[13].ctype.base == "size_t");
    CHECK(widths.params[6].ctype.base == "unsigned int");
    CHECK(widths.params[0].ctype.base == "bool");
  }

  SECTION("half and bf16 by pointer and by value") {
    const Kernel& halves = bySymbol(module, "_Z6halvesPK6__halfP13__nv_bfloat16S_S2_");
    REQUIRE(halves.params.size() == 4);
    CHECK(halves.params[0].kind == ParamKind::Pointer);
    CHECK(halves.params[0].ctype.baseKind == CType::Base::Half);
    CHECK(halves.params[0].ctype.baseConst);
    CHECK(halves.params[1].ctype.baseKind == CType::Base::BFloat16);
    CHECK(halves.params[2].kind == ParamKind::Scalar);
    CHECK(halves.params[2].scalar.type == ScalarType::F16);
    CHECK(halves.params[2].size == 2);
    CHECK(halves.params[3].scalar.type == ScalarType::BF16);
    CHECK(halves.params[3].ctype.base == "tlc_bfloat16");
  }

  SECTION("enums are scalars of their underlying type") {
    const Kernel& modes = bySymbol(module, "_Z5modes4Mode6Legacy");
    CHECK(modes.params[0].scalar.type == ScalarType::U8);
    CHECK(modes.params[0].scalar.enumName == "Mode");
    CHECK(modes.params[0].ctype.base == "unsigned char");
    CHECK(modes.params[1].scalar.enumName == "Legacy");
    CHECK(modes.params[1].size == 4);
  }

  SECTION("a struct by value from a header, mirrored field by field") {
    const Kernel& extent = bySymbol(module, "_Z6extentN3geo6ExtentEPKS0_");
    const Param& byValue = extent.params[0];
    CHECK(byValue.kind == ParamKind::Record);
    CHECK(byValue.record.name == "geo::Extent");
    CHECK(byValue.record.cName == "geo_Extent");
    CHECK_THAT(byValue.record.header, Catch::EndsWith("shapes/params.h"));
    CHECK(byValue.size == 32);
    CHECK(byValue.align == 8);
    CHECK(extent.params[1].kind == ParamKind::Pointer);
    CHECK(extent.params[1].ctype.baseKind == CType::Base::Record);

    REQUIRE(module.records.size() == 1);
    const Record& record = module.records[0];
    CHECK_FALSE(record.opaque);
    REQUIRE(record.fields.size() == 4);
    CHECK(record.fields[0].name == "width");
    CHECK(record.fields[2].ctype.base == "float");
    CHECK(record.fields[2].offset == 8);
    CHECK(record.fields[3].offset == 16);
    CHECK(record.fields[3].arrayDims == std::vector<uint64_t>{2});
  }

  SECTION("unnamed parameters become argN; pointers to pointers keep both levels") {
    const Kernel& unnamed = bySymbol(module, "_Z7unnamediPPf");
    CHECK(unnamed.params[0].name == "arg0");
    CHECK(unnamed.params[1].ctype.pointers.size() == 2);
  }

  SECTION("launch bounds with one and two arguments, cluster dims") {
    const Kernel& one = bySymbol(module, "_Z11bounded_onePi");
    REQUIRE(one.launchBounds);
    CHECK(one.launchBounds->maxThreads == 128);
    CHECK_FALSE(one.launchBounds->minBlocks);
    const Kernel& two = bySymbol(module, "_Z11bounded_twoPi");
    REQUIRE(two.launchBounds);
    CHECK(two.launchBounds->maxThreads == 256);
    CHECK(two.launchBounds->minBlocks == 2u);
    const Kernel& clustered = bySymbol(module, "_Z9clusteredPf");
    REQUIRE(clustered.clusterDims);
    CHECK(*clustered.clusterDims == std::array<uint64_t, 3>{2, 1, 1});
    CHECK_FALSE(one.clusterDims);
  }

  SECTION("tensor maps and TLC_NAME") {
    const Kernel& tensor = bySymbol(module, "_Z6tensor14CUtensorMap_sti");
    CHECK(tensor.params[0].kind == ParamKind::TensorMap);
    CHECK(tensor.params[0].size == 128);
    CHECK(tensor.params[0].align == 128); // CUDA 13 aligns CUtensorMap to 128 bytes
    const Kernel& renamed = bySymbol(module, "_Z13original_namePi");
    CHECK(renamed.explicitName == "renamed");
  }

  SECTION("implicit instantiation from host code in a file with main()") {
    const Kernel& fill = bySymbol(module, "_Z4fillIfEvPT_S0_i");
    REQUIRE(fill.instantiatedAt);
    CHECK_THAT(fill.instantiatedAt->file, Catch::EndsWith("host_main.cu"));
    CHECK(fill.params[1].scalar.type == ScalarType::F32);
  }
}

TEST_CASE("kernels from a header included by two files are one definition", "[extraction]") {
  Analysis analysis = analyzeOk({fixture("module/a.cu"), fixture("module/b.cu")});
  const Module& module = analysis.module;
  REQUIRE(module.kernels.size() == 5);
  const Kernel& inlineKernel = kernelNamed(module, "shared_inline");
  CHECK(inlineKernel.weak);
  CHECK(inlineKernel.translationUnits.size() == 2);
  const Kernel& sharedInt = kernelNamed(module, "shared_template<int>");
  CHECK(sharedInt.translationUnits.size() == 2);
  CHECK_THAT(sharedInt.location.file, Catch::EndsWith("common.cuh"));
  CHECK(kernelNamed(module, "shared_template<float>").translationUnits.size() == 1);
  CHECK(analysis.filesRead.size() > 3);
}

// The keys of a JSON object, sorted.
static std::set<std::string> keysOf(const nlohmann::json& object) {
  std::set<std::string> keys;
  for (const auto& item : object.items())
    keys.insert(item.key());
  return keys;
}

TEST_CASE("the JSON model carries versions, schema and every kernel field", "[extraction]") {
  Analysis analysis = analyzeOk({fixture("module/a.cu"), fixture("module/b.cu")});
  nlohmann::json document =
      moduleDocument(analysis.module, {"1.2.3", "22.1.8", "13.0.88"}, "sm_90a");
  // docs/model-schema.md, version 1: a field removed or renamed must bump the version there.
  CHECK(document["schema"] == "tlc.module");
  CHECK(document["schema_version"] == 1);
  CHECK(keysOf(document) == std::set<std::string>{"schema", "schema_version", "tlc_version",
                                                  "clang_version", "cuda_version", "arch", "inputs",
                                                  "kernels", "records", "other_entries",
                                                  "library_kernel_templates"});
  for (const nlohmann::json& each : document["kernels"])
    CHECK(keysOf(each) == std::set<std::string>{"name",
                                                "display_name",
                                                "symbol",
                                                "launcher",
                                                "extern_c",
                                                "from_image",
                                                "linkage",
                                                "location",
                                                "instantiated_at",
                                                "template_args",
                                                "launch_bounds",
                                                "cluster_dims",
                                                "explicit_name",
                                                "translation_units",
                                                "params",
                                                "index",
                                                "has_params",
                                                "first_tensor_map",
                                                "tensor_map_count",
                                                "has_tensor_maps",
                                                "targets"});
  CHECK(keysOf(document["kernels"][1]["params"][0]) ==
        std::set<std::string>{"index", "name", "type", "canonical_type", "size", "align", "kind",
                              "pointer", "c_type", "location", "c_name", "is_tensor_map",
                              "is_empty"});
  CHECK(document["tlc_version"] == "1.2.3");
  CHECK(document["cuda_version"] == "13.0.88");
  CHECK(document["arch"] == "sm_90a");
  REQUIRE(document["kernels"].size() == 5);
  const nlohmann::json& kernel = document["kernels"][1];
  CHECK(kernel["display_name"] == "shared_template<int>");
  CHECK(kernel["linkage"] == "weak");
  CHECK(kernel["template_args"][0]["value"] == "int");
  CHECK(kernel["params"][0]["kind"] == "pointer");
  CHECK(kernel["params"][0]["c_type"]["pointers"].size() == 1);
  CHECK(kernel["translation_units"].size() == 2);
}
