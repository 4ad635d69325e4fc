// One external command of a build (an nvcc compile, a device link, a host compile) and how to
// run it: output captured, shown on failure, printed first with -v.
#pragma once

#include "support/Process.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace tlc {

struct Step {
  std::string description; // "nvcc a.cu (sm_90a)"
  std::vector<std::string> argv;
  std::string output;     // the file it produces, relative to workingDir
  std::string workingDir; // where it runs (builder/ToolPaths.h: the names it gets are relative)
                          // and its temporaries go
  std::vector<std::string> environment; // "NAME=value" overrides
  // nvcc compiling the user's sources, the compiler of record: its failure is a problem in the
  // sources (InputError, exit 1), reported in nvcc's words; other steps failing is ToolchainError.
  bool compilesSources = false;
  std::string runIn = {}; // where it runs instead, if set (DeviceBuildOptions::userFolder)
};

// `[3/12] nvcc b.cu (sm_90a)` as each step starts: one line rewritten in place on a terminal
// that can (stderrIsSmartTerminal: not TERM=dumb), plain lines otherwise, nothing when quiet.
class Progress {
public:
  Progress(unsigned total, bool quiet);
  ~Progress();
  void start(const std::string& description);

private:
  std::mutex Mutex;
  unsigned Total, Done = 0;
  bool Quiet, Terminal, Shown = false;
};

// Starts a step's process and waits for it. A build reaches processes only through this, so unit
// tests run its steps, and whole plans, with a fake one (test/unit/builder/StepsTests.cpp), as
// ninja's build_test.cc drives its Builder with a fake CommandRunner.
class CommandRunner {
public:
  virtual ~CommandRunner() = default;
  virtual llvm::Expected<CommandResult> run(llvm::ArrayRef<std::string> argv,
                                            const RunOptions& options) const = 0;
};

// The real one: support/Process.h's runCommand.
const CommandRunner& processRunner();

// What a step's tool printed, for a caller that shows it later (StepRunner::run).
struct StepOutput {
  std::string text;    // tlc's names for the user's files turned back into theirs
  std::string failure; // "nvcc a.cu (sm_90) failed (exit 1)"; empty when the step succeeded
};

struct StepRunner {
  const CommandRunner* commands = &processRunner(); // who starts the processes
  bool verbose = false;
  unsigned timeoutSeconds = 0; // --tool-timeout; 0: none
  // Set when the build has failed in a way no tool can change (the parse's errors): the tools
  // still running are stopped (support/Process.h, RunOptions::cancel).
  const std::atomic<bool>* cancel = nullptr;
  // How the manifest records a command (build folders rewritten); -v prints the real one.
  std::function<std::string(const std::vector<std::string>&)> display;
  // A tool's messages with tlc's names for the user's files turned back into theirs.
  std::function<std::string(const std::string&)> messages;

  // Runs the step; ToolchainError with the tool's output if it fails (InputError when nvcc
  // refused the sources). What the tool printed is shown at once, or, when `output` is given,
  // handed back there instead (with -v it is also shown at once, as the tool printed it).
  llvm::Error run(const Step& step, StepOutput* output = nullptr) const;
  std::string commandLine(const Step& step) const; // for the manifest
};

} // namespace tlc
