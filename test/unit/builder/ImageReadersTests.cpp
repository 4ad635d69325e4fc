// The image readers (builder/DeviceImage.h) on hostile bytes: every size and offset they read is
// checked against what remains of the buffer without wrapping, a malformed ELF table is an
// error rather than the end of tlc, and no parameter layout past what the driver accepts
// (32764 bytes) reaches a launcher. The reproductions of issue 35, one section each; the same
// files, forged from nvcc's, go through `tlc build` in test/bad-input/cases/images.jsonl.
#include "TestSupport.h"

#include "builder/DeviceImage.h"
#include "support/Files.h"
#include "support/Process.h"
#include "toolchain/Toolchain.h"

#include "llvm/BinaryFormat/ELF.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace tlc;
using namespace tlc::test;

namespace {

template <typename T> void put(std::string& bytes, size_t at, T value) {
  if (bytes.size() < at + sizeof(T))
    bytes.resize(at + sizeof(T));
  std::memcpy(&bytes[at], &value, sizeof(T));
}

template <typename T> T get(const std::string& bytes, size_t at) {
  T value{};
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

// A fat binary of one ELF entry: the container header, an entry header of 64 bytes, `payload`.
std::string fatbinOf(const std::string& payload) {
  std::string bytes;
  put<uint32_t>(bytes, 0, 0xBA55ED50);
  put<uint16_t>(bytes, 4, 1);
  put<uint16_t>(bytes, 6, 16);
  put<uint64_t>(bytes, 8, 64 + payload.size());
  put<uint16_t>(bytes, 16, 2);                  // kind: ELF
  put<uint32_t>(bytes, 16 + 4, 64);             // the entry's header
  put<uint64_t>(bytes, 16 + 8, payload.size()); // its payload
  put<uint32_t>(bytes, 16 + 28, 90);            // arch
  put<uint64_t>(bytes, 16 + 40, 0);             // flags
  bytes.resize(16 + 64);
  return bytes + payload;
}

std::string errorOf(llvm::Error error) {
  return summarize(std::move(error)).message;
}

// nvcc -cubin of a one-kernel file, read whole.
std::string nvccCubin() {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  std::string dir = scratchDir("image-readers-cubin");
  std::string source = dir + "/k.cu";
  REQUIRE(!writeFile(source, "extern \"C\" __global__ void k(int* p) { *p = 1; }\n"));
  auto compiled =
      runCommand({toolkit->nvcc, "-cubin", "-arch=sm_90a", source, "-o", dir + "/k.cubin"});
  REQUIRE_EXPECTED(compiled);
  INFO(compiled->output);
  REQUIRE(compiled->succeeded());
  return readText(dir + "/k.cubin");
}

// Where the section header of the cubin's symbol table is.
size_t symtabHeader(const std::string& cubin) {
  auto sectionHeaders = get<uint64_t>(cubin, offsetof(llvm::ELF::Elf64_Ehdr, e_shoff));
  auto count = get<uint16_t>(cubin, offsetof(llvm::ELF::Elf64_Ehdr, e_shnum));
  for (size_t i = 0; i < count; ++i) {
    size_t at = sectionHeaders + i * sizeof(llvm::ELF::Elf64_Shdr);
    if (get<uint32_t>(cubin, at + offsetof(llvm::ELF::Elf64_Shdr, sh_type)) ==
        llvm::ELF::SHT_SYMTAB)
      return at;
  }
  FAIL("no symbol table");
  return 0;
}

std::string cubinReadError(const std::string& bytes) {
  auto info = readCubin(llvm::MemoryBufferRef(bytes, "forged.cubin"));
  if (info)
    return "";
  return errorOf(info.takeError());
}

} // namespace

TEST_CASE("a fat binary entry whose size wraps around is refused, not looped on", "[image]") {
  std::string payload = "\x7f"
                        "ELF";
  payload.resize(64, '\0');
  auto good = readFatbin(fatbinOf(payload));
  REQUIRE_EXPECTED(good);
  // The reproduction: the entry's 64-bit size set to 2^64 - its header's size.
  std::string wrapped = fatbinOf(payload);
  put<uint64_t>(wrapped, 16 + 8, ~uint64_t(0) - 64 + 1);
  auto read = readFatbin(wrapped);
  REQUIRE_FALSE(static_cast<bool>(read));
  CHECK_THAT(errorOf(read.takeError()), Catch::Contains("do not fit in the"));
  // The container's size, and an entry header of 0 bytes (which would never move on).
  std::string container = fatbinOf(payload);
  put<uint64_t>(container, 8, ~uint64_t(0) - 8);
  read = readFatbin(container);
  REQUIRE_FALSE(static_cast<bool>(read));
  CHECK_THAT(errorOf(read.takeError()), Catch::Contains("not a fat binary"));
  std::string stuck = fatbinOf(payload);
  put<uint32_t>(stuck, 16 + 4, 0);
  put<uint64_t>(stuck, 16 + 8, 0);
  read = readFatbin(stuck);
  REQUIRE_FALSE(static_cast<bool>(read));
  CHECK_THAT(errorOf(read.takeError()), Catch::Contains("header 0"));
}

TEST_CASE("a malformed cubin symbol table is an error, not an abort", "[image]") {
  std::string cubin = nvccCubin();
  REQUIRE(cubinReadError(cubin).empty());
  size_t header = symtabHeader(cubin);
  auto field = [&](size_t offset, uint64_t value) {
    std::string forged = cubin;
    put<uint64_t>(forged, header + offset, value);
    return cubinReadError(forged);
  };
  // Offset past the end, a size that is no multiple of the entry size, an entry size of 0.
  CHECK_THAT(field(offsetof(llvm::ELF::Elf64_Shdr, sh_offset), cubin.size() + 4096),
             Catch::Contains("is not a readable cubin"));
  CHECK_THAT(field(offsetof(llvm::ELF::Elf64_Shdr, sh_size),
                   get<uint64_t>(cubin, header + offsetof(llvm::ELF::Elf64_Shdr, sh_size)) + 3),
             Catch::Contains("is not a readable cubin"));
  CHECK_THAT(field(offsetof(llvm::ELF::Elf64_Shdr, sh_entsize), 0),
             Catch::Contains("is not a readable cubin"));
  // The same cubin inside a fat binary.
  std::string forged = cubin;
  put<uint64_t>(forged, header + offsetof(llvm::ELF::Elf64_Shdr, sh_entsize), 0);
  auto entries = readFatbin(fatbinOf(forged));
  REQUIRE_EXPECTED(entries);
  REQUIRE(entries->size() == 1);
  CHECK_THAT(cubinReadError((*entries)[0].payload.str()), Catch::Contains("sh_entsize"));
}

TEST_CASE("parameter layouts past what the driver accepts are refused", "[image]") {
  // .nv.info: attribute 0x45 (a large parameter) of 0xffffffff bytes.
  std::string huge("\x04\x45\x0c\x00"
                   "\x00\x00\x00\x00"
                   "\x00\x00\x00\x00"
                   "\xff\xff\xff\xff",
                   16);
  auto read = readKernelParams(huge);
  REQUIRE_FALSE(static_cast<bool>(read));
  CHECK_THAT(errorOf(read.takeError()), Catch::Contains("past the 32764 bytes"));
  // Two parameters at the same offset.
  std::string overlapping("\x04\x17\x0c\x00"
                          "\x00\x00\x00\x00"
                          "\x00\x00\x00\x00"
                          "\x00\x00\x10\x00" // ordinal 0 at 0, 4 bytes
                          "\x04\x17\x0c\x00"
                          "\x00\x00\x00\x00"
                          "\x01\x00\x00\x00"
                          "\x00\x00\x10\x00", // ordinal 1 at 0, 4 bytes
                          32);
  read = readKernelParams(overlapping);
  REQUIRE_FALSE(static_cast<bool>(read));
  CHECK_THAT(errorOf(read.takeError()), Catch::Contains("overlaps the one before"));
  // PTX: an array whose size overflows 64 bits, and a hundred thousand parameters.
  auto ptxError = [](const std::string& text) {
    auto info = readPtx(text);
    return info ? std::string() : errorOf(info.takeError());
  };
  CHECK_THAT(ptxError(".visible .entry w(\n.param .align 8 .b64 w_p[2305843009213693953]\n)\n{}\n"),
             Catch::Contains("more than the 32764 bytes"));
  std::string many = ".visible .entry m(\n";
  for (int i = 0; i < 100000; ++i)
    many += (i ? ",\n" : "") + std::string(".param .u32 m_p") + std::to_string(i);
  CHECK_THAT(ptxError(many + "\n)\n{}\n"), Catch::Contains("past the 32764 bytes"));
  CHECK_THAT(ptxError(".visible .entry a(\n.param .align 65536 .b8 a_p[1]\n)\n{}\n"),
             Catch::Contains("more than the 32764 bytes"));
  // The largest list the driver takes still reads.
  auto largest = readPtx(".visible .entry l(\n.param .align 4 .b8 l_p[32764]\n)\n{}\n");
  REQUIRE_EXPECTED(largest);
  CHECK(largest->entries.at(0).params.at(0).size == 32764);
}

TEST_CASE("PTX whose entries never open or close their lists is read once", "[image]") {
  // 400 000 entries without '(' (the reproduction), then as many whose '(' never closes: each
  // entry is found, none gets a layout, and the text is read in one pass (it took a minute).
  std::string text;
  for (int i = 0; i < 400000; ++i)
    text += ".visible .entry k" + std::to_string(i) + "\n";
  for (int i = 0; i < 400000; ++i)
    text += ".visible .entry u" + std::to_string(i) + "(\n";
  auto info = readPtx(text);
  REQUIRE_EXPECTED(info);
  CHECK(info->entries.size() == 800000);
  CHECK(std::none_of(info->entries.begin(), info->entries.end(),
                     [](const ImageEntry& entry) { return entry.paramsKnown; }));
}
