// support/ProbeMemo: a tool's answers about itself are remembered per tool identity (issue 37:
// four probes were half of a cache hit). A fake tool counts its runs.
#include "support/ProbeMemo.h"

#include "TestSupport.h"

#include "support/Files.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <sys/stat.h>
#include <utime.h>

using namespace tlc;
using namespace tlc::test;

namespace {

struct FakeTool {
  std::string dir, tool, runs;

  explicit FakeTool(const std::string& name) : dir(scratchDir(name)) {
    tool = dir + "/tool";
    runs = dir + "/runs";
    REQUIRE(!writeFile(tool, "#!/bin/sh\necho run >> \"" + runs +
                                 "\"\n[ \"$1\" = --fail ] && exit 3\necho \"answer $1\"\n"));
    REQUIRE(::chmod(tool.c_str(), 0755) == 0);
    ::setenv("TLC_CACHE_DIR", (dir + "/cache").c_str(), 1);
    ::unsetenv("TLC_DISABLE_CACHE");
  }

  size_t count() const {
    if (!llvm::sys::fs::exists(runs))
      return 0;
    std::string text = readText(runs);
    return std::count(text.begin(), text.end(), '\n');
  }

  std::string ask(const std::string& flag) const {
    auto result = runProbe({tool, flag});
    REQUIRE_EXPECTED(result);
    return result->succeeded() ? result->output : "failed";
  }
};

} // namespace

TEST_CASE("a tool is asked once per question while it stays the same file", "[support]") {
  FakeTool fake("probe-memo-once");
  CHECK(fake.ask("--version") == "answer --version\n");
  CHECK(fake.ask("--version") == "answer --version\n");
  CHECK(fake.count() == 1);
  CHECK(fake.ask("--list") == "answer --list\n"); // another question
  CHECK(fake.count() == 2);
  // The tool touched (an upgrade in place, a new build of it): asked again.
  struct utimbuf later{2000000000, 2000000000};
  REQUIRE(::utime(fake.tool.c_str(), &later) == 0);
  CHECK(fake.ask("--version") == "answer --version\n");
  CHECK(fake.count() == 3);
}

TEST_CASE("failed probes are not remembered and the memo can be turned off", "[support]") {
  FakeTool fake("probe-memo-failures");
  CHECK(fake.ask("--fail") == "failed");
  CHECK(fake.ask("--fail") == "failed");
  CHECK(fake.count() == 2);
  ::setenv("TLC_DISABLE_CACHE", "1", 1);
  CHECK(probeMemoDir().empty());
  fake.ask("--version");
  fake.ask("--version");
  CHECK(fake.count() == 4);
}

TEST_CASE("a memo folder others may write to is not used", "[support]") {
  FakeTool fake("probe-memo-shared");
  fake.ask("--version");
  REQUIRE(::chmod((fake.dir + "/cache/probes").c_str(), 0777) == 0);
  fake.ask("--version");
  fake.ask("--version");
  CHECK(fake.count() == 3);
}

TEST_CASE("an answer that depends on something else is asked again when that changes",
          "[support]") {
  // nvcc's macro listing depends on the host compiler it runs and on NVCC_APPEND_FLAGS.
  FakeTool fake("probe-memo-dependencies");
  auto ask = [&](std::vector<std::string> dependencies) {
    auto result = runProbe({fake.tool, "-dM"}, {}, dependencies);
    REQUIRE_EXPECTED(result);
  };
  ask({"gcc 12", "NVCC_APPEND_FLAGS="});
  ask({"gcc 12", "NVCC_APPEND_FLAGS="});
  CHECK(fake.count() == 1);
  ask({"gcc 13", "NVCC_APPEND_FLAGS="});
  CHECK(fake.count() == 2);
  ask({"gcc 13", "NVCC_APPEND_FLAGS=-std=c++20"});
  CHECK(fake.count() == 3);
  // A dependency that cannot be told (the compiler not found): never remembered.
  ask({"", "NVCC_APPEND_FLAGS="});
  ask({"", "NVCC_APPEND_FLAGS="});
  CHECK(fake.count() == 5);
}
