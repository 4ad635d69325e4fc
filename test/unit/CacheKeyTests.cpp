// The cache key is complete: each input that decides a build's outputs, changed alone, misses the
// cache, and nothing changed hits it. Every test builds the same small module cold into a cache
// of its own, builds it again with one input changed (it must miss), then unchanged (it must
// still hit, so the miss was the change's and not a broken cache). The inputs are those of
// builder/BuildKey.cpp and Build.cpp's cacheKey(), and the files every entry records; a hit on a
// changed input would hand back the outputs of another build (a `-D VALUE=2` build getting the
// cached `VALUE=1` image).
#include "BuildSupport.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <functional>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  REQUIRE(llvm::sys::fs::exists(path));
}

void append(const std::string& path, const std::string& text) {
  REQUIRE(llvm::sys::fs::exists(path));
  std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

// A module whose outputs depend on every kind of input: a header found through the input's own
// folder (edit.h), one found through the first of two -I folders that both have it (tile.h, so
// their order matters), a macro only -D defines, and two kernels (so --entry can pick one).
class KeyedModule {
public:
  explicit KeyedModule(const std::string& name) : Dir(scratchDir("cache-key-" + name)) {
    for (const char* folder : {"src", "a", "b"})
      REQUIRE(!llvm::sys::fs::create_directories(Dir + "/" + folder));
    writeText(Dir + "/src/k.cu", "#include \"edit.h\"\n#include \"tile.h\"\n"
                                 "__global__ void k(int* p) { *p = TILE + VALUE + EDIT; }\n"
                                 "__global__ void other(int* p) { *p = 2; }\n");
    writeText(Dir + "/src/edit.h", "#define EDIT 3\n");
    writeText(Dir + "/a/tile.h", "#define TILE 1\n");
    writeText(Dir + "/b/tile.h", "#define TILE 2\n");
  }

  const std::string& dir() const { return Dir; }

  // `tlc build` of the module as the tests build it first; `change` edits its arguments.
  std::vector<std::string>
  arguments(const std::function<void(std::vector<std::string>&)>& change = {}) {
    std::vector<std::string> args = {
        "build", Dir + "/src/k.cu", "--name", "keyed",  "-I", Dir + "/a",  "-I", Dir + "/b",
        "-D",    "VALUE=1",         "--arch", "sm_90a", "-o", nextOutput()};
    if (change)
      change(args);
    return args;
  }

  // Builds; returns tlc's messages, which say "cached NAME" on a hit.
  std::string build(const std::vector<std::string>& args) {
    ToolRun run = runTlc(args, {"TLC_CACHE_DIR=" + Dir + "/cache"});
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    return run.err;
  }

  // The cold build, then `changed` (a miss), then the first build again (a hit).
  void checkMisses(const std::vector<std::string>& changed) {
    CHECK_THAT(build(arguments()), !Contains("cached"));
    std::string err = build(changed);
    INFO("changed alone: the build must miss the cache");
    CHECK_THAT(err, !Contains("cached"));
    CHECK_THAT(build(arguments()), Contains("cached keyed"));
  }

private:
  // Each build into a new folder, so nothing published earlier decides anything.
  std::string nextOutput() { return Dir + "/out" + std::to_string(Outputs++); }

  std::string Dir;
  int Outputs = 0;
};

// Replaces the value after `flag` (the first one) with `value`.
void replaceValue(std::vector<std::string>& args, const std::string& flag,
                  const std::string& value) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) {
      args[i + 1] = value;
      return;
    }
  FAIL("no " << flag << " in the arguments");
}

void add(std::vector<std::string>& args, std::initializer_list<std::string> more) {
  args.insert(args.end() - 2, more); // before -o OUTDIR
}

} // namespace

TEST_CASE("the cache key: nothing changed hits", "[cache][key]") {
  KeyedModule module("unchanged");
  CHECK_THAT(module.build(module.arguments()), !Contains("cached"));
  CHECK_THAT(module.build(module.arguments()), Contains("cached keyed"));
}

TEST_CASE("the cache key: the source's content changed alone misses", "[cache][key]") {
  KeyedModule module("source");
  CHECK_THAT(module.build(module.arguments()), !Contains("cached"));
  append(module.dir() + "/src/k.cu", "// edited\n");
  CHECK_THAT(module.build(module.arguments()), !Contains("cached"));
}

TEST_CASE("the cache key: a header's content changed alone misses", "[cache][key]") {
  KeyedModule module("header");
  CHECK_THAT(module.build(module.arguments()), !Contains("cached"));
  writeText(module.dir() + "/src/edit.h", "#define EDIT 4\n");
  CHECK_THAT(module.build(module.arguments()), !Contains("cached"));
  // And an -I folder's header.
  writeText(module.dir() + "/a/tile.h", "#define TILE 5\n");
  CHECK_THAT(module.build(module.arguments()), !Contains("cached"));
}

TEST_CASE("the cache key: nvcc's flags from the environment changed alone miss", "[cache][key]") {
  KeyedModule module("environment");
  CHECK_THAT(module.build(module.arguments()), !Contains("cached"));
  ToolRun run = runTlc(module.arguments(), {"TLC_CACHE_DIR=" + module.dir() + "/cache",
                                            "NVCC_APPEND_FLAGS=-DUNUSED_BY_THE_SOURCE=1"});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  CHECK_THAT(run.err, !Contains("cached"));
  CHECK_THAT(module.build(module.arguments()), Contains("cached keyed"));
}

TEST_CASE("the cache key: -D changed alone misses", "[cache][key]") {
  KeyedModule module("define");
  module.checkMisses(module.arguments(
      [](std::vector<std::string>& args) { replaceValue(args, "-D", "VALUE=2"); }));
}

TEST_CASE("the cache key: -U (through -Xnvcc) changed alone misses", "[cache][key]") {
  KeyedModule module("undefine");
  module.checkMisses(module.arguments(
      [](std::vector<std::string>& args) { add(args, {"-Xnvcc", "-UNOT_DEFINED"}); }));
}

TEST_CASE("the cache key: the -I folders' order changed alone misses", "[cache][key]") {
  KeyedModule module("include-order");
  module.checkMisses(module.arguments([](std::vector<std::string>& args) {
    size_t first = std::find(args.begin(), args.end(), "-I") - args.begin(); // -I a -I b
    std::swap(args[first + 1], args[first + 3]);
  }));
}

TEST_CASE("the cache key: --arch changed alone misses", "[cache][key]") {
  // Another arch beside sm_90a: the parse still reads the code for the highest (sm_90a, also in
  // the key), so only the targets tell the two builds apart.
  KeyedModule module("arch");
  module.checkMisses(
      module.arguments([](std::vector<std::string>& args) { add(args, {"--arch", "sm_80"}); }));
}

TEST_CASE("the cache key: an nvcc flag changed alone misses", "[cache][key]") {
  KeyedModule module("nvcc-flag");
  module.checkMisses(module.arguments(
      [](std::vector<std::string>& args) { add(args, {"-Xnvcc", "--maxrregcount=32"}); }));
}

TEST_CASE("the cache key: --std changed alone misses", "[cache][key]") {
  KeyedModule module("std");
  module.checkMisses(
      module.arguments([](std::vector<std::string>& args) { add(args, {"--std", "c++20"}); }));
}

TEST_CASE("the cache key: --name changed alone misses", "[cache][key]") {
  KeyedModule module("name");
  module.checkMisses(module.arguments(
      [](std::vector<std::string>& args) { replaceValue(args, "--name", "renamed"); }));
}

TEST_CASE("the cache key: --entry changed alone misses", "[cache][key]") {
  KeyedModule module("entry");
  module.checkMisses(
      module.arguments([](std::vector<std::string>& args) { add(args, {"--entry", "k"}); }));
}

TEST_CASE("the cache key: --external-image changed alone misses", "[cache][key]") {
  KeyedModule module("external-image");
  module.checkMisses(
      module.arguments([](std::vector<std::string>& args) { add(args, {"--external-image"}); }));
}

TEST_CASE("the cache key: a template changed alone misses", "[cache][key]") {
  KeyedModule module("templates");
  std::string templates = module.dir() + "/templates";
  CommandResult copied = run({"cp", "-R", std::string(TLC_SOURCE_DIR) + "/templates", templates});
  REQUIRE(copied.exitCode == 0);
  auto withTemplates = [&](std::vector<std::string>& args) {
    add(args, {"--template-dir", templates});
  };
  CHECK_THAT(module.build(module.arguments(withTemplates)), !Contains("cached"));
  append(templates + "/launcher.cpp.mustache", "// edited\n");
  CHECK_THAT(module.build(module.arguments(withTemplates)), !Contains("cached"));
}

TEST_CASE("the cache key: the toolkit changed alone misses", "[cache][key]") {
  // A copy of the toolkit builds what the original does (a hit, RelocationTests); one of its
  // files that is no header changed (nvcc's profile, one more empty line) is another toolkit.
  KeyedModule module("toolkit");
  std::string toolkit = module.dir() + "/cuda";
  copyToolkit(toolkit);
  auto withToolkit = [&](std::vector<std::string>& args) { add(args, {"--cuda-path", toolkit}); };
  CHECK_THAT(module.build(module.arguments(withToolkit)), !Contains("cached"));
  CHECK_THAT(module.build(module.arguments(withToolkit)), Contains("cached keyed"));
  append(toolkit + "/bin/nvcc.profile", "\n");
  CHECK_THAT(module.build(module.arguments(withToolkit)), !Contains("cached"));
}

TEST_CASE("the cache key: with -lineinfo the toolkit's folder changed alone misses",
          "[cache][key]") {
  // Without debug info a copy of the toolkit hits (RelocationTests); with it the image's line
  // tables name the toolkit's headers where they are, so a hit would name the other folder.
  KeyedModule module("lineinfo-toolkit");
  std::string toolkit = module.dir() + "/cuda";
  copyToolkit(toolkit);
  auto lineinfo = [&](std::vector<std::string>& args) { add(args, {"-Xnvcc", "-lineinfo"}); };
  auto copied = [&](std::vector<std::string>& args) {
    lineinfo(args);
    add(args, {"--cuda-path", toolkit});
  };
  CHECK_THAT(module.build(module.arguments(lineinfo)), !Contains("cached"));
  CHECK_THAT(module.build(module.arguments(copied)), !Contains("cached"));
  CHECK_THAT(module.build(module.arguments(lineinfo)), Contains("cached keyed"));
}
