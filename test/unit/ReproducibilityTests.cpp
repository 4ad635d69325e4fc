// Byte-identical builds: the same inputs give the same outputs one build after another, into
// other folders, from another checkout under one --base-dir, with static and anonymous-namespace
// kernels (whose device symbols nvcc derives from the compiled file's path) and with -lineinfo;
// and the image is the one nvcc itself builds from the original file with the same flags.
#include "TestSupport.h"

#include "support/Files.h"
#include "support/Process.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <map>
#include <vector>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

// A checkout: the fixture's src/ and include/ copied into `dir`.
void checkOut(const std::string& dir) {
  for (const char* file : {"src/mixed.cu", "src/other.cu", "include/params.h"}) {
    std::string to = dir + "/" + file;
    REQUIRE(!llvm::sys::fs::create_directories(llvm::sys::path::parent_path(to)));
    REQUIRE(!llvm::sys::fs::copy_file(fixture(std::string("reproducible/") + file), to));
  }
}

// tlc run from `dir`, as a build system runs it from its build folder.
void buildIn(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {TLC_BINARY, "build"});
  args.insert(args.end(), {"--no-cache", "-q"});
  RunOptions options;
  options.workingDir = dir;
  options.environment = environmentWith({"TLC_BASE_DIR", "TLC_REMOTE_STORAGE"});
  auto run = runCommand(args, options);
  REQUIRE_EXPECTED(run);
  INFO(run->output);
  REQUIRE(run->exitCode == 0);
}

// Every file under `dir`, by its path there.
std::map<std::string, std::string> filesIn(const std::string& dir) {
  std::map<std::string, std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      files[it->path().substr(dir.size() + 1)] = readText(it->path());
  REQUIRE(!ec);
  REQUIRE(!files.empty());
  return files;
}

void checkSame(const std::string& a, const std::string& b) {
  std::map<std::string, std::string> first = filesIn(a), second = filesIn(b);
  for (const auto& [name, bytes] : first) {
    INFO(a << " vs " << b << ": " << name);
    REQUIRE(second.count(name));
    CHECK(bytes == second[name]);
  }
  CHECK(first.size() == second.size());
}

// The toolkit's folder, as configured and with links resolved (nvlink records the library
// folders it searched in the image's tool-info note).
std::vector<std::string> toolkitFolders() {
  std::string root = llvm::sys::path::parent_path(llvm::sys::path::parent_path(TLC_NVCC)).str();
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(root, real))
    return {root};
  return {root, real.str().str()};
}

// No output names a folder of this machine: the checkout, the scratch folder, a work folder,
// the toolkit.
void checkNoPaths(const std::string& out, const std::string& checkout) {
  const std::vector<std::string> toolkits = toolkitFolders();
  for (const auto& [name, bytes] : filesIn(out)) {
    INFO(name);
    CHECK_THAT(bytes, !Contains(checkout) && !Contains(TLC_TEST_SCRATCH_DIR) &&
                          !Contains("tlc-build-") && !Contains(TLC_SOURCE_DIR));
    for (const std::string& toolkit : toolkits)
      CHECK_THAT(bytes, !Contains(toolkit + "/"));
  }
}

} // namespace

TEST_CASE("static and anonymous-namespace kernels build byte-identical outputs everywhere",
          "[buildsystem][reproducible]") {
  std::string root = scratchDir("reproducible-static");
  std::string a = root + "/a", b = root + "/b";
  checkOut(a);
  checkOut(b);
  for (const std::vector<std::string>& inputs :
       {std::vector<std::string>{"src/mixed.cu"},
        std::vector<std::string>{"src/mixed.cu", "src/other.cu"}}) {
    std::vector<std::string> args = inputs;
    args.insert(args.end(), {"--name", "mixed", "-I", "include", "--arch", "sm_90a"});
    auto into = [&](std::vector<std::string> more, const std::string& out) {
      more.insert(more.begin(), args.begin(), args.end());
      more.insert(more.end(), {"-o", out});
      return more;
    };
    INFO(inputs.size() << " input(s)");
    buildIn(a, into({}, "out1"));
    buildIn(a, into({}, "elsewhere/out2"));
    checkSame(a + "/out1", a + "/elsewhere/out2");
    checkNoPaths(a + "/out1", a);
    // Another checkout at another path: under one base folder, the same bytes.
    buildIn(a, into({"--base-dir", root}, "based"));
    buildIn(b, into({"--base-dir", root}, "based"));
    checkSame(a + "/based", b + "/based");
  }
}

TEST_CASE("images with -lineinfo are reproducible and their line tables name the real sources",
          "[buildsystem][reproducible]") {
  std::string root = scratchDir("reproducible-lineinfo");
  checkOut(root);
  for (const char* out : {"out1", "out2"})
    buildIn(root, {"src/mixed.cu", "-I", "include", "--arch", "sm_90a", "-Xnvcc", "-lineinfo", "-o",
                   out});
  checkSame(root + "/out1", root + "/out2");
  std::string image = readText(root + "/out1/mixed.fatbin");
  // The line table's folder is the source's own, which profilers and debuggers open; no name of
  // tlc's work folder is anywhere.
  CHECK_THAT(image, Contains(absolutePath(root + "/src")));
  CHECK_THAT(image, !Contains("tlc-build-"));
}

TEST_CASE("the image is the one nvcc builds from the original file with the same flags",
          "[buildsystem][reproducible]") {
  std::string root = scratchDir("reproducible-nvcc");
  checkOut(root);
  buildIn(root, {"src/mixed.cu", "-I", "include", "--arch", "sm_90a", "-o", "out"});
  // What tlc gives nvcc, on the original file: its folder first on the include path (tlc
  // compiles a copy), tlc's annotations, and tlc's defaults.
  RunOptions options;
  options.workingDir = root;
  auto nvcc = runCommand({TLC_NVCC, "-fatbin", "--no-compress",
                          "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]", "-Isrc", "-O3",
                          "-std=c++17", "-Iinclude", std::string("-I") + TLC_STAGED_INCLUDE_DIR,
                          "src/mixed.cu", "-o", "nvcc.fatbin"},
                         options);
  REQUIRE_EXPECTED(nvcc);
  INFO(nvcc->output);
  REQUIRE(nvcc->exitCode == 0);
  CHECK(readText(root + "/out/mixed.fatbin") == readText(root + "/nvcc.fatbin"));
}
