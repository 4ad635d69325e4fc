// builder/Steps: a build's steps run through a fake CommandRunner, no process started: how a
// step's result becomes the build's error (its exit code, its message, the user's names), and a
// whole planned build (BuildPlan.h) driven step by step, as ninja's build_test.cc drives its
// Builder with a fake CommandRunner.
#include "builder/BuildPlan.h"
#include "builder/DeviceBuild.h"
#include "builder/Executor.h"
#include "builder/HostBuild.h"
#include "builder/Steps.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Jobs.h"

#include "TestSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace {

using Catch::Matchers::Contains;

// Answers every command with `result`; writes the step's output first when `writes` says so.
// Records what it was asked to run, and where.
class FakeCommands : public tlc::CommandRunner {
public:
  llvm::Expected<tlc::CommandResult> run(llvm::ArrayRef<std::string> argv,
                                         const tlc::RunOptions& options) const override {
    std::lock_guard<std::mutex> lock(Mutex);
    Commands.push_back(argv.vec());
    WorkingDirs.push_back(options.workingDir);
    Environments.push_back(options.environment.value_or(std::vector<std::string>{}));
    if (onRun)
      return onRun(argv.vec(), options);
    return result;
  }

  tlc::CommandResult result;
  std::function<tlc::CommandResult(const std::vector<std::string>&, const tlc::RunOptions&)> onRun;
  mutable std::mutex Mutex;
  mutable std::vector<std::vector<std::string>> Commands;
  mutable std::vector<std::string> WorkingDirs;
  mutable std::vector<std::vector<std::string>> Environments;
};

tlc::Step nvccStep(const std::string& dir) {
  tlc::Step step;
  step.description = "nvcc a.cu (sm_90a)";
  step.argv = {"cuda/bin/nvcc", "-cubin", "in0/a.cu", "-o", "m.cubin"};
  step.output = "m.cubin";
  step.workingDir = dir;
  step.compilesSources = true;
  return step;
}

tlc::ExitCode exitCodeOf(llvm::Error error) {
  return tlc::summarize(std::move(error)).code;
}

} // namespace

TEST_CASE("a step that succeeds and writes its output succeeds", "[steps]") {
  std::string dir = tlc::test::scratchDir("steps-success");
  FakeCommands commands;
  commands.onRun = [&](const std::vector<std::string>&, const tlc::RunOptions& options) {
    REQUIRE_FALSE(llvm::errorToBool(tlc::writeFile(options.workingDir + "/m.cubin", "elf")));
    return tlc::CommandResult{};
  };
  tlc::StepRunner runner;
  runner.commands = &commands;
  CHECK_FALSE(llvm::errorToBool(runner.run(nvccStep(dir))));
  REQUIRE(commands.Commands.size() == 1);
  CHECK(commands.Commands[0].front() == "cuda/bin/nvcc");
  CHECK(commands.WorkingDirs[0] == dir);
  // The tools' own temporaries go with the work folder.
  CHECK(std::count(commands.Environments[0].begin(), commands.Environments[0].end(),
                   "TMPDIR=" + dir) == 1);
}

TEST_CASE("a tool that says it succeeded but wrote nothing is a toolchain error", "[steps]") {
  std::string dir = tlc::test::scratchDir("steps-no-output");
  FakeCommands commands; // exit 0, writes nothing
  tlc::StepRunner runner;
  runner.commands = &commands;
  tlc::ErrorSummary summary = tlc::summarize(runner.run(nvccStep(dir)));
  CHECK(summary.code == tlc::ExitCode::ToolchainError);
  CHECK_THAT(summary.message, Contains("nvcc a.cu (sm_90a) reported success but wrote no m.cubin"));
}

TEST_CASE("nvcc refusing the sources is an input error in nvcc's words, the user's names",
          "[steps]") {
  std::string dir = tlc::test::scratchDir("steps-refused");
  FakeCommands commands;
  commands.result.exitCode = 1;
  commands.result.output = "in0/a.cu(3): error: identifier \"x\" is undefined\n";
  tlc::StepRunner runner;
  runner.commands = &commands;
  runner.messages = [](const std::string& text) {
    std::string shown = text;
    shown.replace(0, 8, "kernels/a.cu"); // as ToolPaths::message turns tlc's names back
    return shown;
  };
  tlc::ErrorSummary summary = tlc::summarize(runner.run(nvccStep(dir)));
  CHECK(summary.code == tlc::ExitCode::InputError);
  CHECK_THAT(summary.message, Contains("nvcc a.cu (sm_90a) failed (exit code 1)"));
  CHECK_THAT(summary.message, Contains("kernels/a.cu(3): error: identifier"));
  CHECK_THAT(summary.message, !Contains("in0/a.cu(3)"));
}

TEST_CASE("a tool killed by a signal, or one not compiling sources, is a toolchain error",
          "[steps]") {
  std::string dir = tlc::test::scratchDir("steps-signal");
  FakeCommands commands;
  tlc::StepRunner runner;
  runner.commands = &commands;
  SECTION("nvcc killed") {
    commands.result.exitCode = -1;
    commands.result.signal = 9;
    CHECK(exitCodeOf(runner.run(nvccStep(dir))) == tlc::ExitCode::ToolchainError);
  }
  SECTION("the host compiler failing") {
    commands.result.exitCode = 1;
    tlc::Step step = nvccStep(dir);
    step.compilesSources = false;
    CHECK(exitCodeOf(runner.run(step)) == tlc::ExitCode::ToolchainError);
  }
}

TEST_CASE("a tool past --tool-timeout is stopped and says so", "[steps]") {
  std::string dir = tlc::test::scratchDir("steps-timeout");
  FakeCommands commands;
  commands.result.exitCode = -1;
  commands.result.timedOut = true;
  tlc::StepRunner runner;
  runner.commands = &commands;
  runner.timeoutSeconds = 7;
  tlc::ErrorSummary summary = tlc::summarize(runner.run(nvccStep(dir)));
  CHECK(summary.code == tlc::ExitCode::ToolchainError);
  CHECK_THAT(summary.message,
             Contains("did not finish within 7 s and was stopped (--tool-timeout)"));
}

namespace {

// Runs a plan's tool steps through a StepRunner over fake commands that write each step's
// output; the other tasks only record that they ran.
class PlanDriver : public tlc::TaskHandler {
public:
  explicit PlanDriver(std::string dir) : Dir(std::move(dir)) {
    Commands.onRun = [this](const std::vector<std::string>& argv, const tlc::RunOptions& options) {
      std::lock_guard<std::mutex> lock(Mutex);
      // Every file a command names that an earlier step makes exists by now.
      std::string output = Outputs.at(argv);
      for (const std::string& arg : argv)
        if (arg != output && Made.count(arg) == 0 && Planned.count(arg))
          Missing.push_back(argv.front() + " ran before " + arg + " was made");
      if (!output.empty()) {
        llvm::sys::fs::create_directories(
            llvm::sys::path::parent_path(options.workingDir + "/" + output));
        llvm::cantFail(tlc::writeFile(options.workingDir + "/" + output, "made"));
        Made.insert(output);
      }
      return tlc::CommandResult{};
    };
    Runner.commands = &Commands;
  }

  void plan(const tlc::BuildPlan& plan) {
    for (const tlc::Task& task : plan.tasks)
      if (task.step) {
        Outputs[task.step->argv] = task.step->output;
        if (!task.step->output.empty())
          Planned.insert(task.step->output);
      }
  }

  llvm::Error run(const tlc::Task& task) override {
    {
      std::lock_guard<std::mutex> lock(Mutex);
      Ran.push_back(task.kind);
    }
    if (task.kind != tlc::TaskKind::Tool)
      return llvm::Error::success();
    tlc::Step step = *task.step;
    step.workingDir = Dir;
    return Runner.run(step);
  }

  std::string Dir;
  FakeCommands Commands;
  tlc::StepRunner Runner;
  std::mutex Mutex;
  std::map<std::vector<std::string>, std::string> Outputs;
  std::set<std::string> Planned, Made;
  std::vector<std::string> Missing;
  std::vector<tlc::TaskKind> Ran;
};

} // namespace

TEST_CASE("a planned build runs every step once, each after the steps it reads", "[steps][plan]") {
  std::string dir = tlc::test::scratchDir("steps-plan");
  tlc::CudaToolkit toolkit;
  toolkit.root = "/cuda";
  toolkit.nvcc = "/cuda/bin/nvcc";
  toolkit.fatbinary = "/cuda/bin/fatbinary";
  toolkit.cudaVersion = 13000;
  tlc::DeviceBuildOptions device;
  device.name = "m";
  device.inputs = {"in0/a.cu", "in1/b.cu"};
  device.targets = {{"compute_80", "sm_80"}, {"compute_90a", "sm_90a"}};
  device.workDir = dir;
  tlc::HostBuildOptions host;
  host.name = "m";
  host.compiler = "c++";
  host.cudaInclude = "cuda-include";
  host.tlcInclude = "tlc-include";
  host.runtimeLibrary = "libtlc_runtime.a";
  host.workDir = dir;
  host.embedImage = true;
  tlc::BuildPlan plan =
      tlc::planBuild({2, false}, tlc::planDeviceBuild(device, toolkit), tlc::planHostBuild(host));

  PlanDriver driver(dir);
  driver.plan(plan);
  tlc::JobSlots slots(2, nullptr);
  std::vector<tlc::TaskFailure> failures = tlc::executePlan(plan, driver, slots, nullptr);
  CHECK(failures.empty());
  for (tlc::TaskFailure& failure : failures)
    llvm::consumeError(std::move(failure.error));
  CHECK(driver.Missing.empty());
  for (const std::string& problem : driver.Missing)
    UNSCOPED_INFO(problem);
  size_t tools = std::count_if(plan.tasks.begin(), plan.tasks.end(),
                               [](const tlc::Task& task) { return task.step.has_value(); });
  CHECK(driver.Commands.Commands.size() == tools);
  CHECK(driver.Ran.size() == plan.tasks.size());
  // What the plan's last tool makes, the library, is there.
  CHECK(llvm::sys::fs::exists(dir + "/libm.so"));
}
