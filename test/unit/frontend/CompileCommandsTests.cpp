// frontend/CompileCommands, reading: a compilation database is read as every file tlc reads (a
// FIFO or a device named as one is refused at once), and one that is not JSON is reported with
// its name and the line and column where it breaks, never through Clang's reader, which prints
// `YAML:1:61: error:` without the file and goes on with what it read.
#include "frontend/CompileCommands.h"

#include "TestSupport.h"

#include "support/Files.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace tlc;

namespace {

std::string reading(const std::string& path) {
  auto flags = flagsFromCompileDatabase(path, {"/nowhere/k.cu"});
  return flags ? "" : summarize(flags.takeError()).message;
}

} // namespace

TEST_CASE("a malformed compilation database is named with the line and column", "[frontend]") {
  std::string dir = test::scratchDir("compile-database-malformed");
  REQUIRE(
      !writeFile(dir + "/cc.json", "[{\"directory\": \"/\",\n \"file\": \"k.cu\", \"arguments\""));
  CHECK_THAT(reading(dir + "/cc.json"),
             Catch::StartsWith("cannot read the compilation database '" + dir +
                               "/cc.json': line 2, column 29: syntax error"));
  REQUIRE(!writeFile(dir + "/object.json", "{}"));
  CHECK(reading(dir + "/object.json") ==
        "cannot read the compilation database '" + dir + "/object.json': Expected array.");
  // Nested past what a database holds: Clang's reader recurses, and would run out of stack.
  REQUIRE(!writeFile(dir + "/deep.json", std::string(100000, '[') + std::string(100000, ']')));
  CHECK_THAT(reading(dir + "/deep.json"),
             Catch::Contains("it nests deeper than a compilation database"));
  REQUIRE(!writeFile(dir + "/good.json",
                     "[{\"directory\": \"/nowhere\", \"file\": \"k.cu\", \"arguments\": "
                     "[\"nvcc\", \"-DX=1\", \"-c\", \"k.cu\"]}]"));
  auto flags = flagsFromCompileDatabase(dir + "/good.json", {"/nowhere/k.cu"});
  REQUIRE_EXPECTED(flags);
  CHECK((*flags)["/nowhere/k.cu"].clang == std::vector<std::string>{"-DX=1"});
}

TEST_CASE("a compilation database that is a FIFO or a device is refused at once", "[frontend]") {
  std::string dir = test::scratchDir("compile-database-special");
  REQUIRE(::mkfifo((dir + "/compile_commands.json").c_str(), 0600) == 0);
  CHECK_THAT(reading(dir + "/compile_commands.json"),
             Catch::Contains("'" + dir + "/compile_commands.json': a FIFO, not a regular file"));
  CHECK_THAT(reading("/dev/zero"), Catch::Contains("a character device, not a regular file"));
}
