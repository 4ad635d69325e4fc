// The process's descriptors, signals and folders, checked at start; stderr failures at the end.
#include "support/StartUp.h"

#include "support/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tlc {

void prepareProcess() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF)
      continue;
    // open() returns the lowest free descriptor: `fd` itself, the ones below being open. stdout
    // is opened for reading only: what a command prints there (tlc inspect's table) fails to be
    // written, as it did on the closed descriptor, and says so; stderr takes messages silently.
    int opened = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (opened >= 0 && opened != fd) {
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
  ::signal(SIGXFSZ, SIG_IGN);
}

llvm::Error checkWorkingFolder() {
  llvm::SmallString<256> folder;
  if (std::error_code ec = llvm::sys::fs::current_path(folder))
    return inputError("cannot read the working folder (" + ec.message() +
                      "; was it removed?): run tlc from a folder that exists");
  return llvm::Error::success();
}

llvm::Error checkTemporaryFolder() {
  const char* dir = std::getenv("TMPDIR");
  if (!dir || !*dir)
    return llvm::Error::success();
  auto problem = [&](const std::string& why) {
    return inputError("TMPDIR '" + std::string(dir) + "' " + why +
                      ": tlc and the tools it runs keep their temporary files there; create it "
                      "or set TMPDIR to a folder you can write to");
  };
  struct stat status{};
  if (::stat(dir, &status) != 0)
    return problem(errno == ENOENT ? "does not exist"
                                   : "cannot be read (" + std::string(std::strerror(errno)) + ")");
  if (!S_ISDIR(status.st_mode))
    return problem("is not a folder");
  if (::access(dir, W_OK | X_OK) != 0)
    return problem("is not writable (" + std::string(std::strerror(errno)) + ")");
  return llvm::Error::success();
}

void forgetStderrFailure() {
  llvm::errs().flush();
  llvm::errs().clear_error();
}

} // namespace tlc
