// Running one build step (an external command) with progress lines and captured output.
#include "build/Steps.h"

#include "support/Error.h"
#include "support/Process.h"
#include "support/Terminal.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <set>

namespace tlc {

static std::mutex& outputMutex() {
  static std::mutex mutex;
  return mutex;
}

Progress::Progress(unsigned total, bool quiet)
    : Total(total), Quiet(quiet), Terminal(stderrIsTerminal()) {}

Progress::~Progress() {
  if (Terminal && Shown)
    llvm::errs() << "\n";
}

void Progress::start(const std::string& description) {
  if (Quiet)
    return;
  std::lock_guard<std::mutex> lock(Mutex);
  std::string line = "[" + std::to_string(++Done) + "/" + std::to_string(Total) + "] " + description;
  if (Terminal)
    llvm::errs() << "\r" << line << "\x1b[K"; // ninja-style: rewrite the status line
  else
    llvm::errs() << line << "\n";
  llvm::errs().flush();
  Shown = true;
}

std::string StepRunner::commandLine(const Step& step) const {
  return display ? display(step.argv) : shellQuote(step.argv);
}

llvm::Error StepRunner::run(const Step& step) const {
  if (verbose) {
    std::lock_guard<std::mutex> lock(outputMutex());
    llvm::errs() << shellQuote(step.argv) << "\n";
  }
  auto result = runCommand(step.argv);
  if (!result)
    return result.takeError();
  if (result->exitCode != 0) {
    std::string message = step.description + " failed (exit code " +
                          std::to_string(result->exitCode) + "):\n" + result->output +
                          (verbose ? "" : "command: " + shellQuote(step.argv));
    return step.compilesSources ? inputError(message) : toolchainError(message);
  }
  if (!result->output.empty()) {
    // A step's warnings, once: compiling an input for several targets repeats them.
    static std::set<std::string> shown;
    std::lock_guard<std::mutex> lock(outputMutex());
    if (shown.insert(result->output).second)
      llvm::errs() << result->output;
  }
  return llvm::Error::success();
}

} // namespace tlc
