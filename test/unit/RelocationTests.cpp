// Cache keys that do not change with where things are: tools keyed by their content (memoised
// per machine), and with a base folder (--base-dir, TLC_BASE_DIR) the same module in two
// checkouts hits one cache, while an edited header still misses.
#include "BuildSupport.h"

#include "cache/Cache.h"
#include "cache/Relocation.h"
#include "support/Files.h"
#include "support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>

#include <unistd.h>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

std::string toolDigest(const std::string& path, const std::string& memoDir) {
  CacheKey key;
  key.add("tlc", "same everywhere");
  key.addToolIdentities({{"bin/nvcc", path}}, memoDir);
  return key.digest();
}

void writeTool(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  REQUIRE(llvm::sys::fs::exists(path));
}

void setModified(const std::string& path, std::chrono::hours age) {
  int fd = -1;
  REQUIRE(!llvm::sys::fs::openFileForWrite(path, fd, llvm::sys::fs::CD_OpenExisting,
                                           llvm::sys::fs::OF_Append));
  REQUIRE(
      !llvm::sys::fs::setLastAccessAndModificationTime(fd, std::chrono::system_clock::now() - age));
  llvm::sys::fs::closeFile(fd);
}

std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    files.push_back(it->path());
  return files;
}

} // namespace

TEST_CASE("a tool is keyed by its content, wherever it is and whenever it was written",
          "[cache][relocation]") {
  std::string dir = scratchDir("tool-identity");
  std::string memo = dir + "/memo";
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/a/bin"));
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/b/bin"));
  writeTool(dir + "/a/bin/nvcc", "#!/bin/sh\necho nvcc 12.8\n");
  writeTool(dir + "/b/bin/nvcc", "#!/bin/sh\necho nvcc 12.8\n");
  setModified(dir + "/b/bin/nvcc", std::chrono::hours(48));

  std::string first = toolDigest(dir + "/a/bin/nvcc", memo);
  CHECK(toolDigest(dir + "/b/bin/nvcc", memo) == first); // another path, another time
  CHECK(toolDigest(dir + "/b/bin/nvcc", "") == first);   // without a memo too
  CHECK(filesIn(memo).size() == 2);                      // one memo per tool file

  // Another tool, or a missing one, keys differently.
  writeTool(dir + "/b/bin/nvcc", "#!/bin/sh\necho nvcc 12.9\n");
  std::string changed = toolDigest(dir + "/b/bin/nvcc", memo);
  CHECK(changed != first);
  CHECK(toolDigest(dir + "/c/bin/nvcc", memo) != first);
  CHECK(filesIn(memo).size() == 3);

  // The memo is what the second lookup reads: the tool is not hashed again while it is unchanged.
  llvm::sys::fs::remove_directories(memo);
  CHECK(toolDigest(dir + "/a/bin/nvcc", memo) == first);
  std::vector<std::string> memos = filesIn(memo);
  REQUIRE(memos.size() == 1);
  std::string remembered = readText(memos[0]);
  REQUIRE(remembered.size() == 32);
  // Another hash in the memo's own format is believed, so the memo is what keys the tool.
  std::string other = remembered;
  other[0] = other[0] == 'a' ? 'b' : 'a';
  REQUIRE(!writeFile(memos[0], other, 0600));
  CHECK(toolDigest(dir + "/a/bin/nvcc", memo) != first);
  REQUIRE(!writeFile(memos[0], remembered, 0600));
  CHECK(toolDigest(dir + "/a/bin/nvcc", memo) == first);
  // A damaged memo is not believed: the tool is hashed again.
  REQUIRE(!writeFile(memos[0], "not a hash", 0600));
  CHECK(toolDigest(dir + "/a/bin/nvcc", memo) == first);
}

TEST_CASE("under a base folder paths are relative to the working folder, others stay absolute",
          "[cache][relocation]") {
  std::string base = scratchDir("relocation-paths");
  REQUIRE(!llvm::sys::fs::create_directories(base + "/src/include"));
  writeTool(base + "/src/include/k.cuh", "// a header\n");

  auto relocation = PathRelocation::create(base);
  REQUIRE_EXPECTED(relocation);
  std::string header = base + "/src/include/k.cuh";
  std::string relative = relocation->path(header);
  CHECK(!llvm::sys::path::is_absolute(relative));
  CHECK(llvm::sys::fs::equivalent(relative, header)); // resolved against the working folder
  CHECK(relocation->path("/usr/include/stdio.h") == "/usr/include/stdio.h");
  CHECK(relocation->path("relative/as/given") == "relative/as/given");
  CHECK(relocation->argument("-I" + base + "/src/include") ==
        "-I" + relocation->path(base + "/src/include"));
  CHECK(relocation->argument("--include-path=" + base + "/src") ==
        "--include-path=" + relocation->path(base + "/src"));
  // A path in a macro's value may be in the outputs: it stays as it is.
  CHECK(relocation->argument("-DDATA=" + base + "/src") == "-DDATA=" + base + "/src");
  CHECK(relocation->argument("-O2") == "-O2");

  // The toolkit's files are "<cuda>/...", resolved against the toolkit of the build that looks,
  // even inside the base folder.
  REQUIRE(!llvm::sys::fs::create_directories(base + "/cuda/include"));
  writeTool(base + "/cuda/include/cuda.h", "// the toolkit's\n");
  relocation->setToolkit(base + "/cuda");
  CHECK(relocation->path(base + "/cuda/include/cuda.h") == "<cuda>/include/cuda.h");
  CHECK(relocation->path(base + "/cuda") == "<cuda>");
  CHECK(relocation->resolve("<cuda>/include/cuda.h") == base + "/cuda/include/cuda.h");
  CHECK(relocation->resolve("<cuda>") == base + "/cuda");
  CHECK(relocation->path(header) == relative); // the rest as before
  CHECK(relocation->resolve(relative) == relative);
  PathRelocation toolkitOnly;
  toolkitOnly.setToolkit(base + "/cuda");
  CHECK(toolkitOnly.path(base + "/cuda/include/cuda.h") == "<cuda>/include/cuda.h");
  CHECK(toolkitOnly.path(header) == header); // no base folder: absolute
  CHECK(toolkitOnly.argument("-I" + base + "/cuda/include") == "-I<cuda>/include");

  // Folders' real paths are looked up once; a file that is a link is still where it points,
  // though its folder is known, and a folder reached through a link is where that points.
  REQUIRE(
      !llvm::sys::fs::create_link(base + "/cuda/include/cuda.h", base + "/src/include/linked.cuh"));
  REQUIRE(!llvm::sys::fs::create_link(base + "/cuda/include", base + "/alias"));
  CHECK(relocation->path(header) == relative); // src/include is known now
  CHECK(relocation->path(base + "/src/include/linked.cuh") == "<cuda>/include/cuda.h");
  CHECK(relocation->path(base + "/alias/cuda.h") == "<cuda>/include/cuda.h");
  CHECK(relocation->path(base + "/src/include/../include/k.cuh") == relative);
  PathRelocation copy = *relocation; // a copy agrees
  CHECK(copy.path(base + "/src/include/linked.cuh") == "<cuda>/include/cuda.h");

  // No base folder relocates nothing; one that is not a folder is an error.
  CHECK(PathRelocation().path(header) == header);
  auto missing = PathRelocation::create(base + "/missing");
  REQUIRE(!missing);
  CHECK_THAT(summarize(missing.takeError()).message, Contains("base folder"));
}

namespace {

// samples/multi_file as a checkout would hold it: sources in src/, the header in include/, and
// an empty build/ folder that tlc runs in.
std::vector<std::string> checkout(const std::string& dir) {
  for (const char* folder : {"/src", "/include", "/build"})
    REQUIRE(!llvm::sys::fs::create_directories(dir + folder));
  for (const char* file : {"filter.cu", "activate.cu"})
    REQUIRE(
        !llvm::sys::fs::copy_file(sample(std::string("multi_file/") + file), dir + "/src/" + file));
  REQUIRE(!llvm::sys::fs::copy_file(sample("multi_file/common.cuh"), dir + "/include/common.cuh"));
  return {"build",
          dir + "/src/filter.cu",
          dir + "/src/activate.cu",
          "--name",
          "mf",
          "-I",
          dir + "/include",
          "-o",
          dir + "/out"}; // -o last
}

// `tlc ARGS` from `dir`/build, with the test's cache and `env`.
ToolRun buildIn(const std::string& dir, const std::vector<std::string>& args,
                const std::vector<std::string>& env) {
  std::vector<std::string> argv = {TLC_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.separateErrors = true;
  options.workingDir = dir + "/build";
  std::vector<std::string> overrides = {"TLC_REMOTE_STORAGE", "TLC_BASE_DIR"};
  overrides.insert(overrides.end(), env.begin(), env.end());
  options.environment = environmentWith(overrides);
  auto result = runCommand(argv, options);
  REQUIRE_EXPECTED(result);
  return {result->exitCode, result->output, result->errors};
}

std::vector<std::string> with(std::vector<std::string> args,
                              std::initializer_list<std::string> more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

} // namespace

TEST_CASE("the same module in two checkouts under one base folder hits one cache",
          "[cache][relocation]") {
  std::string base = scratchDir("relocation-checkouts");
  std::string cache = scratchDir("relocation-cache");
  std::string one = base + "/one", two = base + "/deeper/two";
  std::vector<std::string> first = checkout(one), second = checkout(two);
  std::vector<std::string> env = {"TLC_CACHE_DIR=" + cache, "TLC_BASE_DIR=" + base};

  ToolRun cold = buildIn(one, first, env);
  INFO(cold.err);
  REQUIRE(cold.exitCode == 0);
  CHECK_THAT(cold.err, !Contains("cached"));

  // The other checkout: a hit, with the same bytes, and a depfile naming its own files.
  ToolRun hit = buildIn(two, with(second, {"-v", "--depfile", two + "/mf.d"}), env);
  INFO(hit.err);
  REQUIRE(hit.exitCode == 0);
  CHECK_THAT(hit.err, Contains("cached mf"));
  CHECK_THAT(hit.err, !Contains("nvcc"));
  for (const char* file : {"mf.fatbin", "libmf.so", "mf.h", "mf.json"}) {
    INFO(file);
    CHECK(readText(one + "/out/" + file) == readText(two + "/out/" + file));
  }
  CHECK_THAT(readText(two + "/out/mf.json"), !Contains(base));
  CHECK_THAT(readText(two + "/out/mf.json"), Contains("\"../include/common.cuh\""));
  // A build of the second checkout writes the very same bytes: the hit stood for it.
  std::vector<std::string> elsewhere(second.begin(), second.end() - 2); // without -o
  ToolRun fresh = buildIn(two, with(elsewhere, {"-o", two + "/fresh", "--no-cache"}), env);
  INFO(fresh.err);
  REQUIRE(fresh.exitCode == 0);
  for (const char* file : {"mf.fatbin", "libmf.so", "mf.h", "mf.json"}) {
    INFO(file);
    CHECK(readText(two + "/fresh/" + file) == readText(two + "/out/" + file));
  }
  CHECK(runTlc({"verify", two + "/out"}).exitCode == 0);
  std::string depfile = readText(two + "/mf.d");
  for (const std::string& file :
       {two + "/src/filter.cu", two + "/src/activate.cu", two + "/include/common.cuh"})
    CHECK_THAT(depfile, Contains(" " + file));
  CHECK_THAT(depfile, !Contains(one + "/"));
  CHECK_THAT(depfile, Contains("launcher.cpp.mustache")); // outside the base: as it was

  // Without a base folder (the default, as ccache's) paths are absolute: the other checkout
  // misses. --base-dir wins over TLC_BASE_DIR, and "" turns it off.
  ToolRun absolute = buildIn(two, second, {"TLC_CACHE_DIR=" + cache});
  REQUIRE(absolute.exitCode == 0);
  CHECK_THAT(absolute.err, !Contains("cached"));
  ToolRun off = buildIn(one, with(first, {"--base-dir", ""}), env);
  REQUIRE(off.exitCode == 0);
  CHECK_THAT(off.err, !Contains("cached"));
  ToolRun byOption = buildIn(two, with(second, {"--base-dir", base}),
                             {"TLC_CACHE_DIR=" + cache, "TLC_BASE_DIR=" + base + "/missing"});
  INFO(byOption.err);
  REQUIRE(byOption.exitCode == 0);
  CHECK_THAT(byOption.err, Contains("cached mf"));

  // An edited header in the second checkout is no false hit; the first one still hits.
  std::ofstream(two + "/include/common.cuh", std::ios::app) << "// edited\n#define EDITED 1\n";
  ToolRun edited = buildIn(two, second, env);
  REQUIRE(edited.exitCode == 0);
  CHECK_THAT(edited.err, !Contains("cached"));
  ToolRun again = buildIn(one, first, env);
  REQUIRE(again.exitCode == 0);
  CHECK_THAT(again.err, Contains("cached mf"));
}

TEST_CASE("a copy of the toolkit elsewhere hits the cache, one with another header misses",
          "[cache][relocation]") {
  std::string dir = scratchDir("relocation-toolkit");
  std::string cache = scratchDir("relocation-toolkit-cache");
  std::string copy = dir + "/copied-cuda";
  std::string original = copyToolkit(copy);
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/build"));
  // One file, compiled whole-program: its outputs hold no path of the toolkit. (A device link's
  // image notes nvlink's command line, which names the toolkit's library folder: a hit from a
  // copy carries the original's there, docs/team-cache.md.)
  std::vector<std::string> env = {"TLC_CACHE_DIR=" + cache};
  auto build = [&](const std::string& toolkit, const std::string& out,
                   std::initializer_list<std::string> more) {
    std::vector<std::string> args = {"build", sample("vadd/vadd.cu"), "--cuda-path", toolkit,
                                     "-o",    dir + "/" + out};
    ToolRun run = buildIn(dir, with(args, more), env);
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    return run.err;
  };

  CHECK_THAT(build(original, "cold", {}), !Contains("cached"));
  // The copy: a hit, whose depfile names the copy's headers.
  CHECK_THAT(build(copy, "hit", {"--depfile", dir + "/hit.d"}), Contains("cached vadd"));
  std::string depfile = readText(dir + "/hit.d");
  CHECK_THAT(depfile, Contains(" " + copy + "/include/cuda_runtime.h"));
  CHECK_THAT(depfile, !Contains(original + "/"));

  // What the copy builds itself is what the hit gave, byte for byte, the manifest included: its
  // commands name the toolkit by what it is, "<cuda>", not where it is.
  CHECK_THAT(build(copy, "fresh", {"--no-cache"}), !Contains("cached"));
  for (const char* file : {"vadd.fatbin", "libvadd.so", "vadd.h", "vadd.json"}) {
    INFO(file);
    CHECK(readText(dir + "/fresh/" + file) == readText(dir + "/hit/" + file));
  }
  CHECK_THAT(readText(dir + "/fresh/vadd.json"), Contains("<cuda>/bin/nvcc"));

  // A header of the copy that differs: a miss; the original still hits.
  std::ofstream(copy + "/include/cuda_runtime_api.h", std::ios::app) << "\n// patched\n";
  CHECK_THAT(build(copy, "patched", {}), !Contains("cached"));
  CHECK_THAT(build(original, "again", {}), Contains("cached vadd"));
}
