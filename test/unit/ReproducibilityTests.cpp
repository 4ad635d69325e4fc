// Byte-identical builds: the same inputs give the same outputs one build after another, into
// other folders, from another checkout under one --base-dir, with static and anonymous-namespace
// kernels (whose device symbols nvcc derives from the compiled file's path) and with -lineinfo;
// and the image is the one nvcc itself builds from the original file with the same flags. With
// -lineinfo and -G nvcc runs in the build's folder, the line tables name the real sources and
// headers from the compilation folder /proc/self/cwd, and copies in two folders agree.
#include "TestSupport.h"

#include "support/Files.h"
#include "support/Process.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
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
  // The line table names the source as typed, from the compilation folder /proc/self/cwd (nvcc
  // run in the build's folder by hand); no name of tlc's work folder is anywhere, nor the
  // build's own folder.
  CHECK_THAT(image, Contains("/proc/self/cwd/src"));
  CHECK_THAT(image, !Contains("tlc-build-") && !Contains(absolutePath(root)));
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

namespace {

// Three inputs sharing a header found through -I, as a project's are: the header's function
// is not inlined, so the line tables name the header; it uses the toolkit's cuda_fp16.h, so
// they name a toolkit header too.
// Writes `text` to `path`, modified at one fixed time: ptxas records the modification time of
// each file a line table names, so copies of a project build alike only when their files'
// times agree, as a checkout's need not (docs/internals.md).
void writeDated(const std::string& path, const std::string& text) {
  REQUIRE(!writeFile(path, text));
  int fd = -1;
  REQUIRE(!llvm::sys::fs::openFileForWrite(path, fd, llvm::sys::fs::CD_OpenExisting,
                                           llvm::sys::fs::OF_Append));
  auto fixed = std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
  REQUIRE(!llvm::sys::fs::setLastAccessAndModificationTime(fd, fixed));
  llvm::sys::fs::closeFile(fd);
}

void writeSharedHeaderProject(const std::string& dir, const std::string& includeFolder) {
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/src"));
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/" + includeFolder));
  writeDated(dir + "/" + includeFolder + "/common.cuh",
             "#pragma once\n#include <cuda_fp16.h>\n"
             "static __device__ __noinline__ float sum(float x, __half h) {\n"
             "  float s = __half2float(h);\n"
             "  for (int i = 0; i < (int)x; ++i)\n"
             "    s += i * x;\n"
             "  return s;\n"
             "}\n");
  for (const char* name : {"mixed", "twin_a", "twin_b"})
    writeDated(dir + "/src/" + name + ".cu",
               std::string("#include \"common.cuh\"\n__global__ void ") + name +
                   "(float* x, __half* h) { x[threadIdx.x] = sum(x[threadIdx.x], h[0]); }\n");
}

// Whether an image's bytes hold `text` (a failed check shows the call, not the bytes).
bool holds(const std::string& bytes, const std::string& text) {
  return bytes.find(text) != std::string::npos;
}

// The image's bytes: one cubin, or the fatbin.
std::string imageIn(const std::string& out, const std::string& name) {
  for (const char* extension : {".cubin", ".fatbin"})
    if (llvm::sys::fs::exists(out + "/" + name + extension))
      return readText(out + "/" + name + extension);
  FAIL("no image of " << name << " in " << out);
  return "";
}

} // namespace

// Each folder of the compilation folder /proc/self/cwd that `image` names, as it is in `dir`,
// where the build ran and where a debugger or profiler started there resolves it.
std::vector<std::string> foldersNamed(const std::string& image, const std::string& dir) {
  std::vector<std::string> folders;
  llvm::StringRef rest = image;
  for (size_t at; (at = rest.find("/proc/self/cwd")) != llvm::StringRef::npos;) {
    rest = rest.drop_front(at + strlen("/proc/self/cwd"));
    // A folder's name may hold a space; a quote or a control character ends the name.
    llvm::StringRef path = rest.take_while([](char c) { return c >= ' ' && c < 0x7f && c != '"'; });
    folders.push_back(dir + path.str());
  }
  return folders;
}

TEST_CASE("line tables under -lineinfo name headers as nvcc run in the build's folder does",
          "[buildsystem][reproducible]") {
  std::string root = scratchDir("lineinfo-header");
  writeSharedHeaderProject(root, "inc");
  buildIn(root,
          {"src/mixed.cu", "-I", "inc", "--arch", "sm_90a", "-Xnvcc", "-lineinfo", "-o", "out"});
  std::string image = imageIn(root + "/out", "mixed");
  // The header's folder and the source's as typed, under the compilation folder; the toolkit's
  // headers under the toolkit's own folder. No name of tlc's work folder, nor a link there.
  CHECK(holds(image, "/proc/self/cwd/inc"));
  CHECK(holds(image, "/proc/self/cwd/src"));
  bool toolkitNamed = false;
  for (const std::string& toolkit : toolkitFolders())
    toolkitNamed = toolkitNamed || holds(image, toolkit + "/bin/../targets/");
  CHECK(toolkitNamed);
  for (const std::string& work :
       {std::string("tlc-build-"), std::string("inc0"), absolutePath(root)})
    CHECK_FALSE(holds(image, work));
  // Every folder named is a real one, seen from where the build ran.
  std::vector<std::string> folders = foldersNamed(image, root);
  CHECK(folders.size() >= 2);
  for (const std::string& folder : folders) {
    INFO(folder);
    CHECK(llvm::sys::fs::exists(folder));
  }
}

TEST_CASE("copies of a project in two folders build byte-identical images with -lineinfo and -G",
          "[buildsystem][reproducible]") {
  // A module of three inputs (device-linked: cuda_fp16.h's static functions and the header's
  // get internal-linkage names) with an include folder, built in two checkouts.
  std::string a = scratchDir("lineinfo-two-folders-a"), b = scratchDir("lineinfo-two-folders-b");
  writeSharedHeaderProject(a, "inc");
  writeSharedHeaderProject(b, "inc");
  for (const char* flag : {"-lineinfo", "-G"}) {
    INFO(flag);
    std::string out = std::string("out") + flag;
    for (const std::string& dir : {a, b})
      buildIn(dir, {"src/mixed.cu", "src/twin_a.cu", "src/twin_b.cu", "--name", "mixed", "-I",
                    "inc", "--arch", "sm_90a", "-Xnvcc", flag, "-o", out});
    std::string image = imageIn(a + "/" + out, "mixed");
    CHECK(image == imageIn(b + "/" + out, "mixed"));
    CHECK(readText(a + "/" + out + "/libmixed.so") == readText(b + "/" + out + "/libmixed.so"));
    CHECK_FALSE(holds(image, a));
    for (const std::string& folder : foldersNamed(image, a)) {
      INFO(folder);
      CHECK(llvm::sys::fs::exists(folder));
    }
    // nvcc ran in the project's folder and wrote nothing there: -G's kept intermediates too.
    for (const std::string& dir : {a, b}) {
      std::error_code ec;
      std::vector<std::string> entries;
      for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
        entries.push_back(llvm::sys::path::filename(it->path()).str());
      std::sort(entries.begin(), entries.end());
      CHECK(entries.size() <= 4); // inc, src, out-lineinfo, out-G
      for (const std::string& entry : entries)
        CHECK((entry == "inc" || entry == "src" || llvm::StringRef(entry).starts_with("out-")));
    }
  }
}

TEST_CASE("three inputs sharing a header build byte-identical images with -lineinfo and -G",
          "[buildsystem][reproducible]") {
  std::string root = scratchDir("lineinfo-twins");
  writeSharedHeaderProject(root, "inc");
  for (const char* flag : {"-lineinfo", "-G"}) {
    INFO(flag);
    for (const char* out : {"out1", "out2"})
      buildIn(root, {"src/mixed.cu", "src/twin_a.cu", "src/twin_b.cu", "--name", "mixed", "-I",
                     "inc", "--arch", "sm_90a", "-Xnvcc", flag, "-o", std::string(out) + flag});
    std::string first = root + "/out1" + flag, second = root + "/out2" + flag;
    CHECK(readText(first + "/libmixed.so") == readText(second + "/libmixed.so"));
    CHECK(imageIn(first, "mixed") == imageIn(second, "mixed"));
    CHECK_FALSE(holds(imageIn(first, "mixed"), "tlc-build-"));
    CHECK_FALSE(holds(imageIn(first, "mixed"), "tmpxft"));
  }
  // Not tested: that an edit past a header's last line used leaves the image alone. It does not,
  // with nvcc's own builds either: ptxas records the size and modification time of every file
  // the line table names, read when it assembles (docs/internals.md).
}

// Builds the shared-header project in two folders (scratch names from `tag`) with the include
// folder `folder`, given by `includeFlags`, under -lineinfo: the images are the same, and their
// line tables name the folder from the compilation folder as typed, not through a link in the
// temporary work folder, which exists nowhere a debugger runs.
static void checkFolderNamedAsTyped(const std::string& tag, const std::string& folder,
                                    const std::vector<std::string>& includeFlags) {
  std::string a = scratchDir(tag + "-a"), b = scratchDir(tag + "-b");
  for (const std::string& dir : {a, b}) {
    writeSharedHeaderProject(dir, folder);
    std::vector<std::string> arguments = includeFlags;
    arguments.insert(arguments.end(),
                     {"src/mixed.cu", "--arch", "sm_90a", "-Xnvcc", "-lineinfo", "-o", "out"});
    buildIn(dir, arguments);
  }
  std::string image = imageIn(a + "/out", "mixed");
  CHECK(image == imageIn(b + "/out", "mixed"));
  CHECK(holds(image, "/proc/self/cwd/" + folder));
  for (const std::string& work : {std::string("tlc-build-"), std::string("inc0"), a})
    CHECK_FALSE(holds(image, work));
  for (const std::string& named : foldersNamed(image, a)) {
    INFO(named);
    CHECK(llvm::sys::fs::exists(named));
  }
}

TEST_CASE("an -I folder whose path holds a space is named as typed under -lineinfo, the same in "
          "two folders",
          "[buildsystem][reproducible]") {
  // nvcc puts an include folder in double quotes in each step it runs.
  checkFolderNamedAsTyped("lineinfo-space", "my headers", {"-I", "my headers"});
}

TEST_CASE("an -I folder whose path holds a '$' is named as typed under -lineinfo, the same in "
          "two folders",
          "[buildsystem][reproducible]") {
  // The last round's reproduction: `tlc build s.cu '-Ia$b' -lineinfo` in two copies of a project
  // built different images, the folder reached through a link in the work folder. nvcc writes
  // a '$' as \$ in the double quotes of its steps, so the folder is now given as typed.
  checkFolderNamedAsTyped("lineinfo-dollar", "a$b", {"-Ia$b"});
}

TEST_CASE("an include folder gcc would take from its sysroot is not given to nvcc as typed",
          "[buildsystem][hardening]") {
  // gcc reads `$SYSROOT` or '=' at the start of an include folder as its sysroot, nvcc's host
  // preprocessing included. Given as typed under -lineinfo, `-I '$SYSROOT/p/inc'` with a host
  // compiler whose sysroot is / read /p/inc/tile.h, not the folder named (an adversarial review
  // of the '$' change found it; the parse read the named one, so nothing said so).
  std::string dir = scratchDir("sysroot-folder");
  // (A leading '=' is not tried here: tlc reads `-I =x` as x, which gcc, given "=x" by nvcc,
  // reads too where no sysroot is set.)
  std::string folder = "$SYSROOT" + dir + "/inc"; // relative: a folder named so under `dir`
  writeSharedHeaderProject(dir, folder);
  // Where gcc would look with the sysroot /: a header that stops the build.
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/inc"));
  REQUIRE(!writeFile(dir + "/inc/common.cuh", "#error gcc read the folder under its sysroot\n"));
  buildIn(dir, {"src/mixed.cu", "-I", folder, "--arch", "sm_90a", "-Xnvcc", "-lineinfo", "-Xnvcc",
                "-Xcompiler=--sysroot=/", "-o", "out"});
}
