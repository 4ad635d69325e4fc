// Running the tools tlc drives (nvcc, fatbinary, the host compiler): argv in, exit status and
// output back. No shell is involved, so arguments are never re-split or globbed. Each tool runs
// in a process group of its own, so that a timeout or an interrupt (support/Interrupts.h) stops
// it together with everything it started; its output comes back through pipes, so nothing is
// left in /tmp.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

struct CommandResult {
  int exitCode = 0;         // when it exited (-1 otherwise)
  int signal = 0;           // the signal that ended it, if one did
  bool timedOut = false;    // stopped by tlc after RunOptions::timeoutSeconds
  bool interrupted = false; // stopped by tlc because tlc itself was interrupted
  bool cancelled = false;   // stopped by tlc because RunOptions::cancel was set
  std::string output;       // stdout, with stderr interleaved as written unless separated
  std::string errors;       // stderr when RunOptions::separateErrors

  bool succeeded() const {
    return exitCode == 0 && signal == 0 && !timedOut && !interrupted && !cancelled;
  }
  // "exit code 2", "killed by signal 9 (Killed)", "stopped after 60 s (--tool-timeout)".
  std::string status() const;
};

struct RunOptions {
  bool separateErrors = false;
  // Replaces the environment when set ("NAME=value" entries).
  std::optional<std::vector<std::string>> environment;
  std::string workingDir;      // the tool's current folder, if set
  unsigned timeoutSeconds = 0; // stop it (SIGTERM, then SIGKILL) after this long; 0: never
  // Stop it the same way once this is true (the build failed elsewhere and its outcome can no
  // longer change it).
  const std::atomic<bool>* cancel = nullptr;
};

// Runs argv[0] (an absolute path or a name looked up in PATH) with the given arguments and waits.
// Fails (ToolchainError) only when the program cannot be started, and with interruptedError()
// when tlc was interrupted before it started; a non-zero exit, a signal or a timeout is a result.
llvm::Expected<CommandResult> runCommand(llvm::ArrayRef<std::string> argv,
                                         const RunOptions& options = {});

// SIGKILL to every tool still running (a forced exit after an interrupt).
void killRunningCommands();

// The current environment with `overrides` ("NAME=value", or "NAME" to remove) applied.
std::vector<std::string> environmentWith(llvm::ArrayRef<std::string> overrides);

// The command as a shell would need it typed, for `-v` and the manifest.
std::string shellQuote(llvm::ArrayRef<std::string> argv);

// Letters, digits and `_ - . / = , : + @ %`: nothing /bin/sh interprets, inside double quotes
// or out, and no space (nvcc re-splits some flags at spaces).
bool isShellSafe(llvm::StringRef text);

// Looks up a program by name in PATH (or checks an explicit path, a relative one taken from the
// folder `from` when given); ToolchainError if missing.
llvm::Expected<std::string> findProgram(llvm::StringRef nameOrPath, llvm::StringRef from = "");

} // namespace tlc
