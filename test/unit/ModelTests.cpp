// The model without parsing anything: its enum tables (every enumerator named once, names round
// trip, driver names that cuda.h declares).
#include "build/Toolchain.h"
#include "model/EnumTables.h"

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
  checkTable(ParamKind::TensorMap);
  checkTable(CType::Base::TensorMap);
  checkTable(ScalarType::F64);
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
  CHECK(nameList<ParamKind>() == "pointer, scalar, record, tensor_map");
  CHECK(nameList<ScalarType>() ==
        "bool, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64");
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
