// support/Hashing: SHA-256 as FIPS 180-4's test vectors give it, of strings and of files (read
// in pieces: one larger than the reader's buffer), and the format check; a FIFO or a device in a
// file's place is refused, never waited on or read without end.
#include "support/Hashing.h"

#include "TestSupport.h"

#include "support/Files.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace tlc;

TEST_CASE("SHA-256 of strings and files matches the standard's vectors", "[support]") {
  CHECK(sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string million(1000000, 'a');
  CHECK(sha256Hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

  std::string dir = test::scratchDir("hashing");
  // 3 MiB and a bit: more than one read of the file.
  std::string large(3 * (1 << 20) + 17, '\0');
  for (size_t i = 0; i < large.size(); ++i)
    large[i] = static_cast<char>(i * 7 + i / 4096);
  REQUIRE(!writeFile(dir + "/large", large, 0600));
  REQUIRE(!writeFile(dir + "/million", million, 0600));
  auto ofLarge = sha256OfFile(dir + "/large");
  auto ofMillion = sha256OfFile(dir + "/million");
  REQUIRE_EXPECTED(ofLarge);
  REQUIRE_EXPECTED(ofMillion);
  CHECK(*ofLarge == sha256Hex(large));
  CHECK(*ofMillion == sha256Hex(million));
  auto missing = sha256OfFile(dir + "/missing");
  REQUIRE(!missing);
  CHECK_THAT(summarize(missing.takeError()).message, Catch::Contains("cannot read"));

  CHECK(isSha256Hex(sha256Hex("abc")));
  CHECK(!isSha256Hex("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
  CHECK(!isSha256Hex("ba7816bf"));
}

TEST_CASE("SHA-256 of a file refuses a FIFO or a device instead of waiting on it", "[support]") {
  std::string dir = test::scratchDir("hashing-special");
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  // Opened blocking, the FIFO would wait for a writer for ever; /dev/zero would never end.
  for (const std::string& path : {dir + "/fifo", std::string("/dev/zero"), dir}) {
    auto digest = sha256OfFile(path);
    REQUIRE(!digest);
    CHECK_THAT(summarize(digest.takeError()).message,
               Catch::Contains("'" + path + "'") && Catch::Contains("not a regular file"));
  }
}
