// Running one build step (an external command) with progress lines and captured output.
#include "builder/Steps.h"

#include "support/Error.h"
#include "support/Interrupts.h"
#include "support/Process.h"
#include "support/Terminal.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <set>

namespace tlc {

Progress::Progress(unsigned total, bool quiet)
    : Total(total), Quiet(quiet), Terminal(stderrIsSmartTerminal()) {
}

Progress::~Progress() {
  if (Terminal && Shown)
    endStatusLine();
}

void Progress::start(const std::string& description) {
  if (Quiet)
    return;
  std::lock_guard<std::mutex> lock(Mutex);
  std::string line =
      "[" + std::to_string(++Done) + "/" + std::to_string(Total) + "] " + description;
  if (Terminal) {
    showStatusLine(line);
  } else {
    StderrSection section;
    llvm::errs() << line << "\n";
  }
  Shown = true;
}

namespace {
class ProcessRunner final : public CommandRunner {
public:
  llvm::Expected<CommandResult> run(llvm::ArrayRef<std::string> argv,
                                    const RunOptions& options) const override {
    return runCommand(argv, options);
  }
};
} // namespace

const CommandRunner& processRunner() {
  static const ProcessRunner runner;
  return runner;
}

std::string StepRunner::commandLine(const Step& step) const {
  return display ? display(step.argv) : shellQuote(step.argv);
}

// The command as it can be run again: in its folder.
static std::string runnable(const Step& step) {
  std::string command = shellQuote(step.argv);
  const std::string& folder = step.runIn.empty() ? step.workingDir : step.runIn;
  return folder.empty() ? command : "cd " + shellQuote({folder}) + " && " + command;
}

llvm::Error StepRunner::run(const Step& step, StepOutput* shown) const {
  if (verbose) {
    StderrSection section;
    llvm::errs() << runnable(step) << "\n";
  }
  RunOptions options;
  options.workingDir = step.runIn.empty() ? step.workingDir : step.runIn;
  // The tools' own temporaries (nvcc's tmpxft_* files) go with the work folder, and their
  // names are as safe as its own.
  std::vector<std::string> environment = step.environment;
  if (!step.workingDir.empty())
    environment.push_back("TMPDIR=" + step.workingDir);
  if (!environment.empty())
    options.environment = environmentWith(environment);
  options.timeoutSeconds = timeoutSeconds;
  options.cancel = cancel;
  auto result = commands->run(step.argv, options);
  if (!result)
    return result.takeError();
  if (result->interrupted)
    return interruptedError();
  // -v: what the tool printed, as it printed it (the messages below name the user's files).
  if (verbose && shown && !result->output.empty()) {
    StderrSection section;
    llvm::errs() << result->output;
  }
  std::string output = messages ? messages(result->output) : result->output;
  if (shown)
    shown->text = output;
  if (result->timedOut)
    return toolchainError(
        step.description + " did not finish within " + std::to_string(timeoutSeconds) +
        " s and was stopped (--tool-timeout)" +
        (output.empty() ? "" : ":\n" + llvm::StringRef(output).rtrim("\n").str()));
  if (!result->succeeded()) {
    // The command ran in the work folder, which is gone by now: -v printed it as it ran.
    std::string failure = step.description + " failed (" + result->status() + ")";
    if (shown)
      shown->failure = failure;
    std::string message = failure + ":\n" + llvm::StringRef(output).rtrim("\n").str();
    // nvcc refusing the sources is their problem; nvcc killed by a signal is not.
    bool sourcesRefused = step.compilesSources && result->signal == 0;
    return sourcesRefused ? inputError(message) : toolchainError(message);
  }
  if (!output.empty() && !shown) {
    // A step's warnings, once: compiling an input for several targets repeats them.
    static std::set<std::string> printed;
    StderrSection section;
    if (printed.insert(output).second)
      llvm::errs() << output;
  }
  // A tool that says it succeeded has written what it was asked for.
  std::string produced = step.workingDir.empty() || llvm::sys::path::is_absolute(step.output)
                             ? step.output
                             : step.workingDir + "/" + step.output;
  if (!step.output.empty() && !llvm::sys::fs::exists(produced))
    return toolchainError(step.description + " reported success but wrote no " + step.output);
  return llvm::Error::success();
}

} // namespace tlc
