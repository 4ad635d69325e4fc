// Running external tools: argv in, exit status and output back, no shell; process groups,
// timeouts and interrupts.
#include "support/Process.h"

#include "support/Error.h"
#include "support/Interrupts.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <poll.h>
#include <set>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tlc {

llvm::Expected<std::string> findProgram(llvm::StringRef nameOrPath, llvm::StringRef from) {
  if (nameOrPath.contains('/')) {
    // Absolute: a tool may run in another folder (RunOptions::workingDir), where a relative
    // path is taken from.
    llvm::SmallString<256> absolute;
    if (!from.empty() && !llvm::sys::path::is_absolute(nameOrPath))
      llvm::sys::path::append(absolute, from);
    llvm::sys::path::append(absolute, nameOrPath);
    llvm::sys::fs::make_absolute(absolute);
    if (llvm::sys::fs::can_execute(absolute) && !llvm::sys::fs::is_directory(absolute))
      return absolute.str().str();
    return toolchainError("'" + nameOrPath + "' is not an executable program");
  }
  auto found = llvm::sys::findProgramByName(nameOrPath);
  if (!found)
    return toolchainError("'" + nameOrPath + "' was not found in PATH");
  return *found;
}

namespace {

// Process groups of the tools running now, for killRunningCommands().
std::mutex RunningMutex;
std::set<pid_t> Running;

class Pipe {
public:
  Pipe() {
    if (::pipe2(Fds, O_CLOEXEC) != 0)
      Fds[0] = Fds[1] = -1;
  }
  ~Pipe() {
    closeRead();
    closeWrite();
  }
  bool ok() const { return Fds[0] >= 0; }
  int read() const { return Fds[0]; }
  int write() const { return Fds[1]; }
  void closeRead() { closeEnd(0); }
  void closeWrite() { closeEnd(1); }

private:
  void closeEnd(int end) {
    if (Fds[end] >= 0)
      ::close(Fds[end]);
    Fds[end] = -1;
  }
  int Fds[2] = {-1, -1};
};

// posix_spawn's settings: stdin from /dev/null, stdout and stderr into the pipes, a process
// group of its own, default signal handling and no blocked signals (SIGXFSZ too, which tlc
// itself ignores, support/StartUp.h: a tool past a file size limit ends as it would when run by
// hand, and tlc reports that).
class SpawnSettings {
public:
  SpawnSettings() {
    posix_spawn_file_actions_init(&Actions);
    posix_spawnattr_init(&Attributes);
  }
  ~SpawnSettings() {
    posix_spawn_file_actions_destroy(&Actions);
    posix_spawnattr_destroy(&Attributes);
  }
  bool configure(int out, int err, const std::string& workingDir) {
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ})
      sigaddset(&defaults, signal);
    bool ok =
        !posix_spawn_file_actions_addopen(&Actions, 0, "/dev/null", O_RDONLY, 0) &&
        !posix_spawn_file_actions_adddup2(&Actions, out, 1) &&
        !posix_spawn_file_actions_adddup2(&Actions, err, 2) &&
        !posix_spawnattr_setflags(&Attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                   POSIX_SPAWN_SETSIGDEF) &&
        !posix_spawnattr_setpgroup(&Attributes, 0) &&
        !posix_spawnattr_setsigmask(&Attributes, &none) &&
        !posix_spawnattr_setsigdefault(&Attributes, &defaults);
    if (ok && !workingDir.empty())
      ok = !posix_spawn_file_actions_addchdir_np(&Actions, workingDir.c_str());
    return ok;
  }
  const posix_spawn_file_actions_t* actions() const { return &Actions; }
  const posix_spawnattr_t* attributes() const { return &Attributes; }

private:
  posix_spawn_file_actions_t Actions;
  posix_spawnattr_t Attributes;
};

std::vector<char*> cStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& string : strings)
    pointers.push_back(const_cast<char*>(string.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

using Clock = std::chrono::steady_clock;

// Reads the tool's output until it exits, stopping it (SIGTERM, then SIGKILL a second later)
// when it runs past its deadline or tlc is interrupted.
class Supervisor {
public:
  Supervisor(pid_t pid, const RunOptions& options, CommandResult& result)
      : Pid(pid), Result(result), Cancel(options.cancel) {
    if (options.timeoutSeconds)
      Deadline = Clock::now() + std::chrono::seconds(options.timeoutSeconds);
  }

  void run(int out, int err) {
    int fds[2] = {out, err};
    std::string* sinks[2] = {&Result.output, &Result.errors};
    bool exited = false;
    while (true) {
      pollfd polls[2];
      nfds_t count = 0;
      std::string* polled[2];
      for (int i = 0; i < 2; ++i)
        if (fds[i] >= 0) {
          polls[count] = {fds[i], POLLIN, 0};
          polled[count++] = sinks[i];
        }
      if (count == 0 && exited)
        break;
      int ready = count ? ::poll(polls, count, exited ? 0 : 200) : 0;
      if (ready < 0 && errno != EINTR)
        break;
      bool readSomething = false;
      for (nfds_t i = 0; i < count && ready > 0; ++i) {
        if (!(polls[i].revents & (POLLIN | POLLHUP | POLLERR)))
          continue;
        char buffer[65536];
        ssize_t got = ::read(polls[i].fd, buffer, sizeof buffer);
        if (got > 0) {
          polled[i]->append(buffer, static_cast<size_t>(got));
          readSomething = true;
        } else if (got == 0 || errno != EINTR) {
          for (int& fd : fds)
            if (fd == polls[i].fd)
              fd = -1; // the end of this stream
        }
      }
      // Once the tool has exited, what it wrote is in the pipes: read it, then stop even if a
      // process it left behind still holds them open.
      if (exited && !readSomething)
        break;
      if (!exited)
        exited = hasExited();
      if (!exited)
        enforceLimits();
    }
    reap();
  }

private:
  bool hasExited() {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(Pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == Pid;
  }

  void enforceLimits() {
    Clock::time_point now = Clock::now();
    if (!StopSent) {
      bool late = Deadline && now >= *Deadline;
      bool cancelled = Cancel && Cancel->load();
      if (!late && !interrupted() && !cancelled)
        return;
      Result.timedOut = late;
      Result.interrupted = !late && interrupted();
      Result.cancelled = !late && !Result.interrupted;
      ::kill(-Pid, SIGTERM);
      StopSent = now;
    } else if (!KillSent && now - *StopSent >= std::chrono::seconds(1)) {
      ::kill(-Pid, SIGKILL);
      KillSent = true;
    }
  }

  void reap() {
    {
      // Out of the registry before the pid can be reused.
      std::lock_guard<std::mutex> lock(RunningMutex);
      Running.erase(Pid);
    }
    int status = 0;
    while (::waitpid(Pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) {
      Result.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      Result.exitCode = -1;
      Result.signal = WTERMSIG(status);
    }
    // What it started and left behind goes with it.
    ::kill(-Pid, SIGKILL);
  }

  pid_t Pid;
  CommandResult& Result;
  const std::atomic<bool>* Cancel;
  std::optional<Clock::time_point> Deadline, StopSent;
  bool KillSent = false;
};

} // namespace

std::string CommandResult::status() const {
  if (interrupted)
    return "stopped: tlc was interrupted";
  if (cancelled)
    return "stopped: the build had failed";
  if (timedOut)
    return "did not finish in time and was stopped";
  if (signal)
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit code " + std::to_string(exitCode);
}

llvm::Expected<CommandResult> runCommand(llvm::ArrayRef<std::string> argv,
                                         const RunOptions& options) {
  if (argv.empty())
    return internalError("runCommand called with an empty command line");
  auto program = findProgram(argv.front(), options.workingDir);
  if (!program)
    return program.takeError();

  Pipe out, err;
  if (!out.ok() || (options.separateErrors && !err.ok()))
    return toolchainError("cannot run '" + *program + "': no pipe: " + strerror(errno));
  SpawnSettings settings;
  if (!settings.configure(out.write(), options.separateErrors ? err.write() : out.write(),
                          options.workingDir))
    return toolchainError("cannot run '" + *program + "': cannot set up the process");
  std::vector<std::string> arguments(argv.begin(), argv.end());
  std::vector<char*> args = cStrings(arguments);
  std::vector<std::string> environment;
  if (options.environment)
    environment = *options.environment;
  else
    for (char** entry = environ; *entry; ++entry)
      environment.push_back(*entry);
  std::vector<char*> envp = cStrings(environment);

  pid_t pid = 0;
  {
    // Registered at once, so that a forced exit finds every tool that started.
    std::lock_guard<std::mutex> lock(RunningMutex);
    if (interrupted())
      return interruptedError();
    if (int error = ::posix_spawn(&pid, program->c_str(), settings.actions(), settings.attributes(),
                                  args.data(), envp.data()))
      return toolchainError("cannot run '" + *program + "': " + strerror(error));
    Running.insert(pid);
  }
  out.closeWrite();
  err.closeWrite();
  CommandResult result;
  Supervisor(pid, options, result).run(out.read(), options.separateErrors ? err.read() : -1);
  return result;
}

void killRunningCommands() {
  std::lock_guard<std::mutex> lock(RunningMutex);
  for (pid_t pid : Running)
    ::kill(-pid, SIGKILL);
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

bool isShellSafe(llvm::StringRef text) {
  return !text.empty() && llvm::all_of(text, [](char c) {
    return llvm::isAlnum(c) || llvm::StringRef("_-./=,:+@%").contains(c);
  });
}

} // namespace tlc
