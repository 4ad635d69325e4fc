// The runtime's fatbin reader (Fatbin.cpp), on fatbins from nvcc's fatbinary and on broken
// copies of them.
#include "Fatbin.h"

#include "FakeDriver.h"
#include "internal/TestModules.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace tlc_test;
using tlc::runtime::FatbinEntry;
using tlc::runtime::FatbinReader;

namespace {

std::vector<FatbinEntry> entriesOf(const std::string& bytes, size_t available = SIZE_MAX,
                                   std::string* error = nullptr) {
  FatbinReader reader(bytes.data(), available);
  REQUIRE(reader.isFatbin());
  std::vector<FatbinEntry> entries;
  FatbinEntry entry;
  while (reader.next(entry))
    entries.push_back(entry);
  if (error)
    *error = reader.error();
  else
    CHECK(std::string(reader.error()).empty());
  return entries;
}

// The reader's error for `bytes`, read to the end.
std::string errorFor(const std::string& bytes, size_t available = SIZE_MAX) {
  std::string error;
  entriesOf(bytes, available, &error);
  return error;
}

template <typename T> void writeAt(std::string& bytes, size_t offset, T value) {
  std::memcpy(&bytes[offset], &value, sizeof value);
}

std::string textOf(const FatbinEntry& entry) {
  size_t length = 0;
  bool terminated = false;
  tlc::runtime::ptxText(entry, length, terminated);
  CHECK(terminated);
  return std::string(reinterpret_cast<const char*>(entry.payload), length);
}

constexpr size_t kFirstEntry = 16; // after the container's header, in fatbinary's output

} // namespace

TEST_CASE("the fatbin reader lists each entry's kind, arch and variant, in order") {
  std::string bytes = readFile(imagePath("jit_sm_90a_ptx.fatbin"));
  std::vector<FatbinEntry> entries = entriesOf(bytes);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].kind == FatbinEntry::Elf);
  CHECK(entries[0].arch == 90);
  CHECK(entries[0].variant == 'a');
  CHECK_FALSE(entries[0].compressed);
  CHECK(entries[0].offset == kFirstEntry);
  CHECK(std::memcmp(entries[0].payload,
                    "\x7f"
                    "ELF",
                    4) == 0);
  CHECK(entries[1].kind == FatbinEntry::Ptx);
  CHECK(entries[1].arch == 80);
  CHECK(entries[1].variant == 0);
  CHECK_THAT(textOf(entries[1]),
             Catch::Contains(".target sm_80") && Catch::Contains(".visible .entry jit_fill("));
  // The whole file, and nothing past it.
  CHECK(entries[1].payload + entries[1].size ==
        reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size()));
  CHECK(entriesOf(bytes, bytes.size()).size() == 2);
}

TEST_CASE("the fatbin reader tells arch-specific and family PTX apart") {
  std::string bytes = readFile(imagePath("jit_variants.fatbin")); // the entries point into it
  std::vector<FatbinEntry> entries = entriesOf(bytes);
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].arch == 80);
  CHECK(entries[0].variant == 0);
  CHECK(entries[1].arch == 90);
  CHECK(entries[1].variant == 'a');
  CHECK_THAT(textOf(entries[1]), Catch::Contains(".target sm_90a"));
  CHECK(entries[2].arch == 100);
  CHECK(entries[2].variant == 'f');
  CHECK_THAT(textOf(entries[2]), Catch::Contains(".target sm_100f"));
}

TEST_CASE("the fatbin reader says which entries are compressed") {
  std::string bytes = readFile(imagePath("jit_compressed.fatbin")); // the entries point into it
  std::vector<FatbinEntry> entries = entriesOf(bytes);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].compressed);
  CHECK(entries[1].compressed);
  CHECK(entries[1].kind == FatbinEntry::Ptx);
}

TEST_CASE("several PTX entries of one arch are all listed (relocatable code)") {
  std::string bytes = readFile(imagePath("link.fatbin")); // the entries point into it
  std::vector<FatbinEntry> entries = entriesOf(bytes);
  REQUIRE(entries.size() == 3);
  CHECK_THAT(textOf(entries[1]), Catch::Contains(".entry link_main"));
  CHECK_THAT(textOf(entries[2]), Catch::Contains(".entry link_side"));
}

TEST_CASE("a cubin or a short buffer is no fatbin") {
  std::string cubin = readFile(imagePath("jit_sm_90a.cubin"));
  FatbinReader reader(cubin.data(), cubin.size());
  CHECK_FALSE(reader.isFatbin());
  FatbinEntry entry;
  CHECK_FALSE(reader.next(entry));
  std::string fatbin = readFile(imagePath("jit_ptx.fatbin"));
  CHECK_FALSE(FatbinReader(fatbin.data(), 3).isFatbin());
  CHECK_FALSE(FatbinReader(nullptr, SIZE_MAX).isFatbin());
}

TEST_CASE("a fatbin larger than what may be read is reported, never read past") {
  std::string bytes = readFile(imagePath("jit_sm_90a_ptx.fatbin"));
  CHECK_THAT(errorFor(bytes, bytes.size() - 1),
             Catch::Contains("claims") && Catch::Contains("more than the image holds"));
  CHECK_THAT(errorFor(bytes, 10), Catch::Contains("header is cut short"));
}

TEST_CASE("a fatbin layout the reader does not know is reported") {
  const std::string original = readFile(imagePath("jit_sm_90a_ptx.fatbin"));
  SECTION("container version") {
    std::string bytes = original;
    writeAt<uint16_t>(bytes, 4, 2);
    CHECK(errorFor(bytes) == "unknown fatbin version 2");
  }
  SECTION("container header size") {
    std::string bytes = original;
    writeAt<uint16_t>(bytes, 6, 8);
    CHECK(errorFor(bytes) == "a fatbin header of 8 bytes");
  }
  SECTION("entry version") {
    std::string bytes = original;
    writeAt<uint16_t>(bytes, kFirstEntry + 2, 0x0202);
    CHECK(errorFor(bytes) == "an entry of unknown version 0x202");
  }
  SECTION("entry header size") {
    std::string bytes = original;
    writeAt<uint32_t>(bytes, kFirstEntry + 4, 8);
    CHECK(errorFor(bytes) == "an entry header of 8 bytes");
  }
  SECTION("payload size") {
    std::string bytes = original;
    writeAt<uint64_t>(bytes, kFirstEntry + 8, uint64_t(1) << 40);
    CHECK(errorFor(bytes) == "the entry at offset 16 runs past the end of the fatbin");
  }
  SECTION("entries cut short") {
    std::string bytes = original;
    uint64_t entriesSize = 0;
    std::memcpy(&entriesSize, &bytes[8], sizeof entriesSize);
    writeAt<uint64_t>(bytes, 8, entriesSize - 8); // the last entry's payload no longer fits
    std::string error;
    std::vector<FatbinEntry> entries = entriesOf(bytes, SIZE_MAX, &error);
    CHECK(entries.size() == 1);
    CHECK_THAT(error, Catch::EndsWith("runs past the end of the fatbin"));
  }
}

TEST_CASE("a PTX entry's text ends at its first NUL") {
  std::string payload = std::string("text") + '\0' + '\0';
  FatbinEntry entry;
  entry.payload = reinterpret_cast<const unsigned char*>(payload.data());
  entry.size = payload.size();
  size_t length = 0;
  bool terminated = false;
  tlc::runtime::ptxText(entry, length, terminated);
  CHECK(length == 4);
  CHECK(terminated);
  entry.size = 4; // no NUL within the payload
  tlc::runtime::ptxText(entry, length, terminated);
  CHECK(length == 4);
  CHECK_FALSE(terminated);
}
