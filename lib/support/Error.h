// Errors as values: every failure inside the library is an llvm::Error carrying the exit code the
// tool should end with. They are printed once, at the top (see reportErrors).
#pragma once

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tlc {

// Documented in README.md ("Exit codes"); tests assert these numbers.
enum class ExitCode : int {
  Ok = 0,
  InputError = 1,     // the user's sources or arguments naming inputs are wrong
  UsageError = 2,     // the command line is malformed
  ToolchainError = 3, // a tool tlc needs is missing or failed (nvcc, the host compiler, Clang)
  InternalError = 4,  // a bug in tlc or an inconsistency it detected in its own outputs
  Interrupted = 130,  // SIGINT (128 + 2): the build stopped and removed what it made
  Terminated = 143,   // SIGTERM (128 + 15): likewise
};

class ToolError : public llvm::ErrorInfo<ToolError> {
public:
  static char ID;

  // `alreadyReported` marks errors whose details went out as source diagnostics already, so the
  // top level only turns them into an exit code.
  ToolError(ExitCode code, std::string message, bool alreadyReported = false)
      : Code(code), Message(std::move(message)), AlreadyReported(alreadyReported) {}

  void log(llvm::raw_ostream& os) const override { os << Message; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

  ExitCode code() const { return Code; }
  std::string message() const override { return Message; }
  bool alreadyReported() const { return AlreadyReported; }

private:
  ExitCode Code;
  std::string Message;
  bool AlreadyReported;
};

inline llvm::Error makeError(ExitCode code, const llvm::Twine& message) {
  return llvm::make_error<ToolError>(code, message.str());
}
inline llvm::Error inputError(const llvm::Twine& m) {
  return makeError(ExitCode::InputError, m);
}
inline llvm::Error usageError(const llvm::Twine& m) {
  return makeError(ExitCode::UsageError, m);
}
inline llvm::Error toolchainError(const llvm::Twine& m) {
  return makeError(ExitCode::ToolchainError, m);
}
inline llvm::Error internalError(const llvm::Twine& m) {
  return makeError(ExitCode::InternalError, m);
}
// Source diagnostics were printed already; `summary` is only for logs and tests.
inline llvm::Error reportedInputError(const llvm::Twine& summary) {
  return llvm::make_error<ToolError>(ExitCode::InputError, summary.str(), true);
}

// Prints every error in `err` as `tlc: error: ...` (skipping already-reported ones) and returns
// the exit code of the most severe one.
ExitCode reportErrors(llvm::Error err);

// Consumes `err` and returns its most severe exit code and all messages joined by newlines; for
// callers that wrap an error or tests that assert on it.
struct ErrorSummary {
  ExitCode code = ExitCode::Ok;
  std::string message;
};
ErrorSummary summarize(llvm::Error err);

} // namespace tlc
