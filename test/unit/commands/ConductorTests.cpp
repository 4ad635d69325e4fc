// commands/Build: the conductor driven through a fake CommandRunner (commands/Build.h), so that no
// step of a build starts a process, as ninja's build_test.cc drives its Builder: the order of the
// steps, a failing nvcc stopping the build before anything is published, the relocatable retry
// after a device-side launch (and only then), and a cache hit that runs nothing. The parse is
// Clang's own, of a sample; nvcc's image is a real one, made once by the toolkit's nvcc, which
// the fake hands out as its output.
#include "BuildSupport.h"
#include "TestSupport.h"

#include "commands/Build.h"
#include "commands/CommandLine.h"
#include "support/Files.h"
#include "support/InstallLayout.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

bool isNvcc(const std::vector<std::string>& argv) {
  return llvm::StringRef(argv.front()).ends_with("/nvcc");
}

bool has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

// What a command writes: the argument after -o.
std::string outputOf(const std::vector<std::string>& argv) {
  auto o = std::find(argv.begin(), argv.end(), "-o");
  return o == argv.end() || o + 1 == argv.end() ? "" : *(o + 1);
}

// The tools of a build, faked: each command writes its output as the real tool would, nvcc's
// -cubin a copy of `cubin`, every other one a placeholder. `fails` picks the commands that fail
// instead, in the words of `failure` (with tlc's names for the user's files, as nvcc's own), once
// the parse has rendered the launcher.
// Records every command and, for each, whether the rendered NAME_image.S was in the work folder.
class FakeTools : public CommandRunner {
public:
  FakeTools(std::string cubin, std::string imageAssembly)
      : cubin(std::move(cubin)), imageAssembly(std::move(imageAssembly)) {}

  llvm::Expected<CommandResult> run(llvm::ArrayRef<std::string> args,
                                    const RunOptions& options) const override {
    std::vector<std::string> argv = args.vec();
    std::string rendered = options.workingDir + "/" + imageAssembly;
    bool failing = fails && fails(argv);
    // A real nvcc fails after the parse beside it has begun (and rendered the launcher), which
    // the retry after a device-side launch relies on; a fake one would fail before the plan
    // started the parse.
    for (int waited = 0; failing && !llvm::sys::fs::exists(rendered) && waited < 3000; ++waited)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::lock_guard<std::mutex> lock(Mutex);
    Commands.push_back(argv);
    Rendered.push_back(llvm::sys::fs::exists(rendered));
    CommandResult result;
    if (failing) {
      result.exitCode = 1;
      result.output = failure;
      return result;
    }
    std::string output = options.workingDir + "/" + outputOf(argv);
    llvm::Error made = isNvcc(argv) && has(argv, "-cubin")
                           ? copyFile(cubin, output)
                           : writeFile(output, "made by a fake " + argv.front());
    if (made)
      return made;
    return result;
  }

  std::vector<std::vector<std::string>> nvccRuns() const {
    std::vector<std::vector<std::string>> runs;
    for (const std::vector<std::string>& argv : Commands)
      if (isNvcc(argv))
        runs.push_back(argv);
    return runs;
  }

  std::string cubin;         // what nvcc -cubin makes
  std::string imageAssembly; // NAME_image.S: rendered before the link reads it
  std::function<bool(const std::vector<std::string>&)> fails; // none: every command succeeds
  std::string failure = "in0/vadd.cu(3): error: made to fail\n";
  mutable std::mutex Mutex;
  mutable std::vector<std::vector<std::string>> Commands;
  mutable std::vector<bool> Rendered;
};

// vadd's image for sm_90a as nvcc makes it, made once per process: CTest runs these tests as
// processes side by side, and scratchDir empties its folder, so each process has its own.
const std::string& vaddCubin() {
  static const std::string cubin = [] {
    std::string file =
        scratchDir("conductor-cubin-" + std::to_string(llvm::sys::Process::getProcessId())) +
        "/vadd.cubin";
    CommandResult made =
        run({TLC_NVCC, "-cubin", "-arch=sm_90a", sample("vadd/vadd.cu"), "-o", file});
    REQUIRE(made.exitCode == 0);
    return file;
  }();
  return cubin;
}

FakeTools vaddTools() {
  return FakeTools(vaddCubin(), "vadd_image.S");
}

llvm::Error build(const std::vector<std::string>& args, const FakeTools& tools,
                  const std::string& cacheDir = "") {
  return buildAndPublish(buildOptions(args), {&tools, cacheDir});
}

void requireOk(llvm::Error error) {
  if (error)
    FAIL(summarize(std::move(error)).message);
}

} // namespace

TEST_CASE("the conductor runs nvcc, then the launcher's compile, then the link over the rendered "
          "sources, and publishes what they made",
          "[conductor]") {
  std::string dir = scratchDir("conductor-order");
  FakeTools tools = vaddTools();
  requireOk(build({sample("vadd/vadd.cu"), "--gencode", "arch=compute_90a,code=sm_90a", "-o",
                   dir + "/out", "--no-cache", "-q"},
                  tools));
  REQUIRE(tools.Commands.size() == 3);
  // nvcc starts first; the parse, beside it, renders the launcher, which compiles meanwhile.
  CHECK(isNvcc(tools.Commands[0]));
  CHECK(has(tools.Commands[1], "vadd_launcher.cpp"));
  // The link comes last, after the image check rendered NAME_image.S, which embeds the image.
  CHECK(has(tools.Commands[2], "libvadd.so"));
  CHECK(tools.Rendered[2]);
  CHECK(listFolder(dir + "/out") ==
        std::set<std::string>{"libvadd.so", "vadd.cubin", "vadd.h", "vadd.json"});
  CHECK(readText(dir + "/out/vadd.cubin") == readText(vaddCubin()));
  CHECK(readText(dir + "/out/libvadd.so") == "made by a fake " + tools.Commands[2].front());
  nlohmann::json manifest = manifestOf(dir + "/out", "vadd");
  CHECK(manifest["commands"].size() == 3);
  // Nothing else is left beside OUTDIR: the staging folder went with the publish.
  CHECK(listFolder(dir) == std::set<std::string>{"out"});
}

TEST_CASE("a failing nvcc stops the build before the link and leaves no OUTDIR", "[conductor]") {
  std::string dir = scratchDir("conductor-nvcc-fails");
  FakeTools tools = vaddTools();
  tools.fails = isNvcc;
  ErrorSummary summary =
      summarize(build({sample("vadd/vadd.cu"), "--gencode", "arch=compute_90a,code=sm_90a", "-o",
                       dir + "/out", "--no-cache", "-q"},
                      tools));
  CHECK(summary.code == ExitCode::InputError);
  CHECK_THAT(summary.message, Contains("nvcc vadd.cu (sm_90a) failed (exit code 1)"));
  CHECK_THAT(summary.message, Contains("vadd.cu:3: error: made to fail"));
  // No device-side launch in vadd: nvcc ran once, and nothing after the image did.
  CHECK(tools.nvccRuns().size() == 1);
  for (const std::vector<std::string>& argv : tools.Commands)
    CHECK_FALSE(has(argv, "libvadd.so"));
  CHECK(listFolder(dir).empty());
}

TEST_CASE("a device-side launch that nvcc refuses whole-program is built again as relocatable "
          "code",
          "[conductor]") {
  std::string dir = scratchDir("conductor-relocatable");
  FakeTools tools = vaddTools();
  tools.imageAssembly = "dynamic_image.S";
  tools.fails = isNvcc;
  tools.failure = "in0/dynamic.cu(7): error: kernel launch from __device__ or __global__ "
                  "functions requires separate compilation mode\n";
  SECTION("planned whole-program: once more, with -rdc=true") {
    llvm::Error error =
        build({fixture("parity/dynamic.cu"), "--gencode", "arch=compute_90a,code=sm_90a", "-o",
               dir + "/out", "--no-cache", "-q"},
              tools);
    // The second try's failure is the build's.
    CHECK(summarize(std::move(error)).code == ExitCode::InputError);
    std::vector<std::vector<std::string>> runs = tools.nvccRuns();
    REQUIRE(runs.size() == 2);
    CHECK_FALSE(has(runs[0], "-rdc=true"));
    CHECK(has(runs[1], "-rdc=true"));
  }
  SECTION("relocatable already: no second try") {
    llvm::Error error =
        build({fixture("parity/dynamic.cu"), "--gencode", "arch=compute_90a,code=sm_90a",
               "-rdc=true", "-o", dir + "/out", "--no-cache", "-q"},
              tools);
    CHECK(summarize(std::move(error)).code == ExitCode::InputError);
    std::vector<std::vector<std::string>> runs = tools.nvccRuns();
    REQUIRE(runs.size() == 1);
    CHECK(has(runs[0], "-rdc=true"));
  }
  CHECK(listFolder(dir).empty());
}

TEST_CASE("a build found in the cache runs no command and publishes the cached outputs",
          "[conductor][cache]") {
  if (const char* disabled = std::getenv("TLC_DISABLE_CACHE"); disabled && *disabled) {
    WARN("TLC_DISABLE_CACHE is set: the cache is off, nothing to test");
    return;
  }
  std::string dir = scratchDir("conductor-cache");
  std::string cache = dir + "/cache";
  std::vector<std::string> args = {
      sample("vadd/vadd.cu"), "--gencode", "arch=compute_90a,code=sm_90a", "-q",
      "--remote-storage",     ""};
  auto into = [&](const std::string& out) {
    std::vector<std::string> all = args;
    all.insert(all.end(), {"-o", out});
    return all;
  };
  FakeTools first = vaddTools();
  requireOk(build(into(dir + "/first"), first, cache));
  REQUIRE(first.Commands.size() == 3);

  FakeTools second = vaddTools();
  second.fails = [](const std::vector<std::string>&) { return true; };
  requireOk(build(into(dir + "/second"), second, cache));
  CHECK(second.Commands.empty());
  for (const char* file : {"libvadd.so", "vadd.cubin", "vadd.h", "vadd.json"})
    CHECK(readText(dir + "/second/" + file) == readText(dir + "/first/" + std::string(file)));
}
