// Running external tools: argv in, exit status and output back, no shell.
#include "support/Process.h"

#include "support/Error.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <unistd.h>

extern char** environ;

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

static llvm::Expected<std::string> temporaryLog(llvm::StringRef prefix) {
  llvm::SmallString<128> path;
  int fd = -1;
  if (auto ec = llvm::sys::fs::createTemporaryFile(prefix, "log", fd, path))
    return toolchainError("cannot create a temporary file: " + ec.message());
  ::close(fd);
  return path.str().str();
}

static std::string slurp(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

llvm::Expected<CommandResult> runCommand(llvm::ArrayRef<std::string> argv,
                                         const RunOptions& options) {
  if (argv.empty())
    return internalError("runCommand called with an empty command line");
  auto program = findProgram(argv.front());
  if (!program)
    return program.takeError();

  // Temporary files rather than pipes: no deadlock on large outputs, and one file for both
  // streams keeps messages in the order the tool wrote them.
  auto outputPath = temporaryLog("tlc-stdout");
  if (!outputPath)
    return outputPath.takeError();
  std::string errorsPath = *outputPath;
  if (options.separateErrors) {
    auto path = temporaryLog("tlc-stderr");
    if (!path)
      return path.takeError();
    errorsPath = *path;
  }
  llvm::scope_exit removeLogs([&] {
    llvm::sys::fs::remove(*outputPath);
    llvm::sys::fs::remove(errorsPath);
  });

  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(*outputPath),
                                                llvm::StringRef(errorsPath)};
  std::optional<std::vector<llvm::StringRef>> environment;
  if (options.environment)
    environment.emplace(options.environment->begin(), options.environment->end());
  std::string errorText;
  bool executionFailed = false;
  int status = llvm::sys::ExecuteAndWait(*program, args, environment, redirects, 0, 0,
                                         &errorText, &executionFailed);
  if (executionFailed)
    return toolchainError("cannot run '" + *program + "': " + errorText);

  CommandResult result;
  result.exitCode = status;
  result.output = slurp(*outputPath);
  if (options.separateErrors)
    result.errors = slurp(errorsPath);
  if (status < 0) // killed by a signal: say which
    (options.separateErrors ? result.errors : result.output) += errorText + "\n";
  return result;
}

std::vector<std::string> environmentWith(llvm::ArrayRef<std::string> overrides) {
  // Later overrides of a name win over earlier ones and over the current environment.
  llvm::StringMap<std::string> replaced;
  std::vector<std::string> order;
  for (llvm::StringRef entry : overrides) {
    llvm::StringRef name = entry.split('=').first;
    if (!replaced.count(name))
      order.push_back(name.str());
    replaced[name] = entry.str();
  }
  std::vector<std::string> environment;
  for (char** entry = environ; *entry; ++entry)
    if (!replaced.count(llvm::StringRef(*entry).split('=').first))
      environment.push_back(*entry);
  for (const std::string& name : order)
    if (llvm::StringRef(replaced[name]).contains('=')) // "NAME" alone removes it
      environment.push_back(replaced[name]);
  return environment;
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
