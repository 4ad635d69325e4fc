#include "Process.h"

#include "Error.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <unistd.h>

namespace tlc {

llvm::Expected<std::string> findProgram(llvm::StringRef nameOrPath) {
  if (nameOrPath.contains('/')) {
    if (llvm::sys::fs::can_execute(nameOrPath))
      return nameOrPath.str();
    return toolchainError("'" + nameOrPath + "' is not an executable program");
  }
  auto found = llvm::sys::findProgramByName(nameOrPath);
  if (!found)
    return toolchainError("'" + nameOrPath + "' was not found in PATH");
  return *found;
}

llvm::Expected<CommandResult> runCommand(llvm::ArrayRef<std::string> argv) {
  if (argv.empty())
    return internalError("runCommand called with an empty command line");
  auto program = findProgram(argv.front());
  if (!program)
    return program.takeError();

  // One temporary file takes both streams, so the user sees messages in the order written.
  llvm::SmallString<128> outputPath;
  int fd = -1;
  if (auto ec = llvm::sys::fs::createTemporaryFile("tlc-command", "log", fd, outputPath))
    return toolchainError("cannot create a temporary file: " + ec.message());
  ::close(fd);
  auto removeLog = llvm::make_scope_exit([&] { llvm::sys::fs::remove(outputPath); });

  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(outputPath),
                                                llvm::StringRef(outputPath)};
  std::string errorText;
  bool executionFailed = false;
  int status = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, redirects, 0, 0, &errorText,
                                         &executionFailed);
  if (executionFailed)
    return toolchainError("cannot run '" + *program + "': " + errorText);

  CommandResult result;
  result.exitCode = status;
  if (auto buffer = llvm::MemoryBuffer::getFile(outputPath))
    result.output = (*buffer)->getBuffer().str();
  if (status < 0 && result.output.empty())
    result.output = errorText;
  return result;
}

static bool needsQuoting(llvm::StringRef arg) {
  if (arg.empty())
    return true;
  for (char c : arg)
    if (!(llvm::isAlnum(c) || llvm::StringRef("-_./=:,+@%").contains(c)))
      return true;
  return false;
}

std::string shellQuote(llvm::ArrayRef<std::string> argv) {
  std::string line;
  for (const std::string& arg : argv) {
    if (!line.empty())
      line += ' ';
    if (!needsQuoting(arg)) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) {
      if (c == '\'')
        line += "'\\''";
      else
        line += c;
    }
    line += '\'';
  }
  return line;
}

} // namespace tlc
