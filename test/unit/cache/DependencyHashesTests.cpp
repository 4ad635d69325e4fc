// cache/Cache's DependencyHashes: a dependency an entry lists that is now a FIFO or a device (an
// entry naming /dev/stdin) is not opened or read, and matches no entry: hashing it would wait
// for a writer, or read a terminal or /dev/zero for ever, in every later build's cache lookup.
#include "cache/Cache.h"

#include "TestSupport.h"

#include "support/Files.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace tlc;

TEST_CASE("dependencies that are not regular files hash as missing, without being read",
          "[cache]") {
  std::string dir = test::scratchDir("dependency-hashes");
  REQUIRE(!writeFile(dir + "/a.h", "int a;\n"));
  REQUIRE(::mkfifo((dir + "/fifo.h").c_str(), 0600) == 0);
  PathRelocation asGiven;
  DependencyHashes hashes(asGiven);
  CHECK(hashes.of(dir + "/a.h").size() == 32);
  CHECK(hashes.of(dir + "/fifo.h") == "missing");
  CHECK(hashes.of("/dev/zero") == "missing");
  CHECK(hashes.of("/dev/stdin") == "missing");
  CHECK(hashes.of(dir + "/gone.h") == "missing");
}
