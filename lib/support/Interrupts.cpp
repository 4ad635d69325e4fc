// Interrupts during a build: record, stop the tools, unwind; force an exit if needed. Outside a
// build: the registered cleanups, then the signal's default action.
#include "support/Interrupts.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Process.h"

#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <poll.h>
#include <thread>
#include <unistd.h>

namespace tlc {

namespace {

// How long a build may take to unwind after the first signal before tlc exits without it: long
// enough for a Clang parse under way to end (about a second per file), short enough for a user.
constexpr int kGraceMilliseconds = 5000;

const int Signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kSignalCount = sizeof Signals / sizeof Signals[0];

std::atomic<InterruptCleanup> Cleanups[4];

void runCleanups() {
  for (std::atomic<InterruptCleanup>& slot : Cleanups)
    if (InterruptCleanup cleanup = slot.exchange(nullptr))
      cleanup();
}

// Outside a build's InterruptScope.
extern "C" void endOnInterrupt(int signal) {
  runCleanups();
  ::signal(signal, SIG_DFL);
  ::raise(signal); // delivered when the handler returns: the signal is blocked while it runs
}

void installProcessHandlers() {
  for (int signal : Signals) {
    struct sigaction current;
    if (::sigaction(signal, nullptr, &current) != 0)
      continue;
    if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)
      continue;
    struct sigaction action{};
    action.sa_handler = endOnInterrupt;
    sigemptyset(&action.sa_mask);
    for (int other : Signals) // one handler at a time: the cleanups run once
      sigaddset(&action.sa_mask, other);
    ::sigaction(signal, &action, nullptr);
  }
}

std::atomic<int> Received{0};
int WakePipe[2] = {-1, -1};

std::mutex TemporariesMutex;
std::map<std::string, unsigned>& temporaries() {
  static auto* paths = new std::map<std::string, unsigned>(); // never destroyed: exit paths use it
  return *paths;
}

extern "C" void onSignal(int signal) {
  int none = 0;
  Received.compare_exchange_strong(none, signal);
  char byte = 's';
  int saved = errno;
  (void)!::write(WakePipe[1], &byte, 1);
  errno = saved;
}

int exitCodeFor(int signal) {
  return 128 + signal;
}

// The build did not unwind in time, or the user insisted: remove what tlc made and leave.
[[noreturn]] void forceExit() {
  killRunningCommands();
  {
    std::lock_guard<std::mutex> lock(TemporariesMutex);
    for (const auto& [path, count] : temporaries()) {
      (void)count;
      removeTree(path);
    }
  }
  runCleanups();
  llvm::errs() << "tlc: error: interrupted\n";
  llvm::errs().flush();
  ::_exit(exitCodeFor(Received.load()));
}

// The watcher: the first signal starts the grace period (the tools stop themselves, see
// Process.cpp), a second one or its end forces the exit; 'q' ends the scope.
void watch() {
  bool signalled = false;
  auto deadline = std::chrono::steady_clock::now();
  while (true) {
    int timeout = -1;
    if (signalled) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      timeout = left.count() > 0 ? static_cast<int>(left.count()) : 0;
    }
    pollfd wake{WakePipe[0], POLLIN, 0};
    int ready = ::poll(&wake, 1, timeout);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready == 0)
      forceExit();
    char byte = 0;
    if (::read(WakePipe[0], &byte, 1) != 1)
      continue;
    if (byte == 'q')
      return;
    if (signalled)
      forceExit();
    signalled = true;
    deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kGraceMilliseconds);
  }
}

struct sigaction Previous[kSignalCount];
std::thread Watcher;

const char* signalName(int signal) {
  switch (signal) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  case SIGQUIT:
    return "SIGQUIT";
  default:
    return "a signal";
  }
}

} // namespace

bool interrupted() {
  return Received.load() != 0;
}

llvm::Error interruptedError() {
  int signal = Received.load();
  if (!signal)
    return llvm::Error::success();
  return makeError(static_cast<ExitCode>(exitCodeFor(signal)),
                   std::string("interrupted by ") + signalName(signal) + "; nothing was published");
}

// `fd`, moved above the standard descriptors if it is one of them: with stdout or stderr
// closed (support/StartUp.h opens them, a library caller may not), pipe2 hands out 1 and 2, and
// a progress line written to "stderr" would then wake the watcher as a signal does.
static int aboveStandardStreams(int fd) {
  if (fd > 2)
    return fd;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (moved < 0)
    return fd;
  ::close(fd);
  return moved;
}

InterruptScope::InterruptScope() {
  if (::pipe2(WakePipe, O_CLOEXEC) != 0)
    return; // no watcher: signals then end tlc the default way
  for (int& fd : WakePipe)
    fd = aboveStandardStreams(fd);
  Watcher = std::thread(watch);
  struct sigaction action{};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  // A signal ignored when the build starts (nohup, a background job) stays ignored.
  for (int i = 0; i < kSignalCount; ++i)
    if (::sigaction(Signals[i], nullptr, &Previous[i]) == 0 && Previous[i].sa_handler != SIG_IGN)
      ::sigaction(Signals[i], &action, nullptr);
}

InterruptScope::~InterruptScope() {
  if (WakePipe[0] < 0)
    return;
  for (int i = 0; i < kSignalCount; ++i)
    ::sigaction(Signals[i], &Previous[i], nullptr);
  char quit = 'q';
  (void)!::write(WakePipe[1], &quit, 1);
  Watcher.join();
  ::close(WakePipe[0]);
  ::close(WakePipe[1]);
  WakePipe[0] = WakePipe[1] = -1;
}

Temporary::Temporary(std::string path) : Path(std::move(path)) {
  std::lock_guard<std::mutex> lock(TemporariesMutex);
  ++temporaries()[Path];
}

Temporary::~Temporary() {
  std::lock_guard<std::mutex> lock(TemporariesMutex);
  auto it = temporaries().find(Path);
  if (it != temporaries().end() && --it->second == 0)
    temporaries().erase(it);
}

void onInterrupt(InterruptCleanup cleanup) {
  static std::once_flag installed;
  std::call_once(installed, installProcessHandlers);
  for (std::atomic<InterruptCleanup>& slot : Cleanups) {
    InterruptCleanup expected = nullptr;
    if (slot.load() == cleanup || slot.compare_exchange_strong(expected, cleanup))
      return;
  }
}

sigset_t interruptSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : Signals)
    sigaddset(&set, signal);
  return set;
}

} // namespace tlc
