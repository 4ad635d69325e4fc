// The pieces that keep hostile input harmless, tested directly: what reaches the tools
// (ToolPaths), depfile and comment escaping, running tools (timeouts, signals), the file writer
// and its temporaries, and the cache's trust and settings. test/bad-input runs them end to end.
#include "TestSupport.h"

#include "builder/ToolPaths.h"
#include "cache/Cache.h"
#include "publish/Depfile.h"
#include "render/LauncherView.h"
#include "support/Files.h"
#include "support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sys/stat.h>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

std::vector<std::string> flagsOk(ToolPaths& paths, const std::vector<std::string>& flags,
                                 ToolPaths::Macros& macros) {
  auto checked = paths.nvccFlags(flags, "-Xnvcc", macros);
  REQUIRE_EXPECTED(checked);
  return *checked;
}

// The message of an error that must have happened.
std::string failure(llvm::Error error) {
  bool failed = static_cast<bool>(error);
  std::string message = summarize(std::move(error)).message;
  REQUIRE(failed);
  return message;
}

void succeeds(llvm::Error error) {
  std::string message = error ? summarize(std::move(error)).message : "";
  INFO(message);
  REQUIRE(message.empty());
}

// Sets an environment variable for the life of the object.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : Name(name) {
    if (const char* old = std::getenv(name))
      Old = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (Old)
      setenv(Name, Old->c_str(), 1);
    else
      unsetenv(Name);
  }

private:
  const char* Name;
  std::optional<std::string> Old;
};

} // namespace

TEST_CASE("only letters, digits and _-./=,:+@% are shell-safe", "[hardening]") {
  for (const char* safe : {"-O3", "-gencode=arch=compute_90a,code=sm_90a", "in0/a.cu", "x+y@z%"})
    CHECK(isShellSafe(safe));
  for (const char* unsafe : {"", "a b", "$(x)", "`x`", "a;b", "a'b", "a\"b", "a\\b", "a\nb", "*",
                             "a|b", "a>b", "~", "a#b", "a&b", "a(b)", "{a}"})
    CHECK_FALSE(isShellSafe(unsafe));
  CHECK(safeFileName("d$(touch P).cu") == "d__touch_P_.cu");
  CHECK(safeFileName("vadd.cu") == "vadd.cu");
  CHECK(safeFileName("-x.cu") == "input-x.cu");
  CHECK(safeFileName("k.c u") == "k.c_u");
}

TEST_CASE("macros stay on nvcc's command line until the first unsafe one", "[hardening]") {
  ToolPaths paths;
  ToolPaths::Macros macros;
  std::vector<std::string> flags =
      flagsOk(paths, {"-DA=1", "-D", "B", "-DC=$(touch P)", "-DD=2", "-UA", "-DE=a\\"}, macros);
  CHECK(flags == std::vector<std::string>{"-DA=1", "-DB"});
  CHECK(macros.text == "#define C $(touch P)\n#define D 2\n#undef A\n#define E a\\/**/\n");
  // The header goes last, under a name of tlc's.
  CHECK(paths.forceInclude("m.h", macros) == std::vector<std::string>{"-include", "m.h"});
  ToolPaths::Macros none;
  CHECK(paths.forceInclude("n.h", none).empty());
}

TEST_CASE("paths in nvcc flags become links, unsafe flags are usage errors naming them",
          "[hardening]") {
  ToolPaths paths;
  ToolPaths::Macros macros;
  std::vector<std::string> flags =
      flagsOk(paths, {"-I/a b/$(x)", "-isystem", "/c", "-I", "/a b/$(x)", "-Xptxas", "-v"}, macros);
  CHECK(flags ==
        std::vector<std::string>{"-I", "inc0", "-isystem", "inc1", "-I", "inc0", "-Xptxas", "-v"});
  // Routed already, one value each: a comma is part of the value (nvcc's `\,`), and is kept from
  // nvcc, which would split at it. A program keeps its name (nvcc tells gcc from clang by it) in
  // a linked folder; a bare name is looked up on PATH.
  CHECK(flagsOk(paths, {"-I/c,/d", "-ccbin", "/opt/gcc 12/bin/g++-12", "--compiler-bindir=g++"},
                macros) == std::vector<std::string>{"-I", "inc2", "-ccbin", "inc3/g++-12",
                                                    "--compiler-bindir", "g++"});
  ToolPaths::Macros comma;
  CHECK(flagsOk(paths, {"-DA=1", "-DP=a,b"}, comma) == std::vector<std::string>{"-DA=1"});
  CHECK(comma.text == "#define P a,b\n");
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--foo=$(x)"},
        {"-Xcompiler", "a b"},
        {"-O3;id"},
        {"-ccbin", "/bin/g$(x)"},
        {"-Xcompiler=-Wl\\,-z\\,now"}}) { // a comma nvcc would split at needs its backslash
    auto checked = paths.nvccFlags(bad, "-Xnvcc", macros);
    REQUIRE_FALSE(static_cast<bool>(checked));
    ErrorSummary error = summarize(checked.takeError());
    CHECK(error.code == ExitCode::UsageError);
    CHECK_THAT(error.message, Contains("-Xnvcc flag '"));
  }
  auto lines = paths.nvccFlags({"-D", "X=1\n2"}, "-D", macros);
  REQUIRE_FALSE(static_cast<bool>(lines));
  CHECK_THAT(summarize(lines.takeError()).message, Contains("cannot span lines"));
}

TEST_CASE("tool messages and dependency paths show the user's names again", "[hardening]") {
  ToolPaths paths;
  paths.setWorkDir("/w");
  std::string input = paths.input(0, "/src/d$(x)/k'1.cu",
                                  sourceIdentity("/src/d$(x)/k'1.cu", "/src/d$(x)/k'1.cu", false));
  CHECK(input == "in0/k_1.cu");
  CHECK(paths.inputFolder(0) == "src0");
  CHECK(paths.folder("/inc lude") == "inc0");
  CHECK(paths.message("in0/k_1.cu(3): error: bad\nsrc0/h.h:1: note\ninc0/x.h") ==
        "/src/d$(x)/k'1.cu(3): error: bad\n/src/d$(x)/h.h:1: note\n/inc lude/x.h");
  CHECK(paths.message("notin0/k_1.cu") == "notin0/k_1.cu"); // only names that start a path
  CHECK(paths.outside("src0/h.h") == "/src/d$(x)/h.h");
  CHECK(paths.outside("in0/k_1.cu") == "/src/d$(x)/k'1.cu");
  CHECK(paths.outside("/usr/include/x.h") == "/usr/include/x.h");
  CHECK(paths.outside("tlc-macros-0.h") == "/w/tlc-macros-0.h");
  CHECK(paths.argument("-Iinc0") == "-I/inc lude");
  CHECK(paths.argument("in0/k_1.cu") == "/src/d$(x)/k'1.cu");
}

TEST_CASE("with device debug info safe paths reach nvcc as they are and unsafe ones through links",
          "[hardening]") {
  ToolPaths paths;
  paths.useRealPaths(true);
  paths.setWorkDir("/w");
  // The input itself is still a copy; its folder, an -I folder, an -include and -ccbin's folder
  // are their absolute paths when shell-safe and free of ','.
  CHECK(paths.input(0, "/src/p/k.cu", sourceIdentity("/src/p/k.cu", "/src/p/k.cu", true)) ==
        "in0/k.cu");
  CHECK(paths.inputFolder(0) == "/src/p");
  CHECK(paths.input(1, "/src/d$(x)/m.cu",
                    sourceIdentity("/src/d$(x)/m.cu", "/src/d$(x)/m.cu", true)) == "in1/m.cu");
  CHECK(paths.inputFolder(1) == "src1");
  ToolPaths::Macros macros;
  CHECK(flagsOk(paths,
                {"-I/inc", "-I/a b", "-I/c,d", "-I/e$(x)", "-include", "/h/pre.h", "-ccbin",
                 "/opt/gcc/bin/g++", "-I", "rel"},
                macros) == std::vector<std::string>{"-I", "/inc", "-I", "inc0", "-I", "inc1", "-I",
                                                    "inc2", "-include", "/h/pre.h", "-ccbin",
                                                    "/opt/gcc/bin/g++", "-I", absolutePath("rel")});
  CHECK(paths.realPaths() == std::vector<std::string>{"/src/p", "/inc", "/h/pre.h", "/opt/gcc/bin",
                                                      absolutePath("rel")});
  // Messages show the user's spellings; arguments the paths they are.
  CHECK(paths.message("/inc/x.h:1: error\ninc0/y.h") == "/inc/x.h:1: error\n/a b/y.h");
  CHECK(paths.argument("-I/inc") == "-I/inc");
  CHECK(paths.outside("/inc/x.h") == "/inc/x.h");
  // Without debug info, the same folder is a link.
  ToolPaths plain;
  CHECK(flagsOk(plain, {"-I/inc"}, macros) == std::vector<std::string>{"-I", "inc0"});
  CHECK(plain.realPaths().empty());
}

TEST_CASE("run in the user's folder, nvcc gets the user's own spellings", "[hardening]") {
  ToolPaths paths;
  paths.runInUserFolder();
  paths.setWorkDir("/w");
  // The input as typed, not copied; no folder of its own on the include path.
  CHECK(paths.input(0, "src/k.cu", sourceIdentity("src/k.cu", "/p/src/k.cu", true)) == "src/k.cu");
  CHECK(paths.inputFolder(0).empty());
  CHECK(paths.inputWorkFolder(0) == "in0");
  // Relative and absolute spellings as they are; one that could be read as one of tlc's own
  // names in the work folder by its absolute path; an include folder with a space as typed
  // (nvcc quotes it); an unsafe one through a link, and a file with a space too (-include's
  // value is not an include folder).
  ToolPaths::Macros macros;
  CHECK(flagsOk(paths,
                {"-Iinc", "-I/opt/x", "-Iinc0", "-I", "my dir", "-isystem", "sys dir", "-I",
                 "my (dir)", "-include", "pre.h", "-include", "my pre.h"},
                macros) == std::vector<std::string>{"-I", "inc", "-I", "/opt/x", "-I",
                                                    absolutePath("inc0"), "-I", "my dir",
                                                    "-isystem", "sys dir", "-I", "inc0", "-include",
                                                    "pre.h", "-include", "pre8-my_pre.h"});
  CHECK(paths.linksAny());
  CHECK(paths.workNames() == std::set<std::string>{"in0", "inc0", "pre8-my_pre.h"});
  CHECK(paths.realPaths() == std::vector<std::string>{"src/k.cu", "inc", "/opt/x",
                                                      absolutePath("inc0"), "my dir", "sys dir",
                                                      "pre.h"});
  // What a tool given absolute work names prints, and the manifest, show the user's paths.
  CHECK(paths.message("/w/inc0/x.h:1: error") == "my (dir)/x.h:1: error");
  CHECK(paths.argument("-I/w/inc0") == "-I" + absolutePath("my (dir)"));
  CHECK(ToolPaths::usableAsTyped("a/b.cu"));
  for (const char* unusable :
       {"", "-x.cu", "a b.cu", "a,b.cu", "cuda/x.h", "tlc-include", "src2/k.cu", "in0", "=inc"})
    CHECK_FALSE(ToolPaths::usableAsTyped(unusable));
  // In double quotes a space is safe too; nothing a shell reads inside them or outside is.
  // nvcc escapes a '$' there itself (\$).
  for (const char* usable : {"my inc", "/a b/c d", "x", "my $inc", "a$b", "a/$SYSROOT"})
    CHECK(ToolPaths::usableAsTypedInQuotes(usable));
  for (const char* unusable :
       {"a\"b", "a`b`", "a\\ b", "a\\$b", "$SYSROOT/inc", "$x", "=inc", "a b;c", "a (b)", "$(x)",
        "${x}", "a$'b'", " a", "a ", "a b,c", "- a", "inc0 x/y", "a\tb", "a\nb"})
    CHECK_FALSE(ToolPaths::usableAsTypedInQuotes(unusable));
}

TEST_CASE("nvcc is told an input's own names, and only shell-safe ones on its command line",
          "[hardening]") {
  // nvcc given the original path: the line marker is the path as typed, the hashed path the
  // absolute one (what nvcc computes from the working folder).
  SourceIdentity typed = sourceIdentity("k.cu", "/cwd/k.cu", false);
  CHECK(typed.lineName == "k.cu");
  CHECK(typed.hashedPath == absolutePath("k.cu"));
  // Under a base folder the relocated spelling stands for the path, in both.
  SourceIdentity based = sourceIdentity("/base/p/k.cu", "p/k.cu", false);
  CHECK(based.lineName == "p/k.cu");
  CHECK(based.hashedPath == "p/k.cu");
  // Debug info names the absolute path, which debuggers and profilers open.
  SourceIdentity debug = sourceIdentity("/base/p/k.cu", "p/k.cu", true);
  CHECK(debug.lineName == "/base/p/k.cu");
  CHECK(debug.hashedPath == "p/k.cu");
  // Compiled in the user's folder: the spelling as typed names it and is hashed; a base folder's
  // relocated spelling still wins for the hash.
  SourceIdentity inFolder = sourceIdentity("src/k.cu", "/cwd/src/k.cu", true, true);
  CHECK(inFolder.lineName == "src/k.cu");
  CHECK(inFolder.hashedPath == "src/k.cu");
  CHECK(sourceIdentity("src/k.cu", "p/src/k.cu", true, true).hashedPath == "p/src/k.cu");
  // A path the shell would interpret reaches nvcc's command line only made safe, and still
  // distinct from the path that differs only there.
  SourceIdentity hostile = sourceIdentity("/src/d$(x)/k'1.cu", "/src/d$(x)/k'1.cu", false);
  CHECK(isShellSafe(hostile.hashedPath));
  CHECK(sourceIdentity("/a,b/k.cu", "/a,b/k.cu", false).hashedPath.find(',') == std::string::npos);
  CHECK_THAT(hostile.hashedPath, Catch::StartsWith("/src/d__x_/k_1.cu-"));
  CHECK(hostile.hashedPath !=
        sourceIdentity("/src/d_(x)/k'1.cu", "/src/d_(x)/k'1.cu", false).hashedPath);
  CHECK(hostile.lineName == "/src/d$(x)/k'1.cu"); // file contents never reach a shell
  // A line marker cannot hold a quote or a newline: the safe spelling stands in.
  SourceIdentity quoted = sourceIdentity("/src/a\"b.cu", "/src/a\"b.cu", false);
  CHECK(quoted.lineName == quoted.hashedPath);
}

TEST_CASE("depfiles spell ' ', '#', ':' and '$' and refuse what Make cannot spell", "[hardening]") {
  auto spelled = [](const std::string& path) {
    auto text = depfilePath(path);
    REQUIRE_EXPECTED(text);
    return *text;
  };
  CHECK(spelled("/a b/c#d/e:f/$g") == "/a\\ b/c\\#d/e\\:f/$$g");
  CHECK(spelled("/a\\ b") == "/a\\\\\\ b"); // a backslash before a space is doubled
  for (const char* bad : {"/a\nb", "/a\tb", "/ends\\", "/ends:"}) {
    auto text = depfilePath(bad);
    REQUIRE_FALSE(static_cast<bool>(text));
    CHECK_THAT(summarize(text.takeError()).message, Contains("cannot write a depfile naming"));
  }
}

TEST_CASE("C-reserved fields are renamed", "[hardening]") {
  CHECK(cFieldName("restrict") == "restrict_");
  CHECK(cFieldName("typeof") == "typeof_");
  CHECK(cFieldName("value") == "value");
}

TEST_CASE("cache sizes never wrap around and TLC_DISABLE_CACHE takes yes and no", "[hardening]") {
  auto size = parseSize("16777215T");
  REQUIRE_EXPECTED(size);
  CHECK(*size == 16777215ull << 40);
  for (const char* bad : {"16777216T", "99999999999999999999", "-1", "1X"}) {
    auto parsed = parseSize(bad);
    REQUIRE_FALSE(static_cast<bool>(parsed));
    CHECK(summarize(parsed.takeError()).code == ExitCode::UsageError);
  }
  for (const char* on : {"", "0", "false", "No", "off"}) {
    ScopedEnv env("TLC_DISABLE_CACHE", on);
    auto enabled = cacheEnabledByEnvironment();
    REQUIRE_EXPECTED(enabled);
    CHECK(*enabled);
  }
  for (const char* off : {"1", "true", "YES", "on"}) {
    ScopedEnv env("TLC_DISABLE_CACHE", off);
    auto enabled = cacheEnabledByEnvironment();
    REQUIRE_EXPECTED(enabled);
    CHECK_FALSE(*enabled);
  }
  ScopedEnv env("TLC_DISABLE_CACHE", "maybe");
  auto enabled = cacheEnabledByEnvironment();
  REQUIRE_FALSE(static_cast<bool>(enabled));
  CHECK(summarize(enabled.takeError()).code == ExitCode::UsageError);
}

TEST_CASE("without HOME the cache is in the user's home folder, never in /tmp", "[hardening]") {
  ScopedEnv cache("TLC_CACHE_DIR", nullptr), xdg("XDG_CACHE_HOME", nullptr), home("HOME", nullptr);
  std::string dir = defaultCacheDir();
  CHECK(llvm::StringRef(dir).ends_with("/.cache/tlc"));
  CHECK_FALSE(llvm::StringRef(dir).starts_with("/tmp"));
}

TEST_CASE("a cache others can write to, or rename, is not trusted", "[hardening][cache]") {
  std::string dir = scratchDir("cache-trust");
  REQUIRE_EXPECTED(BuildCache::open(dir + "/mine")); // made 0700
  struct stat status{};
  REQUIRE(stat((dir + "/mine").c_str(), &status) == 0);
  CHECK((status.st_mode & 0777) == 0700);

  REQUIRE(chmod((dir + "/mine").c_str(), 0777) == 0);
  auto open = BuildCache::open(dir + "/mine");
  REQUIRE_FALSE(static_cast<bool>(open));
  CHECK_THAT(summarize(open.takeError()).message,
             Contains("is writable by other users (mode 0777)"));

  REQUIRE(!llvm::sys::fs::create_directories(dir + "/shared"));
  REQUIRE(chmod((dir + "/shared").c_str(), 0777) == 0);
  auto underShared = BuildCache::open(dir + "/shared/cache");
  REQUIRE_FALSE(static_cast<bool>(underShared));
  CHECK_THAT(summarize(underShared.takeError()).message,
             Contains("'" + dir + "/shared' is writable by other users"));
  REQUIRE(chmod((dir + "/shared").c_str(), 01777) == 0); // sticky, as /tmp
  REQUIRE_EXPECTED(BuildCache::open(dir + "/shared/cache"));
}

TEST_CASE("a tool's exit, signal, timeout and folder come back as they were", "[hardening]") {
  auto run = [](std::vector<std::string> argv, RunOptions options = {}) {
    auto result = runCommand(argv, options);
    REQUIRE_EXPECTED(result);
    return *result;
  };
  CommandResult exited = run({"sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(exited.exitCode == 3);
  CHECK(exited.status() == "exit code 3");
  CHECK(exited.output == "out\nerr\n");

  CommandResult killed = run({"sh", "-c", "kill -KILL $$"});
  CHECK(killed.signal == 9);
  CHECK_FALSE(killed.succeeded());
  CHECK_THAT(killed.status(), Contains("killed by signal 9"));

  RunOptions limited;
  limited.timeoutSeconds = 1;
  // The child's own child is stopped too: it is in the tool's process group.
  CommandResult late = run({"sh", "-c", "sleep 30 & wait"}, limited);
  CHECK(late.timedOut);
  CHECK_FALSE(late.succeeded());

  RunOptions elsewhere;
  elsewhere.workingDir = scratchDir("run-folder");
  elsewhere.separateErrors = true;
  CommandResult folder = run({"sh", "-c", "pwd; echo e >&2"}, elsewhere);
  CHECK(folder.output == elsewhere.workingDir + "\n");
  CHECK(folder.errors == "e\n");
}

TEST_CASE("writeFile replaces atomically, refuses non-files and leaves nothing on failure",
          "[hardening]") {
  std::string dir = scratchDir("writer");
  succeeds(writeFile(dir + "/a.txt", "one"));
  succeeds(writeFile(dir + "/a.txt", "two"));
  CHECK(readText(dir + "/a.txt") == "two");
  CHECK_THAT(failure(writeFile(dir + "/nowhere/b.txt", "x")), Contains("cannot write"));
  CHECK_THAT(failure(writeFile("/dev/null", "x")), Contains("is not a regular file"));
  std::error_code ec;
  std::vector<std::string> names;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    names.push_back(llvm::sys::path::filename(it->path()).str());
  CHECK(names == std::vector<std::string>{"a.txt"}); // no temporary left
}

TEST_CASE("removeAbandoned removes what nobody holds, and only tlc's names", "[hardening]") {
  std::string dir = scratchDir("abandoned");
  auto held = LockedFolder::create(dir, "job-");
  REQUIRE_EXPECTED(held);
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/job-abandoned0001")); // 13 characters
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/job-abandoned001"));  // as tlc names them
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/job-notes"));
  removeAbandoned(dir, "job-");
  CHECK(llvm::sys::fs::exists((*held)->path()));
  CHECK_FALSE(llvm::sys::fs::exists(dir + "/job-abandoned001"));
  CHECK(llvm::sys::fs::exists(dir + "/job-abandoned0001"));
  CHECK(llvm::sys::fs::exists(dir + "/job-notes"));
  std::string path = (*held)->path();
  held->reset();
  CHECK_FALSE(llvm::sys::fs::exists(path)); // removed with the object
}

TEST_CASE("a folder kept on request outlives its lock and every later sweep", "[hardening]") {
  std::string dir = scratchDir("abandoned-kept");
  auto kept = LockedFolder::create(dir, "job-");
  REQUIRE_EXPECTED(kept);
  std::string path = (*kept)->path();
  succeeds((*kept)->keep());
  kept->reset(); // its lock is gone, as when the build that kept it ended
  removeAbandoned(dir, "job-");
  CHECK(llvm::sys::fs::exists(path + "/" + kKeptMarker));
}
