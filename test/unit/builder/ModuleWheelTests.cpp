// builder/ModuleWheel: a module's wheel states the platform its files truly need, carries a
// version a wheel may carry, and the same build makes the same bytes.
#include "builder/ModuleWheel.h"

#include "TestSupport.h"

#include "support/Files.h"
#include "support/Process.h"

#include <catch2/catch.hpp>

using namespace tlc;
using namespace tlc::test;

namespace {

// A shared library compiled from `source`, linked with `flags`.
std::string sharedLibrary(const std::string& dir, const std::string& name,
                          const std::string& source, const std::vector<std::string>& flags = {}) {
  REQUIRE(!writeFile(dir + "/" + name + ".c", source));
  std::vector<std::string> argv = {
      "cc", "-shared", "-fPIC", dir + "/" + name + ".c", "-o", dir + "/" + name + ".so"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  auto built = runCommand(argv);
  REQUIRE_EXPECTED(built);
  INFO(built->output);
  REQUIRE(built->succeeded());
  return dir + "/" + name + ".so";
}

} // namespace

TEST_CASE("a module wheel's platform tag is the newest glibc its files need", "[python]") {
  std::string dir = scratchDir("wheel-platform-tag");
  std::string plain = sharedLibrary(dir, "plain", "int f(int x) { return x + 1; }\n");
  CHECK(wheelPlatformTag({plain}, {}) == "manylinux_2_17_x86_64");
  // pthread_create is GLIBC_2.34 since glibc merged libpthread.
  std::string threads =
      sharedLibrary(dir, "threads",
                    "#include <pthread.h>\nstatic void* run(void* p) { return p; }\n"
                    "int g(void) { pthread_t t; return pthread_create(&t, 0, run, 0); }\n");
  CHECK(wheelPlatformTag({plain, threads}, {}) == "manylinux_2_34_x86_64");
  // A library beyond the system's is no manylinux platform, unless the wheel holds it.
  std::string other = sharedLibrary(dir, "libother", "int h(void) { return 2; }\n");
  std::string user = sharedLibrary(dir, "user", "int h(void);\nint u(void) { return h(); }\n",
                                   {"-L" + dir, "-l:libother.so"});
  CHECK(wheelPlatformTag({user}, {}) == "linux_x86_64");
  CHECK(wheelPlatformTag({user}, {"libother.so"}) == "manylinux_2_17_x86_64");
  CHECK(wheelPlatformTag({dir + "/missing.so"}, {}) == "linux_x86_64");
}

TEST_CASE("a wheel's version follows PEP 440's public form", "[python]") {
  for (const char* good : {"0.1.0", "1", "2.0rc1", "1.2.post3", "0.1.dev4", "10.20.30a1"})
    CHECK(isWheelVersion(good));
  for (const char* bad : {"", "v1", "1.0-beta", "1..2", "1.0 ", "1.0/x", "1.0+local", "../x"})
    CHECK_FALSE(isWheelVersion(bad));
}

TEST_CASE("tlc build --wheel makes the same wheel twice and installs where pip puts it",
          "[python]") {
  std::string dir = scratchDir("wheel-twice");
  for (const char* out : {"/a", "/b"}) {
    ToolRun built = runTlc({"build", sample("vadd/vadd.cu"), "-o", dir + out, "--arch", "sm_90a",
                            "--python", "--wheel", "--wheel-version", "1.2.0", "--no-cache", "-q"});
    REQUIRE(built.exitCode == 0);
  }
  std::string name = "vadd-1.2.0-cp310-abi3-manylinux_2_34_x86_64.whl";
  CHECK(readText(dir + "/a/" + name) == readText(dir + "/b/" + name));
  ToolRun verified = runTlc({"verify", dir + "/a"});
  CHECK(verified.exitCode == 0);
  ToolRun refused = runTlc({"build", sample("vadd/vadd.cu"), "-o", dir + "/c", "--wheel"});
  CHECK(refused.exitCode == 2);
  CHECK_THAT(refused.err, Catch::Contains("--wheel packs the Python package: give --python too"));
  ToolRun version = runTlc({"build", sample("vadd/vadd.cu"), "-o", dir + "/c", "--python",
                            "--wheel", "--wheel-version", "1.0;rm"});
  CHECK(version.exitCode == 2);
  CHECK_THAT(version.err, Catch::Contains("is not a version a wheel may carry"));
}
