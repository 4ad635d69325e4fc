// Job limits across processes: two tlc builds under one make jobserver (make -j2 running both,
// and two processes sharing a named pipe as make 4.4 sets one up), and two launcher libraries of
// one CMake project in a Ninja job pool, never run more tools at once than the limit; every token
// goes back to the jobserver, also when a tool fails and when tlc is interrupted. The tools are
// recording stand-ins (a CUDA toolkit whose nvcc and fatbinary are wrappers, and CXX), so the log
// says exactly how many ran at once.
#include "BuildSupport.h"

#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace tlc;
using namespace tlc::test;

namespace {

void writeText(const std::string& path, const std::string& text) {
  if (llvm::Error error = writeFile(path, text))
    FAIL(llvm::toString(std::move(error)));
}

// Each wrapper appends "+" to the log as it starts and "-" as it ends, under flock(1), so the
// log orders the runs of every process. Runs that write an output (`-o`: compiles and links,
// not `--version`) also obey, through the environment tlc passes on:
//   TLC_TEST_TOOLS_MEET=N   wait (at most 20 s) until N tools run at once, the first time only:
//                           a limit of N can then be seen to be reached, not only kept
//   TLC_TEST_TOOLS_HOLD=F   (nvcc only) write F.started.PID, wait until F exists, then fail
//   TLC_TEST_TOOLS_FAIL=1   (nvcc only) fail
const char* WrapperScript = R"sh(#!/bin/sh
# Stand-in for @REAL@ (test/unit/JobLimitTests.cpp): records its run, then runs it.
log='@LOG@'
record() { flock "$log.lock" sh -c 'echo "$0" >>"$1"' "$1" "$log"; }
running() { echo $(( $(grep -c '^+' "$log") - $(grep -c '^-' "$log") )); }
output=
case " $* " in *" -o "*) output=1 ;; esac
record +
if [ -n "$output" ] && [ -n "$TLC_TEST_TOOLS_MEET" ]; then
  i=0
  while [ ! -e "$log.met" ] && [ $i -lt 200 ]; do
    [ "$(running)" -ge "$TLC_TEST_TOOLS_MEET" ] && touch "$log.met"
    sleep 0.1; i=$((i + 1))
  done
fi
if [ -n "$output" ] && [ "@CONTROLLED@" = yes ]; then
  if [ -n "$TLC_TEST_TOOLS_HOLD" ]; then
    touch "$TLC_TEST_TOOLS_HOLD.started.$$"
    i=0
    while [ ! -e "$TLC_TEST_TOOLS_HOLD" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    record -; exit 1
  fi
  if [ -n "$TLC_TEST_TOOLS_FAIL" ]; then
    echo "stand-in nvcc: failing as asked" >&2; record -; exit 1
  fi
fi
'@REAL@' "$@"
status=$?
record -
exit $status
)sh";

class RecordingTools {
public:
  explicit RecordingTools(const std::string& dir) : Dir(dir), Log(dir + "/tools.log") {
    auto real = findCudaToolkit("");
    REQUIRE_EXPECTED(real);
    // The toolkit: every entry of the real one, but bin/nvcc and bin/fatbinary recorded.
    Toolkit = dir + "/cuda";
    REQUIRE(!llvm::sys::fs::create_directories(Toolkit + "/bin"));
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator entry(real->root, ec), end; entry != end && !ec;
         entry.increment(ec)) {
      std::string name = llvm::sys::path::filename(entry->path()).str();
      if (name != "bin")
        REQUIRE(!llvm::sys::fs::create_link(entry->path(), Toolkit + "/" + name));
    }
    for (llvm::sys::fs::directory_iterator entry(real->root + "/bin", ec), end; entry != end && !ec;
         entry.increment(ec)) {
      std::string name = llvm::sys::path::filename(entry->path()).str();
      if (name == "nvcc" || name == "fatbinary")
        writeWrapper(Toolkit + "/bin/" + name, entry->path(), true);
      else
        REQUIRE(!llvm::sys::fs::create_link(entry->path(), Toolkit + "/bin/" + name));
    }
    auto cxx = findProgram("c++");
    REQUIRE_EXPECTED(cxx);
    Cxx = dir + "/c++";
    writeWrapper(Cxx, *cxx, false);
    REQUIRE(!llvm::sys::fs::create_directories(dir + "/empty"));
    writeText(Log, "");
  }

  // tlc build of samples/multi_file (two inputs: two nvcc compiles, a device link, ...).
  std::vector<std::string> buildArgs(const std::string& name) const {
    return {"build",
            sample("multi_file/filter.cu"),
            sample("multi_file/activate.cu"),
            "--name",
            name,
            "-o",
            Dir + "/" + name,
            "--arch",
            "sm_90a",
            "--cuda-path",
            Toolkit,
            "--no-cache",
            "-q"};
  }

  // The environment of a build: the recording host compiler, no make of the test's own.
  std::vector<std::string> environment(std::vector<std::string> more = {}) const {
    std::vector<std::string> overrides = {
        "CXX=" + Cxx,          "MAKEFLAGS",           "MAKELEVEL",          "MFLAGS",
        "TLC_TEST_TOOLS_MEET", "TLC_TEST_TOOLS_HOLD", "TLC_TEST_TOOLS_FAIL"};
    overrides.insert(overrides.end(), more.begin(), more.end());
    return environmentWith(overrides);
  }

  // The most tools that ran at once, and how many ran, from the log.
  int mostAtOnce() const {
    int running = 0, most = 0;
    for (char mark : readText(Log))
      if (mark == '+')
        most = std::max(most, ++running);
      else if (mark == '-')
        --running;
    return most;
  }
  size_t runs() const {
    std::string log = readText(Log);
    return std::count(log.begin(), log.end(), '+');
  }
  void clearLog() const {
    writeText(Log, "");
    llvm::sys::fs::remove(Log + ".met");
  }

  const std::string& dir() const { return Dir; }
  const std::string& toolkit() const { return Toolkit; }

private:
  void writeWrapper(const std::string& path, const std::string& real, bool controlled) const {
    std::string script = WrapperScript;
    for (auto [from, to] : {std::pair<std::string, std::string>{"@REAL@", real},
                            {"@LOG@", Log},
                            {"@CONTROLLED@", controlled ? "yes" : "no"}})
      for (size_t at; (at = script.find(from)) != std::string::npos;)
        script.replace(at, from.size(), to);
    writeText(path, script);
    REQUIRE(!llvm::sys::fs::setPermissions(path, llvm::sys::fs::perms(0755)));
  }

  std::string Dir, Log, Toolkit, Cxx;
};

// A named pipe holding `tokens` bytes, as make 4.4 sets one up; held open for reading and
// writing while the test runs, as make holds it.
class TokenFifo {
public:
  TokenFifo(const std::string& path, int tokens) : Path(path) {
    ::unlink(path.c_str());
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    Fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK);
    REQUIRE(Fd >= 0);
    std::string bytes(tokens, '+');
    REQUIRE(::write(Fd, bytes.data(), bytes.size()) == ssize_t(bytes.size()));
  }
  ~TokenFifo() { ::close(Fd); }
  // The tokens in the pipe now (read out and written back).
  int count() const {
    char bytes[256];
    ssize_t got = ::read(Fd, bytes, sizeof bytes);
    if (got <= 0)
      return 0;
    REQUIRE(::write(Fd, bytes, got) == got);
    return int(got);
  }
  std::string makeflags(int jobs) const {
    return "MAKEFLAGS=-j" + std::to_string(jobs) + " --jobserver-auth=fifo:" + Path;
  }

private:
  std::string Path;
  int Fd = -1;
};

// `tlc ARGS` started in the background, its output in a file.
struct Started {
  llvm::sys::ProcessInfo process;
  std::string log;
};

Started startTlc(const std::vector<std::string>& args, const std::vector<std::string>& env,
                 const std::string& log) {
  std::vector<llvm::StringRef> argv = {TLC_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<llvm::StringRef> environment(env.begin(), env.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string error;
  bool failed = false;
  llvm::sys::ProcessInfo process =
      llvm::sys::ExecuteNoWait(TLC_BINARY, argv, environment, redirects, 0, &error, &failed);
  INFO(error);
  REQUIRE(!failed);
  return {process, log};
}

// Waits for a started tlc (killing it after 5 minutes); its exit code, -2 if a signal ended it.
int finish(const Started& started) {
  llvm::sys::ProcessInfo done = llvm::sys::Wait(started.process, 300);
  UNSCOPED_INFO("tlc's output:\n" << readText(started.log));
  return done.ReturnCode;
}

template <typename Condition> bool eventually(Condition condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// How many stand-ins hold on `hold` (each wrote hold.started.PID).
int heldTools(const std::string& hold) {
  int count = 0;
  std::error_code ec;
  std::string prefix = llvm::sys::path::filename(hold).str() + ".started.";
  for (llvm::sys::fs::directory_iterator entry(llvm::sys::path::parent_path(hold), ec), end;
       entry != end && !ec; entry.increment(ec))
    if (llvm::StringRef(llvm::sys::path::filename(entry->path())).starts_with(prefix))
      ++count;
  return count;
}

std::string makefile(const RecordingTools& tools, bool recursive) {
  std::string text = "all: a b\n.PHONY: all a b\n";
  for (const char* name : {"a", "b"}) {
    std::string line;
    for (const std::string& arg : tools.buildArgs(std::string("lib") + name))
      line += " " + shellQuote({arg});
    text += std::string(name) + ":\n\t" + (recursive ? "+" : "") + shellQuote({TLC_BINARY}) + line +
            "\n";
  }
  return text;
}

// GNU make's version, from `make --version` ("GNU Make 4.3").
std::pair<int, int> makeVersion() {
  auto version = runCommand({"make", "--version"});
  REQUIRE_EXPECTED(version);
  int major = 0, minor = 0;
  REQUIRE(std::sscanf(version->output.c_str(), "GNU Make %d.%d", &major, &minor) == 2);
  return {major, minor};
}

} // namespace

TEST_CASE("make -j2 with two libraries runs at most two tools at once", "[jobs][buildsystem]") {
  RecordingTools tools(scratchDir("jobs-make"));
  writeText(tools.dir() + "/Makefile", makefile(tools, /*recursive=*/true));
  RunOptions options;
  options.environment = tools.environment({"TLC_TEST_TOOLS_MEET=2"});
  auto make = runCommand({"make", "-j2", "-C", tools.dir()}, options);
  REQUIRE_EXPECTED(make);
  INFO(make->output);
  REQUIRE(make->exitCode == 0);
  CHECK(tools.runs() >= 10); // both builds' tools went through the recording stand-ins
  CHECK(tools.mostAtOnce() == 2);
  for (const char* name : {"liba", "libb"})
    CHECK(llvm::sys::fs::exists(tools.dir() + "/" + name + "/lib" + name + ".so"));

  // The same recipes without '+': make 4.3 closes its pipe for them, so each tlc bounds only
  // itself (-j2, from MAKEFLAGS): at most two tools each, and more than make's -j2 may run
  // (how many do depends on timing, so that is not asserted). make 4.4's named pipe reaches
  // every recipe: the limit holds there too.
  bool namedPipe = makeVersion() >= std::make_pair(4, 4);
  tools.clearLog();
  writeText(tools.dir() + "/Makefile", makefile(tools, /*recursive=*/false));
  options.environment = tools.environment({"TLC_TEST_TOOLS_MEET=2"});
  make = runCommand({"make", "-j2", "-C", tools.dir()}, options);
  REQUIRE_EXPECTED(make);
  INFO(make->output);
  REQUIRE(make->exitCode == 0);
  if (namedPipe)
    CHECK(tools.mostAtOnce() == 2);
  else
    CHECK(tools.mostAtOnce() <= 4);
}

TEST_CASE("two tlc processes sharing make 4.4's named pipe keep its limit and give every token "
          "back",
          "[jobs][buildsystem]") {
  RecordingTools tools(scratchDir("jobs-fifo"));
  // make -j3 running two builds: one on make's own slot, one on a token it took; one left.
  TokenFifo fifo(tools.dir() + "/jobserver", 1);
  std::vector<std::string> env = tools.environment({fifo.makeflags(3), "TLC_TEST_TOOLS_MEET=3"});
  Started a = startTlc(tools.buildArgs("liba"), env, tools.dir() + "/a.log");
  Started b = startTlc(tools.buildArgs("libb"), env, tools.dir() + "/b.log");
  CHECK(finish(a) == 0);
  CHECK(finish(b) == 0);
  CHECK(tools.mostAtOnce() == 3);
  CHECK(fifo.count() == 1);
}

TEST_CASE("tlc gives its tokens back when a tool fails and when it is interrupted",
          "[jobs][buildsystem]") {
  RecordingTools tools(scratchDir("jobs-interrupted"));
  TokenFifo fifo(tools.dir() + "/jobserver", 3);

  // nvcc fails: tlc reports it and ends, its tokens back in the pipe.
  ToolRun failed = runTlc(tools.buildArgs("failing"), {"CXX=" + tools.dir() + "/c++",
                                                       fifo.makeflags(4), "TLC_TEST_TOOLS_FAIL=1"});
  CHECK(failed.exitCode == 1);
  CHECK_THAT(failed.err, Catch::Contains("failing as asked"));
  CHECK(fifo.count() == 3);

  std::vector<int> signals = {SIGTERM, SIGHUP};
  struct sigaction interrupt;
  sigaction(SIGINT, nullptr, &interrupt);
  if (interrupt.sa_handler != SIG_IGN) // an ignored SIGINT stays ignored in tlc
    signals.push_back(SIGINT);
  for (int signal : signals) {
    INFO("signal " << signal);
    std::string hold = tools.dir() + "/hold" + std::to_string(signal);
    Started held = startTlc(tools.buildArgs("held"),
                            tools.environment({fifo.makeflags(4), "TLC_TEST_TOOLS_HOLD=" + hold}),
                            tools.dir() + "/held.log");
    // Both compiles are running (held): tlc holds a token for one of them at least.
    REQUIRE(eventually([&] { return heldTools(hold) == 2; }));
    CHECK(fifo.count() < 3);
    REQUIRE(::kill(held.process.Pid, signal) == 0);
    CHECK(finish(held) == 128 + signal); // stopped its tools, unwound and said why
    CHECK(fifo.count() == 3);
    writeText(hold, ""); // the stand-ins still waiting end now
  }
}

namespace {

// Two launcher libraries in one Ninja job pool of `size`, built with ninja -j8: the project, its
// build folder, and the most tools that ran at once.
struct PoolBuild {
  std::string buildNinja;
  int mostAtOnce = 0;
};

PoolBuild buildInPool(const RecordingTools& tools, int size, int meet) {
  std::string project = tools.dir() + "/project";
  std::string build = tools.dir() + "/build-pool" + std::to_string(size);
  REQUIRE(!llvm::sys::fs::create_directories(project));
  std::string sources =
      shellQuote({sample("multi_file/filter.cu"), sample("multi_file/activate.cu")});
  writeText(project + "/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.20)\n"
            "project(pools LANGUAGES NONE)\n"
            "find_package(tlc REQUIRED)\n"
            "set_property(GLOBAL PROPERTY JOB_POOLS tlc=${POOL_SIZE})\n"
            "tlc_add_launcher_library(liba SOURCES " +
                sources +
                " ARCHS 90a JOB_POOL tlc)\n"
                "tlc_add_launcher_library(libb SOURCES " +
                sources + " ARCHS 90a JOB_POOL tlc)\n");
  tools.clearLog();
  RunOptions options;
  options.environment =
      tools.environment({"TLC_DISABLE_CACHE=1", "TLC_TEST_TOOLS_MEET=" + std::to_string(meet)});
  auto configured =
      runCommand({"cmake", "-S", project, "-B", build, "-G", "Ninja", "-Dtlc_DIR=" TLC_PACKAGE_DIR,
                  "-DTLC_CUDA_ROOT=" + tools.toolkit(), "-DPOOL_SIZE=" + std::to_string(size)},
                 options);
  REQUIRE_EXPECTED(configured);
  INFO(configured->output);
  REQUIRE(configured->exitCode == 0);
  auto built = runCommand({"cmake", "--build", build, "--", "-j8"}, options);
  REQUIRE_EXPECTED(built);
  INFO(built->output);
  REQUIRE(built->exitCode == 0);
  for (const char* name : {"liba", "libb"})
    CHECK(llvm::sys::fs::exists(build + "/" + name + "/lib" + name + ".so"));
  return {readText(build + "/build.ninja"), tools.mostAtOnce()};
}

} // namespace

TEST_CASE("two launcher libraries in a Ninja job pool of 2 run at most two tools at once",
          "[jobs][buildsystem]") {
  RecordingTools tools(scratchDir("jobs-ninja-pool"));
  // Two libraries share two slots: one job each, two tools at once, and no more.
  PoolBuild two = buildInPool(tools, 2, /*meet=*/2);
  CHECK(two.buildNinja.find("pool = tlc") != std::string::npos);
  CHECK(two.buildNinja.find("--jobs=1") != std::string::npos);
  CHECK(two.mostAtOnce == 2);
  // Four slots: two jobs each, and more than two tools can be seen at once.
  PoolBuild four = buildInPool(tools, 4, /*meet=*/3);
  CHECK(four.buildNinja.find("--jobs=2") != std::string::npos);
  CHECK(four.mostAtOnce >= 3);
  CHECK(four.mostAtOnce <= 4);
}
