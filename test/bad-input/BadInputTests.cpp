// The bad-input corpus: the files of cases/ (*.jsonl, one per area) list every case, one JSON
// object per line, and each becomes a
// Catch2 test of its own (so CTest runs, times and reports each). A case prepares a folder of its
// own (files, a fake toolkit or host compiler, setup commands, tampering), runs tlc one or more
// times (at once, under a signal, with stdout on a full device), and asserts each run's exit code
// and messages, then that nothing was left: no staging or work folder, no temporary file, no
// tool still running, nothing a hostile name could have run (PWNED*). The top of cases/core.jsonl
// documents the fields.
#include "support/Error.h"
#include "support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fnmatch.h>
#include <fstream>
#include <ftw.h>
#include <map>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace {

// This runner is built with the sanitizers tlc is (scripts/sanitize corpus): then a case that
// caps tlc's address space cannot run.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// ---- Paths and placeholders -------------------------------------------------------------------

std::string caseDir(const std::string& name) {
  std::string safe;
  for (char c : name)
    safe += llvm::isAlnum(c) || c == '-' || c == '_' ? c : '_';
  return std::string(TLC_TEST_SCRATCH_DIR) + "/bad-input/" + safe;
}

std::string realToolkit() {
  return llvm::sys::path::parent_path(llvm::sys::path::parent_path(TLC_NVCC)).str();
}

// {dir}, {samples}, {fixtures}, {fakecuda}, {fakecxx}, {shim}, {toolkit}, {tlc}, {fakes},
// {forge} (test/images/imgforge.py, the image forger) in `text`,
// and {byte:XX}: the byte XX (hex), for names JSON cannot hold (not UTF-8).
std::string expand(std::string text, const std::string& dir) {
  for (size_t at = text.find("{byte:"); at != std::string::npos; at = text.find("{byte:", at)) {
    char byte = static_cast<char>(std::stoi(text.substr(at + 6, 2), nullptr, 16));
    text.replace(at, 9, std::string(1, byte));
    ++at;
  }
  const std::pair<const char*, std::string> names[] = {
      {"{dir}", dir},
      {"{samples}", std::string(TLC_SOURCE_DIR) + "/samples"},
      {"{fixtures}", std::string(TLC_SOURCE_DIR) + "/test/fixtures"},
      {"{fakecuda}", dir + "/fake-cuda"},
      {"{fakecxx}", dir + "/fake-cxx"},
      {"{shim}", TLC_FULL_DISK_SHIM},
      {"{toolkit}", realToolkit()},
      {"{tlc}", TLC_BINARY},
      {"{fakes}", TLC_BAD_INPUT_FAKES},
      {"{forge}", std::string(TLC_SOURCE_DIR) + "/test/images/imgforge.py"}};
  for (const auto& [name, value] : names)
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at))
      text.replace(at, std::strlen(name), value), at += value.size();
  return text;
}

std::vector<std::string> expandAll(const Json& list, const std::string& dir) {
  std::vector<std::string> out;
  for (const Json& item : list)
    out.push_back(expand(item.get<std::string>(), dir));
  return out;
}

// Paths matching `pattern` (components may hold * and ?), in order.
std::vector<std::string> glob(const std::string& pattern) {
  std::vector<std::string> matches = {pattern.front() == '/' ? "/" : "."};
  llvm::SmallVector<llvm::StringRef, 16> parts;
  llvm::StringRef(pattern).split(parts, '/', -1, false);
  for (llvm::StringRef part : parts) {
    std::vector<std::string> next;
    for (const std::string& base : matches) {
      std::string prefix = base == "/" ? "/" : base + "/";
      if (part.find_first_of("*?[") == llvm::StringRef::npos) {
        if (llvm::sys::fs::exists(prefix + part.str()) || part == parts.back())
          next.push_back(prefix + part.str());
        continue;
      }
      std::error_code ec;
      std::vector<std::string> found;
      for (llvm::sys::fs::directory_iterator it(base, ec), end; it != end && !ec;
           it.increment(ec)) {
        std::string name = llvm::sys::path::filename(it->path()).str();
        if (fnmatch(part.str().c_str(), name.c_str(), FNM_PERIOD) == 0)
          found.push_back(prefix + name);
      }
      std::sort(found.begin(), found.end());
      next.insert(next.end(), found.begin(), found.end());
    }
    matches = std::move(next);
  }
  return matches;
}

// rm -rf: everything under `path`, pipes and folders made unwritable included.
void removeTree(const std::string& path) {
  nftw(
      path.c_str(),
      [](const char* entry, const struct stat*, int type, struct FTW*) {
        if (type == FTW_D || type == FTW_DP)
          chmod(entry, 0700);
        return 0;
      },
      64, FTW_PHYS);
  nftw(
      path.c_str(),
      [](const char* entry, const struct stat*, int, struct FTW*) {
        ::remove(entry); // what cannot be removed stays, and the next check says so
        return 0;
      },
      64, FTW_DEPTH | FTW_PHYS);
}

void writeText(const std::string& path, const std::string& text) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- Processes ----------------------------------------------------------------------------------

struct Outcome {
  int exitCode = -1;
  int signal = 0;
  std::string out, err;
};

// A tlc (or other) process of a case: its own stdout/stderr files, the case folder as its
// current folder, signals and a deadline.
class Process {
public:
  Process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
          const std::string& cwd, const std::string& logs, const std::string& stdoutTo) {
    OutPath = logs + ".out";
    ErrPath = logs + ".err";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1,
                                     stdoutTo.empty() ? OutPath.c_str() : stdoutTo.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, ErrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    std::vector<char*> args, envp;
    for (const std::string& arg : argv)
      args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    for (const std::string& entry : env)
      envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);
    std::string program = argv.front();
    if (program.find('/') == std::string::npos) {
      auto found = tlc::findProgram(program);
      if (!found)
        FAIL(tlc::summarize(found.takeError()).message);
      program = *found;
    }
    int error = posix_spawn(&Pid, program.c_str(), &actions, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    INFO(argv.front() << ": " << std::strerror(error));
    REQUIRE(error == 0);
  }

  pid_t pid() const { return Pid; }

  // Waits at most `seconds`; a process still running then is killed and the test fails.
  Outcome wait(int seconds) {
    int status = 0;
    auto deadline = Clock::now() + std::chrono::seconds(seconds);
    while (waitpid(Pid, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) {
        kill(Pid, SIGKILL);
        waitpid(Pid, &status, 0);
        FAIL("still running after " << seconds << " s: killed");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    Outcome outcome;
    if (WIFEXITED(status))
      outcome.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status))
      outcome.signal = WTERMSIG(status);
    outcome.out = readText(OutPath);
    outcome.err = readText(ErrPath);
    return outcome;
  }

private:
  pid_t Pid = -1;
  std::string OutPath, ErrPath;
};

bool alive(pid_t pid) {
  if (kill(pid, 0) != 0)
    return false;
  std::string stat = readText("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'Z';
}

// The pids a fake tool wrote into its marker files.
std::vector<pid_t> markedPids(const std::string& dir) {
  std::vector<pid_t> pids;
  for (const std::string& marker : glob(dir + "/*.started")) {
    std::istringstream lines(readText(marker));
    for (long pid; lines >> pid;)
      pids.push_back(static_cast<pid_t>(pid));
  }
  return pids;
}

int signalNamed(const std::string& name) {
  if (name == "INT")
    return SIGINT;
  if (name == "TERM")
    return SIGTERM;
  if (name == "KILL")
    return SIGKILL;
  FAIL("unknown signal " << name);
  return 0;
}

// ---- A case -------------------------------------------------------------------------------------

class CorpusCase {
public:
  CorpusCase(Json spec, std::string file, int line)
      : Spec(std::move(spec)), File(std::move(file)), Line(line) {}

  std::string name() const { return Spec["name"].get<std::string>(); }

  void run() const {
    INFO(File << ":" << Line << " " << name());
    Dir = caseDir(name());
    Logs = std::string(TLC_TEST_SCRATCH_DIR) + "/bad-input-logs/" +
           llvm::sys::path::filename(Dir).str();
    removeTree(Dir);
    removeTree(Logs);
    REQUIRE(!llvm::sys::fs::create_directories(Dir + "/tmp"));
    REQUIRE(!llvm::sys::fs::create_directories(Logs));
    if (!requirementsMet())
      return;
    writeText(Dir + "/vadd.cu", readText(std::string(TLC_SOURCE_DIR) + "/samples/vadd/vadd.cu"));
    makeFiles();
    if (Spec.contains("fake"))
      makeFakes();
    for (const Json& step : Spec.value("setup", Json::array()))
      setup(step);
    Json steps = Spec.contains("steps") ? Spec["steps"] : Json::array({Spec});
    for (size_t i = 0; i < steps.size(); ++i) {
      INFO("step " << i + 1);
      runStep(steps[i], std::to_string(i));
    }
    checkFiles();
    checkNothingLeft();
    for (const Json& step : Spec.value("teardown", Json::array()))
      setup(step);
    cleanUp();
  }

private:
  // "needs": ["root"], ["mount"], ["nobody"]: skipped, saying why, where the environment
  // cannot. ("address-limit" marks a case that caps memory with prlimit --as: see addressCap.)
  bool requirementsMet() const {
    for (const Json& need : Spec.value("needs", Json::array())) {
      std::string why;
      if (need == "root" && geteuid() != 0)
        why = "it needs root (it creates files of another user)";
      if (need == "mount" && !canMount())
        why = "this machine does not let the tests mount a small tmpfs";
      if (need == "nobody") {
        auto setpriv = tlc::findProgram("setpriv");
        if (!setpriv) {
          llvm::consumeError(setpriv.takeError());
          why = "setpriv is missing, so nothing can run as user nobody";
        } else if (geteuid() != 0) {
          why = "only root can run a command as user nobody";
        }
      }
      if (!why.empty()) {
        WARN("bad-input case skipped: " << why);
        return false;
      }
    }
    return true;
  }

  // Whether a tmpfs can be mounted here (root in a machine that allows it).
  bool canMount() const {
    if (geteuid() != 0)
      return false;
    std::string probe = Dir + "/mount-probe";
    llvm::sys::fs::create_directories(probe);
    auto mounted = tlc::runCommand({"mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", probe});
    bool ok = mounted && mounted->exitCode == 0;
    if (!mounted)
      llvm::consumeError(mounted.takeError());
    if (ok) {
      auto unmounted = tlc::runCommand({"umount", probe});
      if (!unmounted)
        llvm::consumeError(unmounted.takeError());
    }
    llvm::sys::fs::remove(probe);
    return ok;
  }

  void makeFiles() const {
    Json files = Spec.value("files", Json::object());
    for (const auto& [path, content] : files.items()) {
      std::string target = Dir + "/" + expand(path, Dir);
      std::string text = content.get<std::string>();
      if (llvm::StringRef(text).starts_with("@")) { // @samples/... or @fixtures/...
        std::string source =
            expand("{" + llvm::StringRef(text).drop_front().split('/').first.str() + "}/" +
                       llvm::StringRef(text).split('/').second.str(),
                   Dir);
        text = readText(source);
        REQUIRE(!text.empty());
      }
      writeText(target, expand(text, Dir));
    }
  }

  // A toolkit folder whose nvcc and fatbinary are the fakes (fakes/), everything else the real
  // toolkit's through links; and the fake host compiler.
  void makeFakes() const {
    std::string fakes = std::string(TLC_BAD_INPUT_FAKES);
    std::string root = Dir + "/fake-cuda";
    REQUIRE(!llvm::sys::fs::create_directories(root + "/bin"));
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(realToolkit(), ec), end; it != end && !ec;
         it.increment(ec)) {
      std::string name = llvm::sys::path::filename(it->path()).str();
      if (name != "bin")
        REQUIRE(!llvm::sys::fs::create_link(it->path(), root + "/" + name));
    }
    for (llvm::sys::fs::directory_iterator it(realToolkit() + "/bin", ec), end; it != end && !ec;
         it.increment(ec)) {
      std::string name = llvm::sys::path::filename(it->path()).str();
      std::string target = name == "nvcc" || name == "fatbinary" ? fakes + "/" + name : it->path();
      REQUIRE(!llvm::sys::fs::create_link(target, root + "/bin/" + name));
    }
    REQUIRE(!llvm::sys::fs::create_link(fakes + "/cxx", Dir + "/fake-cxx"));
  }

  // A step's `prlimit --as=BYTES COMMAND...`: BYTES, or 0 where the step has no such cap. Under
  // AddressSanitizer the cap cannot hold tlc (its shadow memory alone reserves terabytes of
  // address space), so the step runs COMMAND alone and AddressSanitizer bounds tlc's memory
  // instead (hard_rss_limit_mb): a tlc that reads without end ends with a report, which fails
  // the case and the sanitizer run alike.
  static unsigned long long addressCap(const std::vector<std::string>& argv) {
    llvm::StringRef limit =
        argv.size() > 2 && argv[0] == "prlimit" ? llvm::StringRef(argv[1]) : llvm::StringRef();
    unsigned long long bytes = 0;
    return limit.consume_front("--as=") && !limit.getAsInteger(10, bytes) ? bytes : 0;
  }

  std::vector<std::string> environment(const Json& step) const {
    std::string asan = getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "";
    // Under the sanitizers, the shim may come before their runtime.
    asan += ":verify_asan_link_order=0";
    if (unsigned long long cap = step.contains("run") ? addressCap(command(step["run"], false)) : 0;
        cap && kUnderAddressSanitizer)
      asan += ":hard_rss_limit_mb=" + std::to_string(cap >> 20);
    std::vector<std::string> overrides = {"TLC_CACHE_DIR=" + Dir + "/cache",
                                          "TLC_REAL_NVCC=" + std::string(TLC_NVCC),
                                          "TMPDIR=" + Dir + "/tmp",
                                          "FAKE_NVCC_MARKER=" + Dir + "/nvcc.started",
                                          "FAKE_CXX_MARKER=" + Dir + "/cxx.started",
                                          "NO_COLOR=1",
                                          "PWNED_AT=" + canary(),
                                          "ASAN_OPTIONS=" + asan};
    for (const Json* list : {&Spec, &step})
      for (const std::string& entry : expandAll(list->value("env", Json::array()), Dir))
        overrides.push_back(entry);
    return tlc::environmentWith(overrides);
  }

  // `capped`: as the step runs it (without its address cap under AddressSanitizer).
  std::vector<std::string> command(const Json& run, bool capped = true) const {
    std::vector<std::string> argv = expandAll(run, Dir);
    if (capped && kUnderAddressSanitizer && addressCap(argv))
      argv.erase(argv.begin(), argv.begin() + 2);
    if (!argv.empty() && argv.front() == "tlc")
      argv.front() = TLC_BINARY;
    return argv;
  }

  void setup(const Json& step) const {
    if (step.contains("run")) {
      Process process(command(step["run"]), environment(step), Dir, Logs + "/setup", "");
      Outcome outcome = process.wait(300);
      INFO("setup " << step.dump() << "\n" << outcome.err);
      REQUIRE(outcome.exitCode == step.value("exit", 0));
      return;
    }
    std::string pattern = expand(step.value("path", ""), Dir);
    // A path without wildcards is taken as it is: it may be one to create.
    std::vector<std::string> paths = pattern.find_first_of("*?[") == std::string::npos
                                         ? std::vector<std::string>{pattern}
                                         : glob(pattern);
    INFO("setup " << step.dump());
    REQUIRE(!paths.empty());
    for (const std::string& path : paths) {
      if (step.contains("write")) {
        writeText(path, step["write"].get<std::string>());
      } else if (step.contains("append")) {
        std::ofstream(path, std::ios::app | std::ios::binary) << step["append"].get<std::string>();
      } else if (step.contains("chmod")) {
        REQUIRE(chmod(path.c_str(), std::stoul(step["chmod"].get<std::string>(), nullptr, 8)) == 0);
      } else if (step.contains("chown")) {
        REQUIRE(lchown(path.c_str(), step["chown"].get<int>(), step["chown"].get<int>()) == 0);
      } else if (step.contains("remove")) {
        llvm::sys::fs::remove_directories(path);
        llvm::sys::fs::remove(path);
      } else if (step.contains("symlink")) {
        llvm::sys::fs::remove(path);
        REQUIRE(symlink(expand(step["symlink"].get<std::string>(), Dir).c_str(), path.c_str()) ==
                0);
      } else if (step.contains("mkdir")) {
        REQUIRE(!llvm::sys::fs::create_directories(path));
      } else if (step.contains("mkfifo")) {
        REQUIRE(mkfifo(path.c_str(), 0644) == 0);
      } else {
        FAIL("unknown setup step " << step.dump());
      }
    }
  }

  // Runs one step: one command, or several at once ("concurrent"), each checked.
  void runStep(const Json& step, const std::string& id) const {
    if (step.contains("concurrent")) {
      std::vector<std::unique_ptr<Process>> processes;
      std::vector<Json> specs;
      int index = 0;
      for (const Json& sub : step["concurrent"])
        for (int copy = 0; copy < sub.value("copies", 1); ++copy) {
          processes.push_back(
              std::make_unique<Process>(command(sub["run"]), environment(sub), Dir,
                                        Logs + "/" + id + "." + std::to_string(index++), ""));
          specs.push_back(sub);
        }
      for (size_t i = 0; i < processes.size(); ++i) {
        INFO("concurrent command " << i << ": " << specs[i]["run"].dump());
        check(specs[i], processes[i]->wait(300));
      }
      checkNoStaging(step);
      return;
    }
    std::string stdoutTo = step.contains("stdout_to") ? expand(step["stdout_to"], Dir) : "";
    Process process(command(step["run"]), environment(step), Dir, Logs + "/" + id, stdoutTo);
    if (step.contains("signal"))
      deliver(step["signal"], process.pid());
    Outcome outcome = process.wait(step.value("timeout", 300));
    check(step, outcome);
    if (step.value("children_gone", false) || step.contains("signal"))
      checkChildrenGone(step);
    checkNoStaging(step);
  }

  // "signal": {"send": "INT", "after": "{dir}/nvcc.started", "times": 1}: waits for the file,
  // then signals tlc.
  void deliver(const Json& signal, pid_t pid) const {
    std::string after = expand(signal.value("after", ""), Dir);
    auto deadline = Clock::now() + std::chrono::seconds(120);
    while (!after.empty() && !llvm::sys::fs::exists(after)) {
      INFO("waiting for " << after);
      REQUIRE(Clock::now() < deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(signal.value("delay_ms", 50)));
    for (int i = 0; i < signal.value("times", 1); ++i) {
      kill(pid, signalNamed(signal["send"]));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  void check(const Json& step, const Outcome& outcome) const {
    INFO("stderr:\n" << outcome.err << "\nstdout:\n" << outcome.out);
    CHECK(outcome.signal == step.value("killed_by", 0));
    if (!step.contains("killed_by"))
      CHECK(outcome.exitCode == step.value("exit", 0));
    for (const char* stream : {"stderr", "stdout"}) {
      const std::string& text = std::string(stream) == "stderr" ? outcome.err : outcome.out;
      for (const std::string& expected : expandAll(step.value(stream, Json::array()), Dir))
        CHECK_THAT(text, Catch::Contains(expected));
      for (const std::string& unexpected :
           expandAll(step.value(std::string(stream) + "_not", Json::array()), Dir))
        CHECK_THAT(text, !Catch::Contains(unexpected));
      if (std::string exact = std::string(stream) + "_is"; step.contains(exact))
        CHECK(text == expand(step[exact].get<std::string>(), Dir));
    }
    // Whatever failed said so in tlc's words (or Clang's, with a location), once.
    if (!step.contains("killed_by") && step.value("exit", 0) != 0 &&
        command(step["run"]).front() == TLC_BINARY)
      CHECK((outcome.err.find("tlc: error: ") != std::string::npos ||
             outcome.err.find(": error: ") != std::string::npos ||
             outcome.err.find(": fatal error: ") != std::string::npos));
  }

  // The tools a fake started (their pids are in *.started) have all stopped.
  void checkChildrenGone(const Json& step) const {
    for (pid_t pid : markedPids(Dir)) {
      auto deadline = Clock::now() + std::chrono::seconds(5);
      while (alive(pid) && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (step.value("leftovers", false)) { // killed with SIGKILL: the test stops them
        kill(pid, SIGKILL);
        continue;
      }
      INFO("a tool tlc started is still running: pid " << pid);
      CHECK_FALSE(alive(pid));
    }
    for (const std::string& marker : glob(Dir + "/*.started"))
      llvm::sys::fs::remove(marker);
  }

  // Nothing of a build's is left anywhere in the case folder (unless the step expects it).
  void checkNoStaging(const Json& step) const {
    if (step.value("leftovers", false))
      return;
    std::vector<std::string> left;
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(Dir, ec, /*follow=*/false), end;
         it != end && !ec; it.increment(ec)) {
      llvm::StringRef name = llvm::sys::path::filename(it->path());
      if (name.starts_with(".tlc-") || name.contains(".tlc-") || name.starts_with("tlc-build-") ||
          name.starts_with("tmpxft") || name.starts_with("entry-") || name.starts_with("trash-"))
        left.push_back(it->path());
    }
    INFO("left behind: " << llvm::join(left, ", "));
    CHECK(left.empty());
    CHECK(glob(Dir + "/tmp/*").empty()); // the tools' temporaries
  }

  // "exists" and "absent": paths after every step.
  void checkFiles() const {
    for (const std::string& path : expandAll(Spec.value("exists", Json::array()), Dir)) {
      INFO("should exist: " << path);
      std::vector<std::string> matches = glob(path);
      CHECK((!matches.empty() && llvm::sys::fs::exists(matches.front())));
    }
    for (const std::string& path : expandAll(Spec.value("absent", Json::array()), Dir)) {
      INFO("should not exist: " << path);
      for (const std::string& match : glob(path))
        CHECK_FALSE(llvm::sys::fs::exists(match));
    }
  }

  // Where a hostile name's injected command (`touch $PWNED_AT`) would leave its mark: outside
  // TMPDIR, so tlc removing its work folder, where the tools and their shells run, keeps it.
  std::string canary() const { return Dir + "/PWNED"; }

  // Nothing a hostile name could have made: the canary, or any PWNED* a shell made in the
  // folder it ran in (the case folder, or tlc's and the tools' folders inside it).
  void checkNothingLeft() const {
    INFO("a shell ran a hostile name's `touch $PWNED_AT`: " << canary() << " exists");
    CHECK_FALSE(llvm::sys::fs::exists(canary()));
    std::vector<std::string> pwned;
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(Dir, ec, false), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::path::filename(it->path()).starts_with("PWNED"))
        pwned.push_back(it->path());
    INFO("made by a shell: " << llvm::join(pwned, ", "));
    CHECK(pwned.empty());
    for (pid_t pid : markedPids(Dir))
      kill(pid, SIGKILL);
  }

  void cleanUp() const {
    if (Spec.value("keep", false))
      return;
    removeTree(Dir);
    removeTree(Logs);
  }

  Json Spec;
  std::string File;
  int Line;
  mutable std::string Dir, Logs;
};

// ---- Registration -------------------------------------------------------------------------------

class CaseInvoker : public Catch::ITestInvoker {
public:
  explicit CaseInvoker(const CorpusCase* corpusCase) : Case(corpusCase) {}
  void invoke() const override { Case->run(); }

private:
  const CorpusCase* Case;
};

struct Registry {
  std::vector<std::unique_ptr<CorpusCase>> cases;
  std::vector<std::string> names, problems;
};

Registry read();

// Whether a case spells its injected command's mark other than as $PWNED_AT: every "PWNED" in
// it must be the variable's name.
bool hasRelativeCanary(llvm::StringRef text) {
  for (size_t at = text.find("PWNED"); at != llvm::StringRef::npos; at = text.find("PWNED", at + 1))
    if (at == 0 || !text.substr(at - 1).starts_with("$PWNED_AT"))
      return true;
  return false;
}

// Every cases/*.jsonl, read once, in name order: blank lines and lines starting with '#' are
// comments. A name must be new across all files.
Registry& readCases() {
  static Registry registry = read();
  return registry;
}

// The corpus files, sorted so that the tests are discovered in the same order everywhere.
std::vector<std::string> caseFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(TLC_BAD_INPUT_CASES, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".jsonl")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

Registry read() {
  Registry registry;
  std::set<std::string> seen;
  for (const std::string& path : caseFiles()) {
    std::string file = "cases/" + llvm::sys::path::filename(path).str();
    std::ifstream in(path);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      llvm::StringRef text = llvm::StringRef(line).trim();
      if (text.empty() || text.starts_with("#"))
        continue;
      Json spec = Json::parse(text.str(), nullptr, false);
      if (!spec.is_object() || !spec.contains("name") || !spec["name"].is_string() ||
          !seen.insert(spec["name"].get<std::string>()).second) {
        registry.problems.push_back(file + ":" + std::to_string(number) +
                                    ": not a case object with a new name");
        continue;
      }
      if (hasRelativeCanary(text))
        registry.problems.push_back(
            file + ":" + std::to_string(number) +
            ": a canary other than $PWNED_AT (e.g. `touch PWNED`) cannot fire: the tools run in "
            "tlc's work folder, removed before the check; inject `touch $PWNED_AT`");
      registry.cases.push_back(std::make_unique<CorpusCase>(std::move(spec), file, number));
    }
  }
  if (registry.cases.empty())
    registry.problems.push_back(std::string("no cases in ") + TLC_BAD_INPUT_CASES);
  registry.names.reserve(registry.cases.size());
  return registry;
}

const bool Registered = [] {
  Registry& registry = readCases();
  for (const std::unique_ptr<CorpusCase>& corpusCase : registry.cases) {
    registry.names.push_back(corpusCase->name());
    Catch::AutoReg(new CaseInvoker(corpusCase.get()), CATCH_INTERNAL_LINEINFO, Catch::StringRef(),
                   Catch::NameAndTags(registry.names.back().c_str(), "[bad-input]"));
  }
  return true;
}();

} // namespace

TEST_CASE("the bad-input corpus is well formed and holds at least 100 cases", "[bad-input]") {
  Registry& registry = readCases();
  INFO(llvm::join(registry.problems, "\n"));
  CHECK(Registered);
  CHECK(registry.problems.empty());
  CHECK(registry.cases.size() >= 100);
}
