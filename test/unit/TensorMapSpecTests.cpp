// The TLC_TMA / TLC_TMA_IM2COL grammar and its tlc-time checks: a table of valid annotations
// with what they parse to, and a table of invalid ones with the exact message.
#include "frontend/TensorMapSpecs.h"
#include "model/EnumTables.h"

#include <catch2/catch.hpp>

#include <map>

using namespace tlc;

namespace {

// Integers, and the names TILE=64 and ROWS=8, stand in for Clang's evaluator here.
bool evaluate(llvm::StringRef text, int64_t& value, std::string& error) {
  static const std::map<std::string, int64_t> names = {{"TILE", 64}, {"ROWS", 8}};
  llvm::StringRef inner = text;
  if (inner.consume_front("(") && inner.consume_back(")"))
    text = inner;
  if (auto it = names.find(text.str()); it != names.end()) {
    value = it->second;
    return true;
  }
  if (!text.getAsInteger(10, value))
    return true;
  error = "'" + text.str() + "' is not a macro, integer constant or template parameter known here";
  return false;
}

TensorMapSpec parse(const std::string& mode, const std::string& text,
                    std::vector<std::string>& problems) {
  TensorMapSpec spec;
  std::optional<TensorMapMode> parsedMode = fromString<TensorMapMode>(mode);
  REQUIRE(parsedMode);
  spec.mode = *parsedMode;
  spec.text = text;
  problems = parseTensorMapSpec(spec, evaluate);
  return spec;
}

} // namespace

TEST_CASE("valid tiled annotations parse to the driver's values", "[tma]") {
  std::vector<std::string> problems;
  TensorMapSpec a = parse("tiled", "dtype=bf16 box=64x64 swizzle=128B", problems);
  REQUIRE(problems.empty());
  CHECK(a.dtype == TensorMapDataType::BFloat16);
  CHECK(a.rank == 2);
  CHECK(a.box == std::vector<int64_t>{64, 64});
  CHECK(a.elemStrides == std::vector<int64_t>{1, 1});
  CHECK(a.swizzle == TensorMapSwizzle::B128);
  CHECK(a.l2 == TensorMapL2Promotion::None);
  CHECK(a.oob == TensorMapOobFill::None);
  CHECK(a.interleave == TensorMapInterleave::None);

  TensorMapSpec b = parse(
      "tiled", "dtype=f32 box=32x8x4 elemstrides=1x1x2 l2=256B oob=nan interleave=none", problems);
  REQUIRE(problems.empty());
  CHECK(b.rank == 3);
  CHECK(b.elemStrides == std::vector<int64_t>{1, 1, 2});
  CHECK(b.l2 == TensorMapL2Promotion::B256);
  CHECK(b.oob == TensorMapOobFill::NanRequestZeroFma);

  TensorMapSpec c =
      parse("tiled", "dtype=f16 box=(TILE)x(ROWS) rank=2 swizzle=128B_atom_32B", problems);
  REQUIRE(problems.empty());
  CHECK(c.box == std::vector<int64_t>{64, 8});
  CHECK(c.swizzle == TensorMapSwizzle::B128Atom32B);

  TensorMapSpec d = parse("tiled", "dtype=u8 box=16x4x2 interleave=32B swizzle=32B", problems);
  CHECK(problems.empty());
  CHECK(d.interleave == TensorMapInterleave::B32);
}

TEST_CASE("valid im2col annotations parse corners, channels and pixels", "[tma]") {
  std::vector<std::string> problems;
  TensorMapSpec spec =
      parse("im2col", "dtype=f16 rank=4 channels=64 pixels=128 lower=-1x-1 upper=1x1", problems);
  REQUIRE(problems.empty());
  CHECK(spec.rank == 4);
  CHECK(spec.lower == std::vector<int64_t>{-1, -1});
  CHECK(spec.upper == std::vector<int64_t>{1, 1});
  CHECK(spec.channels == 64);
  CHECK(spec.pixels == 128);
  CHECK(spec.elemStrides == std::vector<int64_t>{1, 1, 1, 1});

  TensorMapSpec defaults = parse("im2col", "dtype=bf16 rank=3 channels=8 pixels=32", problems);
  REQUIRE(problems.empty());
  CHECK(defaults.lower == std::vector<int64_t>{0});
}

TEST_CASE("every CUDA 13 tensor-map data type has a short name", "[tma]") {
  // The driver's enum for each short name, in cuda.h's order.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"u8", "UINT8"},
      {"u16", "UINT16"},
      {"u32", "UINT32"},
      {"s32", "INT32"},
      {"u64", "UINT64"},
      {"s64", "INT64"},
      {"f16", "FLOAT16"},
      {"f32", "FLOAT32"},
      {"f64", "FLOAT64"},
      {"bf16", "BFLOAT16"},
      {"f32ftz", "FLOAT32_FTZ"},
      {"tf32", "TFLOAT32"},
      {"tf32ftz", "TFLOAT32_FTZ"},
      {"16u4_align8b", "16U4_ALIGN8B"},
      {"16u4_align16b", "16U4_ALIGN16B"},
      {"16u6_align16b", "16U6_ALIGN16B"}};
  REQUIRE(EnumTable<TensorMapDataType>::rows().size() == expected.size());
  for (const auto& [name, enumName] : expected) {
    INFO(name);
    // The packed types need a 128-element inner box; a box of 128 suits every type.
    std::vector<std::string> problems;
    TensorMapSpec spec = parse("tiled", "dtype=" + name + " box=128", problems);
    CHECK(problems.empty());
    CHECK(toString(spec.dtype) == name);
    CHECK(driverName(spec.dtype) == "CU_TENSOR_MAP_DATA_TYPE_" + enumName);
  }
}

TEST_CASE("the rules a tensor must meet at run time follow from dtype and interleave", "[tma]") {
  struct Row {
    const char* annotation;
    unsigned addressAlignment, strideMultiple, dim0Multiple;
  };
  const Row rows[] = {
      {"dtype=bf16 box=64x64", 16, 16, 1},
      {"dtype=u8 box=16x4x2 interleave=32B swizzle=32B", 32, 32, 1},
      {"dtype=16u4_align8b box=64x4", 16, 16, 2},
      {"dtype=16u4_align16b box=128x4", 32, 32, 128},
  };
  for (const Row& row : rows) {
    INFO(row.annotation);
    std::vector<std::string> problems;
    TensorMapSpec spec = parse("tiled", row.annotation, problems);
    REQUIRE(problems.empty());
    CHECK(spec.addressAlignment == row.addressAlignment);
    CHECK(spec.strideMultiple == row.strideMultiple);
    CHECK(spec.dim0Multiple == row.dim0Multiple);
  }
}

TEST_CASE("invalid annotations give exact messages", "[tma]") {
  struct Row {
    const char* mode;
    const char* text;
    const char* message;
  };
  const Row rows[] = {
      {"tiled", "dtype=bf16 box=64x64 sizzle=128B",
       "unknown key 'sizzle' (keys: box, dtype, elemstrides, interleave, l2, oob, rank, swizzle)"},
      {"tiled", "dtype=bf17 box=64",
       "unknown dtype 'bf17' (one of: u8, u16, u32, s32, u64, s64, "
       "f16, f32, f64, bf16, f32ftz, tf32, tf32ftz, 16u4_align8b, "
       "16u4_align16b, 16u6_align16b)"},
      {"tiled", "dtype=f16 box=64 swizzle=256B",
       "unknown swizzle '256B' (one of: none, 32B, 64B, 128B, 128B_atom_32B, "
       "128B_atom_32B_flip_8B, 128B_atom_64B)"},
      {"tiled", "dtype=f16 box=64 l2=512B", "unknown l2 '512B' (one of: none, 64B, 128B, 256B)"},
      {"tiled", "dtype=f16 box=64 oob=zero", "unknown oob 'zero' (one of: none, nan)"},
      {"tiled", "dtype=f16 box=64 interleave=8B",
       "unknown interleave '8B' (one of: none, 16B, 32B)"},
      {"tiled", "box=64",
       "'dtype' is required (one of: u8, u16, u32, s32, u64, s64, f16, f32, "
       "f64, bf16, f32ftz, tf32, tf32ftz, 16u4_align8b, 16u4_align16b, "
       "16u6_align16b)"},
      {"tiled", "dtype=f16", "'box' is required: the box dims, innermost first, e.g. box=64x64"},
      {"tiled", "dtype=f16 box=64 dtype=f32", "'dtype' is given twice"},
      {"tiled", "dtype=f16 box", "'box' is not key=value"},
      {"tiled", "dtype=f32 box=8x1x1x1x1x1", "rank 6 is outside 1..5"},
      {"tiled", "dtype=u8 box=16x4 interleave=16B",
       "rank 2 is outside 3..5 (interleaved layouts need rank 3 or more)"},
      {"tiled", "dtype=f32 box=300x4", "box dim 300 is outside 1..256"},
      {"tiled", "dtype=f32 box=8x0", "box dim 0 is outside 1..256"},
      {"tiled", "dtype=f32 box=8x8 elemstrides=1x9", "element stride 9 is outside 1..8"},
      {"tiled", "dtype=f32 box=8x8 elemstrides=1x1x1",
       "elemstrides has 3 entries but the rank is 2"},
      {"tiled", "dtype=f32 box=8x8 rank=3", "box has 2 dims but the rank is 3"},
      {"tiled", "dtype=bf16 box=31x8",
       "the inner box dim is 62 bytes (31 x bf16), not a multiple of 16"},
      {"tiled", "dtype=f32 box=64x8 swizzle=128B",
       "the inner box dim is 256 bytes (64 x f32), over the 128B swizzle span"},
      {"tiled", "dtype=f16 box=32x8 swizzle=32B",
       "the inner box dim is 64 bytes (32 x f16), over the 32B swizzle span"},
      {"tiled", "dtype=u8 box=16x4x2 interleave=32B", "interleave=32B needs swizzle=32B"},
      {"tiled", "dtype=s32 box=8 oob=nan", "oob=nan needs a floating-point dtype, not s32"},
      {"tiled", "dtype=16u4_align16b box=64",
       "dtype=16u4_align16b needs an inner box dim of 128, "
       "not 64"},
      {"tiled", "dtype=f32 box=TILExTILE",
       "cannot evaluate box 'TILExTILE': 'TILExTILE' is not a macro, integer constant or template "
       "parameter known here; write expressions in parentheses, e.g. (BLOCK_M)x(BLOCK_K)"},
      {"im2col", "dtype=f16 rank=4 channels=64 pixels=128 box=8",
       "unknown key 'box' (keys: channels, dtype, elemstrides, interleave, l2, lower, oob, "
       "pixels, rank, swizzle, upper)"},
      {"im2col", "dtype=f16 channels=64 pixels=128", "'rank' is required for TLC_TMA_IM2COL"},
      {"im2col", "dtype=f16 rank=2 channels=8 pixels=8", "rank 2 is outside 3..5"},
      {"im2col", "dtype=f16 rank=4 channels=64 pixels=128 lower=-1",
       "lower has 1 entries but rank 4 has 2 spatial dims"},
      {"im2col", "dtype=f16 rank=4 channels=64 pixels=128 upper=1x1x1",
       "upper has 3 entries but rank 4 has 2 spatial dims"},
      {"im2col", "dtype=f16 rank=4 channels=64 pixels=128 lower=-200x0",
       "lower corner offset -200 is outside -128..127 for rank 4"},
      {"im2col", "dtype=f16 rank=5 channels=64 pixels=128 upper=16x0x0",
       "upper corner offset 16 is outside -16..15 for rank 5"},
      {"im2col", "dtype=f16 rank=4 channels=300 pixels=128", "channels 300 is outside 1..256"},
      {"im2col", "dtype=f16 rank=4 channels=64 pixels=2000", "pixels 2000 is outside 1..1024"},
      {"im2col", "dtype=f16 rank=4 channels=4 pixels=32",
       "the inner row (channels) is 8 bytes (4 x f16), not a multiple of 16"},
      {"im2col", "dtype=f32 rank=4 channels=64 pixels=32 swizzle=128B",
       "the inner row (channels) is 256 bytes (64 x f32), over the 128B swizzle span"},
  };
  for (const Row& row : rows) {
    INFO(row.mode << ": " << row.text);
    std::vector<std::string> problems;
    parse(row.mode, row.text, problems);
    REQUIRE(!problems.empty());
    CHECK(problems.front() == row.message);
  }
}
