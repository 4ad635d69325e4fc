// commands/Build: each input's nvcc compile is cached by itself (commands/BuildCaching.h), so that
// editing one file of three runs nvcc on that file alone, and the device link (issue 37). The
// build runs its steps through a CommandRunner that records each command and starts the real
// tool, as the conductor's tests drive the build through a fake one.
#include "BuildSupport.h"
#include "TestSupport.h"

#include "commands/Build.h"
#include "commands/CommandLine.h"
#include "support/Files.h"
#include "support/InstallLayout.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>

using namespace tlc;
using namespace tlc::test;

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

  void clear() { Commands.clear(); }

  mutable std::mutex Mutex;
  mutable std::vector<std::vector<std::string>> Commands;
};

BuildOptions buildOptions(std::vector<std::string> args) {
  args.insert(args.begin(), "build");
  auto line = parseCommandLine(args);
  REQUIRE_EXPECTED(line);
  BuildOptions options = line->build;
  InstallLayout layout = installLayoutOf(TLC_BINARY);
  options.sources.frontend.tlcIncludeDir = layout.includeDir();
  options.sources.frontend.hostIncludeDir = hostCompilerIncludeDir();
  options.templateDir = layout.templatesDir();
  options.runtimeLibrary = layout.runtimeLibrary();
  options.pythonLibrary = layout.pythonLibrary();
  options.pythonHelpersDir = layout.pythonHelpersDir();
  return options;
}

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
