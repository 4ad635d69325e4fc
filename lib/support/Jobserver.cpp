// make's jobserver: MAKEFLAGS, the pipe, and giving tokens back on interrupts.
#include "support/Jobserver.h"

#include "support/Interrupts.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Errc.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tlc {

MakeFlags parseMakeFlags(llvm::StringRef value) {
  MakeFlags flags;
  llvm::SmallVector<llvm::StringRef, 8> words;
  value.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (size_t i = 0; i < words.size(); ++i) {
    llvm::StringRef word = words[i];
    if (word == "--")
      break; // variable assignments from make's command line follow
    if (word.consume_front("--jobserver-auth=") || word.consume_front("--jobserver-fds=")) {
      // make may pass several; the manual says the last one counts.
      flags.jobserver = MakeFlags::Kind::None;
      flags.fifo.clear();
      flags.readFd = flags.writeFd = -1;
      if (word.consume_front("fifo:")) {
        if (!word.empty()) {
          flags.jobserver = MakeFlags::Kind::Fifo;
          flags.fifo = word.str();
        }
        continue;
      }
      auto [read, write] = word.split(',');
      int readFd = -1, writeFd = -1;
      if (!read.getAsInteger(10, readFd) && !write.getAsInteger(10, writeFd) && readFd >= 0 &&
          writeFd >= 0) {
        flags.jobserver = MakeFlags::Kind::Pipe;
        flags.readFd = readFd;
        flags.writeFd = writeFd;
      }
      continue;
    }
    llvm::StringRef count;
    if (word.consume_front("--jobs="))
      count = word;
    else if (word.consume_front("-j"))
      count = !word.empty() ? word : (i + 1 < words.size() ? words[i + 1] : llvm::StringRef());
    else
      continue;
    unsigned jobs = 0;
    flags.jobs = count.getAsInteger(10, jobs) ? 0 : jobs; // -j alone: no limit
  }
  return flags;
}

namespace {

llvm::Error jobserverError(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// --- interrupts --------------------------------------------------------------------------------
// A token read from the pipe and not yet counted, or uncounted and not yet written back, must not
// be cut off by an interrupt: a token lost shrinks the whole build's parallelism, and one written
// twice grows it. So each move runs with the interrupt signals blocked in its thread, and the
// handler (which then runs on another thread) waits for the moves under way to finish.

std::atomic<Jobserver*> SignalOwner{nullptr};
std::atomic<int> MovesUnderWay{0};
std::atomic<bool> Ending{false};

class TokenMove {
public:
  TokenMove() {
    sigset_t signals = interruptSignals();
    pthread_sigmask(SIG_BLOCK, &signals, &Saved);
    MovesUnderWay.fetch_add(1);
    if (Ending.load()) {
      // The process is ending on a signal and its tokens are being written back: move no more.
      MovesUnderWay.fetch_sub(1);
      while (true)
        pause();
    }
  }
  ~TokenMove() {
    MovesUnderWay.fetch_sub(1);
    pthread_sigmask(SIG_SETMASK, &Saved, nullptr);
  }
  TokenMove(const TokenMove&) = delete;
  TokenMove& operator=(const TokenMove&) = delete;

private:
  sigset_t Saved;
};

// The interrupt cleanup (support/Interrupts.h): every token held goes back to make.
void giveBackOnInterrupt() {
  Ending.store(true);
  while (MovesUnderWay.load() != 0)
    sched_yield();
  if (Jobserver* server = SignalOwner.load())
    server->giveBackAll();
}

// --- the pipe ----------------------------------------------------------------------------------

bool isPipe(int fd, struct stat& status) {
  return fcntl(fd, F_GETFD) != -1 && fstat(fd, &status) == 0 && S_ISFIFO(status.st_mode);
}

bool accessAllows(int fd, int mode) {
  int flags = fcntl(fd, F_GETFL);
  return flags != -1 && ((flags & O_ACCMODE) == mode || (flags & O_ACCMODE) == O_RDWR);
}

// The descriptors make passed, checked to be the two ends of one pipe: make closes them for
// recipes it does not know to be recursive, and the numbers may then name any file of tlc's.
// The read end is opened again (as a new open file) so that it can be read without blocking,
// which make's own descriptor must not be switched to.
llvm::Error openPipe(const MakeFlags& flags, int& readFd, int& writeFd) {
  std::string pair = std::to_string(flags.readFd) + "," + std::to_string(flags.writeFd);
  struct stat readStatus, writeStatus;
  if (!isPipe(flags.readFd, readStatus) || !isPipe(flags.writeFd, writeStatus) ||
      readStatus.st_ino != writeStatus.st_ino || readStatus.st_dev != writeStatus.st_dev ||
      !accessAllows(flags.readFd, O_RDONLY) || !accessAllows(flags.writeFd, O_WRONLY))
    return jobserverError("the descriptors " + pair +
                          " are not make's jobserver pipe here (make passes it only to commands "
                          "it knows to be recursive: prefix the recipe with '+')");
  std::string reopen = "/proc/self/fd/" + std::to_string(flags.readFd);
  readFd = ::open(reopen.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (readFd < 0)
    return jobserverError("cannot open " + reopen + ": " + std::strerror(errno));
  writeFd = fcntl(flags.writeFd, F_DUPFD_CLOEXEC, 0);
  if (writeFd < 0) {
    std::string reason = std::strerror(errno);
    ::close(readFd);
    return jobserverError("cannot duplicate descriptor " + std::to_string(flags.writeFd) + ": " +
                          reason);
  }
  return llvm::Error::success();
}

// A named pipe, opened for reading and writing: never blocks on open, never sees end-of-file.
llvm::Error openFifo(const std::string& path, int& fd) {
  fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return jobserverError("cannot open the jobserver's named pipe '" + path +
                          "': " + std::strerror(errno));
  struct stat status;
  if (fstat(fd, &status) != 0 || !S_ISFIFO(status.st_mode)) {
    ::close(fd);
    fd = -1;
    return jobserverError("'" + path + "' is not a named pipe");
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::unique_ptr<Jobserver>> Jobserver::join(const MakeFlags& flags) {
  int readFd = -1, writeFd = -1;
  switch (flags.jobserver) {
  case MakeFlags::Kind::None:
    return jobserverError("MAKEFLAGS names no jobserver");
  case MakeFlags::Kind::Fifo:
    if (llvm::Error error = openFifo(flags.fifo, readFd))
      return error;
    writeFd = readFd;
    break;
  case MakeFlags::Kind::Pipe:
    if (llvm::Error error = openPipe(flags, readFd, writeFd))
      return error;
    break;
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::string reason = std::strerror(errno);
    ::close(readFd);
    if (writeFd != readFd)
      ::close(writeFd);
    return jobserverError("cannot create a pipe: " + reason);
  }
  return std::unique_ptr<Jobserver>(new Jobserver(readFd, writeFd, wake[0], wake[1]));
}

Jobserver::Jobserver(int readFd, int writeFd, int wakeRead, int wakeWrite)
    : ReadFd(readFd), WriteFd(writeFd), WakeRead(wakeRead), WakeWrite(wakeWrite) {
  for (std::atomic<unsigned>& count : Held)
    count.store(0);
}

Jobserver::~Jobserver() {
  giveBackAll();
  Jobserver* self = this;
  SignalOwner.compare_exchange_strong(self, nullptr);
  for (int fd : {ReadFd, WakeRead, WakeWrite})
    ::close(fd);
  if (WriteFd != ReadFd)
    ::close(WriteFd);
}

TokenSource::Taken Jobserver::take() {
  while (true) {
    pollfd waitFor[2] = {{ReadFd, POLLIN, 0}, {WakeRead, POLLIN, 0}};
    if (::poll(waitFor, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return {Taken::Closed};
    }
    if (waitFor[1].revents & POLLIN) {
      char drained[64];
      while (::read(WakeRead, drained, sizeof drained) > 0) {
      }
      return {Taken::Woken};
    }
    if (!waitFor[0].revents)
      continue;
    if (waitFor[0].revents & POLLNVAL)
      return {Taken::Closed};
    unsigned char token = 0;
    ssize_t got;
    {
      TokenMove move;
      got = ::read(ReadFd, &token, 1);
      if (got == 1)
        Held[token].fetch_add(1);
    }
    if (got == 1)
      return {Taken::Token, token};
    if (got == 0)
      return {Taken::Closed}; // every writer is gone: make has ended
    if (errno != EAGAIN && errno != EINTR)
      return {Taken::Closed};
    // Another process read the token first: wait again.
  }
}

void Jobserver::give(unsigned char token) {
  TokenMove move;
  unsigned count = Held[token].load();
  while (count > 0 && !Held[token].compare_exchange_weak(count, count - 1)) {
  }
  ssize_t written;
  do
    written = ::write(WriteFd, &token, 1);
  while (written < 0 && errno == EINTR);
}

void Jobserver::wake() {
  char byte = 0;
  [[maybe_unused]] ssize_t written = ::write(WakeWrite, &byte, 1);
}

void Jobserver::giveBackAll() {
  for (unsigned value = 0; value < 256; ++value) {
    unsigned count = Held[value].exchange(0);
    unsigned char token = static_cast<unsigned char>(value);
    while (count > 0) {
      ssize_t written = ::write(WriteFd, &token, 1);
      if (written == 1)
        --count;
      else if (errno != EINTR)
        break;
    }
  }
}

unsigned Jobserver::held() const {
  unsigned total = 0;
  for (const std::atomic<unsigned>& count : Held)
    total += count.load();
  return total;
}

const MakeFlags& processMakeFlags() {
  static const MakeFlags flags = [] {
    const char* value = std::getenv("MAKEFLAGS");
    return parseMakeFlags(value ? value : "");
  }();
  return flags;
}

namespace {

struct ProcessJobserver {
  std::unique_ptr<Jobserver> server;
  std::string problem;
};

ProcessJobserver& processState() {
  static ProcessJobserver state = [] {
    ProcessJobserver joined;
    const MakeFlags& flags = processMakeFlags();
    if (flags.jobserver == MakeFlags::Kind::None)
      return joined;
    auto server = Jobserver::join(flags);
    if (!server) {
      joined.problem = llvm::toString(server.takeError());
      return joined;
    }
    joined.server = std::move(*server);
    SignalOwner.store(joined.server.get());
    onInterrupt(giveBackOnInterrupt);
    return joined;
  }();
  return state;
}

} // namespace

Jobserver* processJobserver() {
  return processState().server.get();
}

std::string processJobserverProblem() {
  return processState().problem;
}

} // namespace tlc
