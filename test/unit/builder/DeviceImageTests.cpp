// Reading each entry's parameter layout from cubins (.nv.info records) and PTX (.param lists)
// that nvcc built from kernels of known layouts (test/fixtures/image/layouts.cu).
#include "TestSupport.h"

#include "builder/DeviceImage.h"
#include "support/Process.h"
#include "toolchain/Toolchain.h"

#include <catch2/catch.hpp>

#include <map>

using namespace tlc;
using namespace tlc::test;

namespace {

// nvcc -cubin (or -ptx) of the layouts fixture for `arch`; returns the file.
std::string compileLayouts(const std::string& kind, const std::string& arch) {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  std::string out = scratchDir("layouts-" + kind + "-" + arch) + "/layouts." + kind;
  auto compiled = runCommand(
      {toolkit->nvcc, "-" + kind, "-arch=" + arch, fixture("image/layouts.cu"), "-o", out});
  REQUIRE_EXPECTED(compiled);
  INFO(compiled->output);
  REQUIRE(compiled->exitCode == 0);
  return out;
}

std::map<std::string, ImageEntry> bySymbol(const CubinInfo& info) {
  std::map<std::string, ImageEntry> entries;
  for (const ImageEntry& entry : info.entries)
    entries[entry.symbol] = entry;
  return entries;
}

std::vector<uint64_t> offsets(const ImageEntry& entry) {
  std::vector<uint64_t> values;
  for (const ImageParam& param : entry.params)
    values.push_back(param.offset);
  return values;
}

std::vector<uint64_t> sizes(const ImageEntry& entry) {
  std::vector<uint64_t> values;
  for (const ImageParam& param : entry.params)
    values.push_back(param.size);
  return values;
}

using Values = std::vector<uint64_t>;

CubinInfo readPtxOk(llvm::StringRef text) {
  auto info = readPtx(text);
  REQUIRE_EXPECTED(info);
  return std::move(*info);
}

// Whether reading `section` fails; the error is read, not dropped.
bool unreadable(llvm::StringRef section) {
  auto read = readKernelParams(section);
  if (read)
    return false;
  return !llvm::toString(read.takeError()).empty();
}

} // namespace

TEST_CASE("a cubin's parameter info gives each parameter's offset and size", "[image]") {
  auto cubin = readCubinFile(compileLayouts("cubin", "sm_90a"));
  REQUIRE_EXPECTED(cubin);
  std::map<std::string, ImageEntry> entries = bySymbol(*cubin);
  for (const auto& [symbol, entry] : entries) {
    INFO(symbol);
    CHECK(entry.paramsKnown);
    CHECK(entry.paramBase == (entry.params.empty() ? 0 : 0x210)); // sm_90's constant bank
  }
  CHECK(offsets(entries["mixed"]) == Values{0, 4, 8, 16, 24, 48, 64});
  CHECK(sizes(entries["mixed"]) == Values{4, 1, 8, 8, 12, 16, 2});
  // More than 4 KiB of parameters: the records whose last word is the size itself.
  CHECK(offsets(entries["large"]) == Values{0, 1, 5004});
  CHECK(sizes(entries["large"]) == Values{1, 5000, 4});
  // 0x210 + 48 and 0x210 + 112 are multiples of 64: ptxas aligns in the constant bank.
  CHECK(offsets(entries["aligned"]) == Values{0, 48, 112});
  CHECK(offsets(entries["tensor_map"]) == Values{112, 240});
  CHECK(sizes(entries["tensor_map"]) == Values{128, 4});
  CHECK(entries["none"].params.empty());
}

TEST_CASE("the parameter base differs by arch, and offsets follow it", "[image]") {
  auto cubin = readCubinFile(compileLayouts("cubin", "sm_80"));
  REQUIRE_EXPECTED(cubin);
  std::map<std::string, ImageEntry> entries = bySymbol(*cubin);
  CHECK(entries["aligned"].paramBase == 0x160);
  CHECK(offsets(entries["aligned"]) == Values{0, 32, 96}); // 0x160 + 32 = 6 * 64
  CHECK(offsets(entries["mixed"]) == Values{0, 4, 8, 16, 24, 48, 64});
}

TEST_CASE("PTX entries give their parameter lists", "[image]") {
  CubinInfo ptx = readPtxOk(readText(compileLayouts("ptx", "sm_90a")));
  std::map<std::string, ImageEntry> entries = bySymbol(ptx);
  REQUIRE(entries.size() == 5);
  for (const auto& [symbol, entry] : entries) {
    INFO(symbol);
    CHECK(entry.paramsKnown);
    CHECK(entry.paramBase == 0);
  }
  CHECK(offsets(entries["mixed"]) == Values{0, 4, 8, 16, 24, 48, 64});
  CHECK(sizes(entries["mixed"]) == Values{4, 1, 8, 8, 12, 16, 2});
  CHECK(entries["mixed"].params[5].align == 16); // `.param .align 16 .b8 mixed_param_5[16]`
  CHECK(offsets(entries["large"]) == Values{0, 1, 5004});
  CHECK(offsets(entries["aligned"]) == Values{0, 64, 128});
  CHECK(sizes(entries["tensor_map"]) == Values{128, 4});
  CHECK(entries["none"].params.empty());
  // Pointer attributes: the `.align` after `.ptr` is the pointee's.
  CubinInfo pointer =
      readPtxOk(".visible .entry k(\n\t.param .u64 .ptr .global .align 4 k_param_0,\n"
                "\t.param .u32 k_param_1\n)\n{\n}\n");
  REQUIRE(pointer.entries.size() == 1);
  CHECK(offsets(pointer.entries[0]) == Values{0, 8});
  CHECK(sizes(pointer.entries[0]) == Values{8, 4});
  // A list it cannot read leaves the layout unknown, not wrong.
  CubinInfo odd = readPtxOk(".visible .entry k(\n\t.param .q64 k_param_0\n)\n");
  REQUIRE(odd.entries.size() == 1);
  CHECK(!odd.entries[0].paramsKnown);
}

TEST_CASE("unreadable .nv.info records are errors, not layouts", "[image]") {
  // format 4 (sized), attribute 0x17, 12 bytes: index 0, ordinal 0, offset 0, size 4 << 18.
  std::string one("\x04\x17\x0c\x00"
                  "\x00\x00\x00\x00"
                  "\x00\x00\x00\x00"
                  "\x00\xf0\x11\x00",
                  16);
  auto read = readKernelParams(one);
  REQUIRE_EXPECTED(read);
  REQUIRE(read->params.size() == 1);
  CHECK(read->params[0].size == 4);
  CHECK(unreadable(one.substr(0, 10)));                  // truncated
  CHECK(unreadable(std::string("\x09\x17\x00\x00", 4))); // an unknown format
  std::string second = one;
  second[8] = 1; // ordinal 1 without ordinal 0
  CHECK(unreadable(second));
  CHECK(unreadable(one + one)); // ordinal 0 twice
}
