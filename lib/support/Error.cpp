// Errors as values with exit codes, printed once at the top.
#include "support/Error.h"

#include "support/Terminal.h"

#include <algorithm>

namespace tlc {

char ToolError::ID = 0;

ExitCode reportErrors(llvm::Error err) {
  ExitCode worst = ExitCode::Ok;
  auto raise = [&](ExitCode code) {
    worst = static_cast<ExitCode>(std::max(static_cast<int>(worst), static_cast<int>(code)));
  };
  llvm::handleAllErrors(
      std::move(err),
      [&](const ToolError& e) {
        raise(e.code());
        if (!e.alreadyReported())
          printToolMessage(MessageKind::Error, e.message());
      },
      [&](const llvm::ErrorInfoBase& e) {
        raise(ExitCode::InternalError);
        printToolMessage(MessageKind::Error, e.message());
      });
  return worst;
}

ErrorSummary summarize(llvm::Error err) {
  ErrorSummary summary;
  auto append = [&](ExitCode code, const std::string& message) {
    if (static_cast<int>(code) > static_cast<int>(summary.code))
      summary.code = code;
    if (!summary.message.empty())
      summary.message += "\n";
    summary.message += message;
  };
  llvm::handleAllErrors(
      std::move(err), [&](const ToolError& e) { append(e.code(), e.message()); },
      [&](const llvm::ErrorInfoBase& e) { append(ExitCode::InternalError, e.message()); });
  return summary;
}

} // namespace tlc
