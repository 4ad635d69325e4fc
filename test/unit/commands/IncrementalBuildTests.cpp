// commands/Build: each input's nvcc compile is cached by itself (commands/BuildCaching.h), so that
// editing one file of three runs nvcc on that file alone, and the device link (issue 37); the
// launcher's compile is cached by what it is compiled from, so an edit that leaves the kernels'
// signatures alone does not compile it again. The
// build runs its steps through a CommandRunner that records each command and starts the real
// tool, as the conductor's tests drive the build through a fake one.
#include "BuildSupport.h"
#include "TestSupport.h"

#include "builder/BuildKey.h"
#include "cache/Cache.h"
#include "cache/TieredCache.h"
#include "commands/Build.h"
#include "commands/BuildCaching.h"
#include "commands/CommandLine.h"
#include "support/Files.h"
#include "support/InstallLayout.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

// Starts the real tools, recording what it runs.
class RecordingTools : public CommandRunner {
public:
  llvm::Expected<CommandResult> run(llvm::ArrayRef<std::string> argv,
                                    const RunOptions& options) const override {
    {
      std::lock_guard<std::mutex> lock(Mutex);
      Commands.push_back(argv.vec());
    }
    return processRunner().run(argv, options);
  }

  // The inputs nvcc compiled (relocatable compiles: `-rdc=true`), by their staged file names,
  // sorted: independent compiles run in parallel, in any order.
  std::vector<std::string> compiled() const {
    std::vector<std::string> inputs;
    for (const std::vector<std::string>& argv : Commands) {
      bool nvcc = llvm::StringRef(argv.front()).ends_with("/nvcc");
      bool rdc = std::find(argv.begin(), argv.end(), "-rdc=true") != argv.end();
      if (nvcc && rdc)
        for (const std::string& arg : argv) // the input itself, not the flags naming it
          if (llvm::StringRef(arg).ends_with(".cu") && !llvm::StringRef(arg).starts_with("-"))
            inputs.push_back(std::string(llvm::sys::path::filename(arg)));
    }
    std::sort(inputs.begin(), inputs.end());
    return inputs;
  }

  size_t deviceLinks() const {
    size_t links = 0;
    for (const std::vector<std::string>& argv : Commands)
      links += std::find(argv.begin(), argv.end(), "-dlink") != argv.end();
    return links;
  }

  // The host compiler's runs on the launcher (`c++ -c NAME_launcher.cpp`).
  size_t launcherCompiles() const {
    size_t compiles = 0;
    for (const std::vector<std::string>& argv : Commands)
      compiles += std::find(argv.begin(), argv.end(), "-c") != argv.end() &&
                  std::any_of(argv.begin(), argv.end(), [](const std::string& arg) {
                    return llvm::StringRef(arg).ends_with("_launcher.cpp");
                  });
    return compiles;
  }

  void clear() { Commands.clear(); }

  mutable std::mutex Mutex;
  mutable std::vector<std::vector<std::string>> Commands;
};

void requireOk(llvm::Error error) {
  if (error)
    FAIL(summarize(std::move(error)).message);
}

} // namespace

TEST_CASE("editing one file of three runs nvcc on that file alone", "[conductor]") {
  std::string dir = scratchDir("incremental-one-of-three");
  REQUIRE(!writeFile(dir + "/common.h", "#define SCALE 2\n"));
  REQUIRE(!writeFile(dir + "/only_a.h", "#define OFFSET 1\n"));
  REQUIRE(!writeFile(dir + "/a.cu", "#include \"common.h\"\n#include \"only_a.h\"\n"
                                    "__global__ void ka(float* x) { x[0] *= SCALE + OFFSET; }\n"));
  REQUIRE(!writeFile(dir + "/b.cu",
                     "#include \"common.h\"\n__global__ void kb(float* x) { x[0] *= SCALE; }\n"));
  REQUIRE(!writeFile(dir + "/c.cu", "__global__ void kc(float* x) { x[0] = 3; }\n"));
  std::string cache = dir + "/cache";
  RecordingTools tools;
  std::vector<std::string> args = {dir + "/a.cu",
                                   dir + "/b.cu",
                                   dir + "/c.cu",
                                   "--name",
                                   "m",
                                   "--gencode",
                                   "arch=compute_90a,code=sm_90a",
                                   "-o",
                                   dir + "/out",
                                   "-q"};
  auto build = [&] {
    tools.clear();
    requireOk(buildAndPublish(buildOptions(args), {&tools, cache}));
  };

  build(); // cold: every input
  CHECK(tools.compiled() == std::vector<std::string>{"a.cu", "b.cu", "c.cu"});
  CHECK(tools.deviceLinks() == 1);

  build(); // no change: the module's one hit, no tool at all
  CHECK(tools.Commands.empty());

  REQUIRE(!writeFile(dir + "/b.cu", readText(dir + "/b.cu") + "// edited\n"));
  build();
  CHECK(tools.compiled() == std::vector<std::string>{"b.cu"});
  CHECK(tools.deviceLinks() == 1);

  // A header one input includes: that input; one they share: both that read it.
  REQUIRE(!writeFile(dir + "/only_a.h", "#define OFFSET 2\n"));
  build();
  CHECK(tools.compiled() == std::vector<std::string>{"a.cu"});
  REQUIRE(!writeFile(dir + "/common.h", "#define SCALE 3\n"));
  build();
  std::vector<std::string> compiled = tools.compiled();
  std::sort(compiled.begin(), compiled.end());
  CHECK(compiled == std::vector<std::string>{"a.cu", "b.cu"});

  // An edit undone finds each compile, and the module, where the first build left them.
  REQUIRE(!writeFile(dir + "/common.h", "#define SCALE 2\n"));
  REQUIRE(!writeFile(dir + "/only_a.h", "#define OFFSET 1\n"));
  REQUIRE(!writeFile(dir + "/b.cu", "#include \"common.h\"\n"
                                    "__global__ void kb(float* x) { x[0] *= SCALE; }\n"));
  build();
  CHECK(tools.Commands.empty());
}

// The inputs whose parse a `tlc build -v` took from the cache ("cached: parse FILE"), sorted.
std::vector<std::string> parsesRestored(const std::string& messages) {
  std::vector<std::string> inputs;
  llvm::SmallVector<llvm::StringRef, 16> lines;
  llvm::StringRef(messages).split(lines, '\n');
  for (llvm::StringRef line : lines)
    if (line.consume_front("tlc: note: cached: parse "))
      inputs.push_back(llvm::sys::path::filename(line).str());
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

TEST_CASE("editing one file of three parses that file alone", "[conductor]") {
  std::string dir = scratchDir("incremental-parses");
  REQUIRE(!writeFile(dir + "/common.h", "#define SCALE 2\n"));
  REQUIRE(!writeFile(dir + "/only_a.h", "#define OFFSET 1\n"));
  REQUIRE(!writeFile(dir + "/a.cu", "#include \"common.h\"\n#include \"only_a.h\"\n"
                                    "__global__ void ka(float* x) { x[0] *= SCALE + OFFSET; }\n"));
  REQUIRE(!writeFile(dir + "/b.cu", "#include \"common.h\"\n"
                                    "struct Scale { float by; };\n"
                                    "__global__ void kb(float* x, Scale s) { x[0] *= s.by; }\n"));
  REQUIRE(!writeFile(dir + "/c.cu", "__global__ void kc(float* x) { x[0] = 3; }\n"));
  auto build = [&](const std::string& cache, const std::string& out) {
    ToolRun run = runTlc({"build", dir + "/a.cu", dir + "/b.cu", dir + "/c.cu", "--name", "m",
                          "--gencode", "arch=compute_90a,code=sm_90a", "-o", dir + "/" + out, "-v"},
                         {"TLC_CACHE_DIR=" + dir + "/" + cache});
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    return parsesRestored(run.err);
  };
  using Names = std::vector<std::string>;
  CHECK(build("cache", "out") == Names{}); // cold: every input parsed
  REQUIRE(!writeFile(dir + "/b.cu", readText(dir + "/b.cu") + "// edited\n"));
  CHECK(build("cache", "out") == Names{"a.cu", "c.cu"});
  // A header one input includes: that input parsed again; one two include: both.
  REQUIRE(!writeFile(dir + "/only_a.h", "#define OFFSET 2\n"));
  CHECK(build("cache", "out") == Names{"b.cu", "c.cu"});
  REQUIRE(!writeFile(dir + "/common.h", "#define SCALE 3\n"));
  CHECK(build("cache", "out") == Names{"c.cu"});
  // An edit of a kernel's parameters, whose parse is restored for the others: the launchers are
  // those of a build that parsed everything.
  REQUIRE(!writeFile(dir + "/c.cu", "__global__ void kc(float* x, int n) { x[0] = n; }\n"));
  CHECK(build("cache", "out") == Names{"a.cu", "b.cu"});
  CHECK(build("fresh-cache", "fresh") == Names{});
  CHECK(readText(dir + "/out/m.h") == readText(dir + "/fresh/m.h"));
  CHECK(readText(dir + "/out/m.cubin") == readText(dir + "/fresh/m.cubin"));
}

TEST_CASE("a parse is not kept when a file it read changed while it ran", "[conductor]") {
  std::string dir = scratchDir("incremental-parse-race");
  std::string input = dir + "/a.cu", header = dir + "/h.h";
  REQUIRE(!writeFile(input, "#include \"h.h\"\n__global__ void ka(elem_t* x) { x[0] = 1; }\n"));
  REQUIRE(!writeFile(header, "typedef float elem_t;\n"));
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/work"));
  auto local = BuildCache::open(dir + "/cache");
  REQUIRE_EXPECTED(local);
  TieredCache cache(*local, nullptr);
  PathRelocation relocation;
  std::mutex mutex;
  CachedParses store(cache, relocation, dir + "/work", mutex, false);
  ParseStore::Kept parse; // what a parse of the files as first written found
  parse.facts.input = input;
  parse.facts.filesRead = {input, header};
  auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); };

  settle();
  CHECK(!store.find(input, "identity"));
  REQUIRE(!writeFile(header, "typedef double elem_t;\n")); // while the parse ran
  store.keep(input, "identity", parse);
  settle();
  CHECK(!store.find(input, "identity")); // it would say float, of a header that says double

  store.keep(input, "identity", parse); // nothing changed since this lookup: kept
  settle();
  auto kept = store.find(input, "identity");
  REQUIRE(kept);
  CHECK(kept->facts.filesRead == parse.facts.filesRead);
  // The entries' files passed through the work folder and are gone from it.
  std::error_code error;
  llvm::sys::fs::directory_iterator left(dir + "/work", error);
  CHECK(!error);
  CHECK(left == llvm::sys::fs::directory_iterator());
}

TEST_CASE("a header found through CPATH is keyed by the folders CPATH names", "[conductor]") {
  // nvcc's host compiler and Clang both search CPATH's folders: the same flags and files with
  // another CPATH find another header, which no entry's dependencies name.
  std::string dir = scratchDir("incremental-cpath");
  for (const char* folder : {"/one", "/two"})
    REQUIRE(!llvm::sys::fs::create_directories(dir + folder));
  REQUIRE(!writeFile(dir + "/one/elem.h", "typedef float elem_t;\n"));
  REQUIRE(!writeFile(dir + "/two/elem.h", "typedef double elem_t;\n"));
  REQUIRE(!writeFile(dir + "/a.cu", "#include <elem.h>\n"
                                    "__global__ void ka(elem_t* x) { x[0] = 1; }\n"));
  REQUIRE(!writeFile(dir + "/b.cu", "__global__ void kb(float* x) { x[0] = 2; }\n"));
  auto build = [&](const std::string& folder, const std::string& out) {
    ToolRun run = runTlc({"build", dir + "/a.cu", dir + "/b.cu", "--name", "m", "--gencode",
                          "arch=compute_90a,code=sm_90a", "-o", dir + "/" + out, "-v"},
                         {"TLC_CACHE_DIR=" + dir + "/cache", "CPATH=" + dir + folder});
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    return run.err;
  };
  CHECK_THAT(build("/one", "out-one"), !Contains("cached"));
  CHECK_THAT(readText(dir + "/out-one/m.h"), Contains("m_ka(const tlc_config* config, float* x)"));
  std::string two = build("/two", "out-two");
  CHECK_THAT(two, !Contains("cached"));
  CHECK_THAT(readText(dir + "/out-two/m.h"), Contains("m_ka(const tlc_config* config, double* x)"));
  CHECK_THAT(build("/one", "out-again"), Contains("cached m"));
}

TEST_CASE("a compile restored from the cache gives the same image as nvcc", "[conductor]") {
  std::string dir = scratchDir("incremental-same-image");
  for (const char* name : {"a", "b"})
    REQUIRE(!writeFile(dir + "/" + name + ".cu",
                       std::string("__global__ void k") + name + "(int* p) { *p = 1; }\n"));
  RecordingTools tools;
  auto build = [&](const std::string& out, const std::string& cache) {
    requireOk(
        buildAndPublish(buildOptions({dir + "/a.cu", dir + "/b.cu", "--name", "m", "--gencode",
                                      "arch=compute_90a,code=sm_90a", "-o", dir + "/" + out, "-q"}),
                        {&tools, dir + "/" + cache}));
  };
  build("cold", "cache");
  REQUIRE(!writeFile(dir + "/b.cu", readText(dir + "/b.cu") + "// edited\n"));
  build("incremental", "cache"); // a.cu's compile restored
  build("fresh", "empty-cache");
  CHECK(readText(dir + "/incremental/m.cubin") == readText(dir + "/fresh/m.cubin"));
  CHECK(readText(dir + "/incremental/libm.so") == readText(dir + "/fresh/libm.so"));
}

TEST_CASE("the launcher compiles again only when what it is compiled from changed", "[conductor]") {
  std::string dir = scratchDir("incremental-launcher");
  // tlc's own headers, which the launcher includes, in a copy this test may edit.
  std::string include = dir + "/tlc-include";
  std::filesystem::copy(installLayoutOf(TLC_BINARY).includeDir(), include,
                        std::filesystem::copy_options::recursive);
  REQUIRE(!writeFile(dir + "/a.cu", "__global__ void ka(float* x) { x[0] = 1; }\n"));
  REQUIRE(!writeFile(dir + "/b.cu", "__global__ void kb(float* x, int n) { x[0] = n; }\n"));
  RecordingTools tools;
  auto build = [&](std::vector<std::string> inputs) {
    tools.clear();
    for (const char* arg : {"--name", "m", "--gencode", "arch=compute_90a,code=sm_90a", "-o"})
      inputs.push_back(arg);
    inputs.push_back(dir + "/out");
    inputs.push_back("-q");
    BuildOptions options = buildOptions(inputs);
    options.sources.frontend.tlcIncludeDir = include;
    requireOk(buildAndPublish(options, {&tools, dir + "/cache"}));
  };
  auto edit = [&](const std::string& name, const std::string& text) {
    REQUIRE(!writeFile(dir + "/" + name, text));
  };
  std::vector<std::string> module = {dir + "/a.cu", dir + "/b.cu"};

  build(module);
  CHECK(tools.launcherCompiles() == 1);

  edit("b.cu", "__global__ void kb(float* x, int n) { x[0] = 2 * n; }\n"); // a body: restored
  build(module);
  CHECK(tools.compiled() == std::vector<std::string>{"b.cu"});
  CHECK(tools.launcherCompiles() == 0);

  edit("b.cu", "__global__ void kb(float* y, int count) { y[0] = 2 * count; }\n"); // its API
  build(module);
  CHECK(tools.launcherCompiles() == 1);

  // A header the launcher read, which no input reads, changed: the entry that lists it is stale.
  edit("tlc-include/tlc/runtime.h", readText(include + "/tlc/runtime.h") + "// edited\n");
  edit("b.cu", "__global__ void kb(float* y, int count) { y[0] = 3 * count; }\n");
  build(module);
  CHECK(tools.launcherCompiles() == 1);

  // One file, compiled whole-program, has no steps cached by themselves (its compile runs on
  // any edit): its cache entry is the module's alone.
  build({dir + "/a.cu"});
  CHECK(tools.launcherCompiles() == 1);
  edit("a.cu", "__global__ void ka(float* x) { x[0] = 2; }\n");
  build({dir + "/a.cu"});
  CHECK(tools.launcherCompiles() == 1);
}

TEST_CASE("the launcher's compile key holds each file it compiles and its command", "[conductor]") {
  std::string dir = scratchDir("launcher-step-key");
  std::string compiler = dir + "/c++";
  REQUIRE(!writeFile(compiler, "a compiler's bytes"));
  auto key = [&](const std::string& command, const std::string& source, const std::string& header) {
    return launcherStepCacheKey({compiler, command, source, header, dir + "/memo"});
  };
  std::string base = key("c++ -c m_launcher.cpp", "source-1", "header-1");
  CHECK(key("c++ -c m_launcher.cpp", "source-1", "header-1") == base);
  CHECK(key("c++ -c m_launcher.cpp", "source-2", "header-1") != base);
  CHECK(key("c++ -c m_launcher.cpp", "source-1", "header-2") != base);
  CHECK(key("c++ -O2 -c m_launcher.cpp", "source-1", "header-1") != base);
  REQUIRE(!writeFile(compiler, "another compiler's bytes"));
  CHECK(key("c++ -c m_launcher.cpp", "source-1", "header-1") != base);
}
