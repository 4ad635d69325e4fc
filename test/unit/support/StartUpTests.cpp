// support/StartUp and the interrupt pipe: what tlc's process makes sure of before a command runs.
// Closed standard descriptors are opened on /dev/null (stdout read-only), SIGXFSZ is ignored, a
// removed working folder and a TMPDIR that is missing or not a folder are named; with stdout and
// stderr closed, the interrupt pipe still never takes descriptor 1 or 2 (a progress line written
// to "stderr" would otherwise wake it as a signal does). The process-wide parts run in a child.
#include "support/StartUp.h"

#include "TestSupport.h"

#include "support/Files.h"
#include "support/Interrupts.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tlc;

namespace {

// Runs `check` in a child process; its result is the child's exit code (0: all held).
template <typename Check> int inChild(Check check) {
  pid_t pid = ::fork();
  if (pid == 0)
    ::_exit(check());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

bool isDevNull(int fd) {
  struct stat opened{}, null{};
  return ::fstat(fd, &opened) == 0 && ::stat("/dev/null", &null) == 0 && S_ISCHR(opened.st_mode) &&
         opened.st_rdev == null.st_rdev;
}

} // namespace

TEST_CASE("closed standard descriptors are opened on /dev/null, SIGXFSZ ignored", "[support]") {
  CHECK(inChild([] {
          ::close(0);
          ::close(1);
          ::close(2);
          prepareProcess();
          if (!isDevNull(0) || !isDevNull(1) || !isDevNull(2))
            return 1;
          if ((::fcntl(1, F_GETFL) & O_ACCMODE) != O_RDONLY) // stdout's writes still fail
            return 2;
          if ((::fcntl(2, F_GETFL) & O_ACCMODE) != O_WRONLY)
            return 3;
          struct sigaction action{};
          if (::sigaction(SIGXFSZ, nullptr, &action) != 0 || action.sa_handler != SIG_IGN)
            return 4;
          int next = ::open("/dev/null", O_RDONLY); // what tlc opens next is none of them
          return next > 2 ? 0 : 5;
        }) == 0);
  // Open descriptors are left as they are.
  CHECK(inChild([] {
          int before = ::fcntl(2, F_GETFL);
          prepareProcess();
          return ::fcntl(2, F_GETFL) == before ? 0 : 1;
        }) == 0);
}

TEST_CASE("with stdout and stderr closed the interrupt pipe is above them", "[support]") {
  CHECK(inChild([] {
          ::close(1);
          ::close(2);
          InterruptScope scope;
          // Were the pipe's ends 1 and 2, this would wake the watcher as a signal.
          (void)!::write(2, "[1/5] progress\n", 15);
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          return interrupted() ? 1 : 0;
        }) == 0);
}

TEST_CASE("a removed working folder and a TMPDIR that is none are named", "[support]") {
  std::string dir = test::scratchDir("start-up");
  CHECK(inChild([&] {
          std::string gone = dir + "/gone";
          if (::mkdir(gone.c_str(), 0700) != 0 || ::chdir(gone.c_str()) != 0 ||
              ::rmdir(gone.c_str()) != 0)
            return 1;
          std::string message = summarize(checkWorkingFolder()).message;
          return message.find("cannot read the working folder") != std::string::npos ? 0 : 2;
        }) == 0);
  CHECK(summarize(checkWorkingFolder()).message.empty());

  REQUIRE(!writeFile(dir + "/file", "x"));
  const char* saved = std::getenv("TMPDIR");
  std::string previous = saved ? saved : "";
  auto with = [&](const std::string& value) {
    ::setenv("TMPDIR", value.c_str(), 1);
    return summarize(checkTemporaryFolder()).message;
  };
  CHECK_THAT(with(dir + "/missing"),
             Catch::StartsWith("TMPDIR '" + dir + "/missing' does not exist"));
  CHECK_THAT(with(dir + "/file"), Catch::StartsWith("TMPDIR '" + dir + "/file' is not a folder"));
  CHECK(with(dir).empty());
  CHECK(with("").empty()); // unset or empty: /tmp, as the tools take it
  if (saved)
    ::setenv("TMPDIR", previous.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}
