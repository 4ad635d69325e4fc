// Running the tools tlc drives (nvcc, fatbinary, the host compiler): argv in, exit status and
// combined output back. No shell is involved, so arguments are never re-split or globbed.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tlc {

struct CommandResult {
  int exitCode = 0;
  std::string output; // stdout, with stderr interleaved as written unless separated
  std::string errors; // stderr when RunOptions::separateErrors
};

struct RunOptions {
  bool separateErrors = false;
  // Replaces the environment when set ("NAME=value" entries).
  std::optional<std::vector<std::string>> environment;
};

// Runs argv[0] (an absolute path or a name looked up in PATH) with the given arguments and waits.
// Fails (ToolchainError) only when the program cannot be started; a non-zero exit is a result.
llvm::Expected<CommandResult> runCommand(llvm::ArrayRef<std::string> argv,
                                         const RunOptions& options = {});

// The current environment with `overrides` ("NAME=value", or "NAME" to remove) applied.
std::vector<std::string> environmentWith(llvm::ArrayRef<std::string> overrides);

// The command as a shell would need it typed, for `-v` and the manifest.
std::string shellQuote(llvm::ArrayRef<std::string> argv);

// Looks up a program by name in PATH (or checks an explicit path); ToolchainError if missing.
llvm::Expected<std::string> findProgram(llvm::StringRef nameOrPath);

} // namespace tlc
