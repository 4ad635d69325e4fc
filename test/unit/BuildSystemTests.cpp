// What build systems and CI rely on: depfiles, outputs rewritten only when they change, the
// cache (hits, header edits, corruption, concurrent builders), compile_commands.json,
// byte-identical outputs from different folders, tlc verify, progress lines, ccache.
#include "TestSupport.h"

#include "support/Files.h"
#include "support/Process.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

// A copy of samples/multi_file in `dir`, so a test can edit its header.
std::vector<std::string> copyMultiFile(const std::string& dir) {
  for (const char* file : {"filter.cu", "activate.cu", "common.cuh"})
    REQUIRE(!llvm::sys::fs::copy_file(sample(std::string("multi_file/") + file), dir + "/" + file));
  return {dir + "/filter.cu", dir + "/activate.cu"};
}

ToolRun build(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), "build");
  return runTlc(args, env);
}

llvm::sys::TimePoint<> modified(const std::string& path) {
  llvm::sys::fs::file_status status;
  REQUIRE(!llvm::sys::fs::status(path, status));
  return status.getLastModificationTime();
}

nlohmann::json cacheStats(const std::string& cache) {
  ToolRun stats = runTlc({"cache", "stats"}, {"TLC_CACHE_DIR=" + cache});
  REQUIRE(stats.exitCode == 0);
  nlohmann::json values;
  for (const char* key : {"entries", "hits", "misses"}) {
    size_t at = stats.out.find(std::string(key) + ":");
    REQUIRE(at != std::string::npos);
    values[key] = std::stoul(stats.out.substr(stats.out.find_first_of("0123456789", at)));
  }
  return values;
}

} // namespace

TEST_CASE("the depfile lists every input, header and template the build read", "[buildsystem]") {
  std::string dir = scratchDir("depfile");
  std::vector<std::string> inputs = copyMultiFile(dir);
  ToolRun run = build({inputs[0], inputs[1], "--name", "mf", "-o", dir + "/out", "--depfile",
                       dir + "/mf.d", "--depfile-target", dir + "/mf.stamp", "--no-cache"});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  std::string depfile = readText(dir + "/mf.d");
  CHECK(llvm::StringRef(depfile).starts_with(dir + "/mf.stamp:"));
  for (const std::string& file : {dir + "/filter.cu", dir + "/activate.cu", dir + "/common.cuh"})
    CHECK_THAT(depfile, Contains(" " + file));
  CHECK_THAT(depfile, Contains("launcher.cpp.mustache"));
  CHECK_THAT(depfile, Contains("cuda_runtime.h"));                 // nvcc and Clang both read it
  CHECK_THAT(depfile, Contains("__clang_cuda_runtime_wrapper.h")); // only Clang reads it

  // --emit-only: what Clang and tlc read, for the header it writes by default.
  ToolRun emitted = build({inputs[0], inputs[1], "--name", "mf", "-o", dir + "/sources",
                           "--emit-only", "--depfile", dir + "/sources.d"});
  INFO(emitted.err);
  REQUIRE(emitted.exitCode == 0);
  std::string sources = readText(dir + "/sources.d");
  CHECK(llvm::StringRef(sources).starts_with(dir + "/sources/mf.h:"));
  CHECK_THAT(sources, Contains(" " + dir + "/common.cuh"));
  CHECK_THAT(sources, Contains("launcher.cpp.mustache"));
}

// docs/make.md's rule: a relative depfile target, a stamp Make can date, a header edit.
TEST_CASE("a Makefile with tlc's depfile rebuilds after a header edit and only then",
          "[buildsystem]") {
  std::string dir = scratchDir("makefile");
  copyMultiFile(dir);
  REQUIRE(!writeFile(dir + "/Makefile",
                     "TLC ?= tlc\n"
                     "mf.stamp: filter.cu activate.cu\n"
                     "\t$(TLC) build filter.cu activate.cu --name mf -o out --no-cache -q \\\n"
                     "\t  --depfile mf.d --depfile-target mf.stamp\n"
                     "\ttouch $@\n"
                     "-include mf.d\n"));
  RunOptions options;
  options.workingDir = dir;
  auto make = [&] {
    auto run = runCommand({"make", "TLC=" + std::string(TLC_BINARY)}, options);
    REQUIRE_EXPECTED(run);
    INFO(run->output);
    REQUIRE(run->exitCode == 0);
    return run->output;
  };
  CHECK_THAT(make(), Contains("tlc build"));
  // The target as the Makefile spells it, so that Make finds the header dependencies.
  CHECK(llvm::StringRef(readText(dir + "/mf.d")).starts_with("mf.stamp:"));
  CHECK_THAT(make(), !Contains("tlc build"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100)); // Make compares whole seconds
  std::ofstream(dir + "/common.cuh", std::ios::app) << "// edited\n";
  CHECK_THAT(make(), Contains("tlc build"));
  CHECK_THAT(make(), !Contains("tlc build"));
}

TEST_CASE("a rebuild with nothing changed rewrites no output", "[buildsystem]") {
  std::string dir = scratchDir("unchanged");
  std::string out = dir + "/out";
  REQUIRE(build({sample("vadd/vadd.cu"), "-o", out, "--no-cache"}).exitCode == 0);
  std::map<std::string, llvm::sys::TimePoint<>> before;
  for (const char* file : {"vadd.fatbin", "libvadd.so", "vadd.h", "vadd.json"})
    before[file] = modified(out + "/" + file);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(build({sample("vadd/vadd.cu"), "-o", out, "--no-cache"}).exitCode == 0);
  for (const auto& [file, time] : before) {
    INFO(file);
    CHECK(modified(out + "/" + file) == time);
  }
}

TEST_CASE("the cache restores unchanged builds and rebuilds after a header edit", "[cache]") {
  std::string dir = scratchDir("cache-hit");
  std::string cache = dir + "/cache";
  std::vector<std::string> inputs = copyMultiFile(dir);
  std::vector<std::string> env = {"TLC_CACHE_DIR=" + cache};
  std::vector<std::string> args = {inputs[0], inputs[1], "--name", "mf", "-o", dir + "/out"};

  ToolRun cold = build(args, env);
  INFO(cold.err);
  REQUIRE(cold.exitCode == 0);
  std::string coldCubin = readText(dir + "/out/mf.fatbin");
  // The module's lookup, each input's parse and compile, and the launcher's compile.
  CHECK(cacheStats(cache)["misses"] == 6);

  llvm::sys::fs::remove_directories(dir + "/out");
  ToolRun hit = build(args, env);
  REQUIRE(hit.exitCode == 0);
  CHECK_THAT(hit.err, Contains("cached mf"));
  CHECK(readText(dir + "/out/mf.fatbin") == coldCubin);
  CHECK(runTlc({"verify", dir + "/out"}).exitCode == 0);
  CHECK(cacheStats(cache)["hits"] == 1);

  // The header is not an input, but the cache knows the build read it.
  std::ofstream(dir + "/common.cuh", std::ios::app) << "// edited\n#define EDITED 1\n";
  ToolRun edited = build(args, env);
  REQUIRE(edited.exitCode == 0);
  CHECK_THAT(edited.err, !Contains("cached"));
  // A new module entry beside the old one, and a new parse and compile of each input (both read
  // the header) beside the old ones: 2 module entries, 4 per-file parses and 4 compiles; the
  // launcher, which the header does not change, has its one entry.
  CHECK(cacheStats(cache)["entries"] == 11);

  // The cache holds this build; TLC_DISABLE_CACHE=1 and --no-cache must each build anyway.
  REQUIRE(build(args, env).err.find("cached") != std::string::npos);
  ToolRun byEnvironment = build(args, {"TLC_CACHE_DIR=" + cache, "TLC_DISABLE_CACHE=1"});
  REQUIRE(byEnvironment.exitCode == 0);
  CHECK_THAT(byEnvironment.err, !Contains("cached"));
  ToolRun disabled =
      build({inputs[0], inputs[1], "--name", "mf", "-o", dir + "/out", "--no-cache"}, env);
  REQUIRE(disabled.exitCode == 0);
  CHECK_THAT(disabled.err, !Contains("cached"));
}

TEST_CASE("a corrupt cache entry is rebuilt, never used", "[cache]") {
  std::string dir = scratchDir("cache-corrupt");
  std::string cache = dir + "/cache";
  std::vector<std::string> env = {"TLC_CACHE_DIR=" + cache};
  std::vector<std::string> args = {sample("vadd/vadd.cu"), "-o", dir + "/out"};
  REQUIRE(build(args, env).exitCode == 0);
  std::string good = readText(dir + "/out/libvadd.so");

  // Damage the cached library in place.
  std::string entry;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(cache, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::filename(it->path()) == "libvadd.so")
      entry = it->path();
  REQUIRE(!entry.empty());
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << "not a library";

  llvm::sys::fs::remove_directories(dir + "/out");
  ToolRun rebuilt = build(args, env);
  REQUIRE(rebuilt.exitCode == 0);
  CHECK_THAT(rebuilt.err, !Contains("cached"));
  CHECK(readText(dir + "/out/libvadd.so") == good);
  CHECK(runTlc({"verify", dir + "/out"}).exitCode == 0);
  // The damaged entry was thrown away and the rebuild stored a good one in its place.
  CHECK(readText(entry) == good);
}

TEST_CASE("eight builders at once share one cache safely", "[cache]") {
  std::string dir = scratchDir("cache-concurrent");
  std::string cache = dir + "/cache";
  struct Job {
    std::vector<std::string> args;
    std::string out;
  };
  std::vector<Job> jobs;
  for (int i = 0; i < 8; ++i) {
    std::string out = dir + "/out" + std::to_string(i);
    switch (i % 3) {
    case 0: // the same module from four builders
    case 1:
      jobs.push_back({{sample("vadd/vadd.cu"), "-o", out}, out});
      break;
    default:
      jobs.push_back({{sample("templates/kernels.cu"), "--name", "templates", "-o", out}, out});
    }
  }
  auto runAll = [&] {
    std::vector<ToolRun> results(jobs.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < jobs.size(); ++i)
      threads.emplace_back(
          [&, i] { results[i] = build(jobs[i].args, {"TLC_CACHE_DIR=" + cache}); });
    for (std::thread& thread : threads)
      thread.join();
    for (size_t i = 0; i < jobs.size(); ++i) {
      INFO("builder " << i << ": " << results[i].err);
      CHECK(results[i].exitCode == 0);
      ToolRun verify = runTlc({"verify", jobs[i].out});
      INFO(verify.err);
      CHECK(verify.exitCode == 0);
    }
  };
  runAll();
  nlohmann::json afterFirst = cacheStats(cache);
  CHECK(afterFirst["entries"] == 2); // one per module, however many stored it at once
  runAll();
  nlohmann::json afterSecond = cacheStats(cache);
  CHECK(afterSecond["hits"].get<int>() - afterFirst["hits"].get<int>() == 8);

  ToolRun prune = runTlc({"cache", "prune", "--max-size", "0"}, {"TLC_CACHE_DIR=" + cache});
  CHECK(prune.exitCode == 0);
  CHECK(cacheStats(cache)["entries"] == 0);
  CHECK(runTlc({"cache", "clear"}, {"TLC_CACHE_DIR=" + cache}).exitCode == 0);
  CHECK(runTlc({"cache", "prune", "--max-size", "lots"}, {"TLC_CACHE_DIR=" + cache}).exitCode == 2);
}

// The parse's precompiled preambles live in the cache's folder (some 6 to 30 MB each): `tlc cache
// stats` counts them in its size and `prune --max-size` removes them as it removes entries, least
// recently used first.
TEST_CASE("the cache's size and prune count the parse's preambles", "[buildsystem]") {
  std::string dir = scratchDir("cache-size-pch"), cache = dir + "/cache";
  std::vector<std::string> env = {"TLC_CACHE_DIR=" + cache};
  // A preamble is made by the second parse of a command line: two inputs, the same flags.
  for (const char* name : {"a", "b"}) {
    std::string input = dir + "/" + name + ".cu";
    std::ofstream(input) << "__global__ void " << name << "(float* x) { x[0] = 1; }\n";
    REQUIRE(build({input, "--arch", "sm_90", "-o", dir + "/out-" + name, "-q"}, env).exitCode == 0);
  }
  auto preambleFiles = [&] {
    std::vector<std::string> files;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(cache + "/v1-preamble", ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".pch") ||
          llvm::StringRef(it->path()).ends_with(".files"))
        files.push_back(it->path());
    return files;
  };
  REQUIRE(preambleFiles().size() == 2); // one preamble: its precompiled file and its listing
  ToolRun stats = runTlc({"cache", "stats"}, env);
  CHECK_THAT(stats.out, Contains(" of it 1 preamble of the parse)\nhits:"));
  CHECK_THAT(stats.out, Contains(" MiB (")); // megabytes: the preamble is counted in the size

  // Used before either entry: the first to go, and alone enough to bring the cache under 1 MB.
  for (const std::string& file : preambleFiles()) {
    const timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
    REQUIRE(::utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
  }
  ToolRun prune = runTlc({"cache", "prune", "--max-size", "1M"}, env);
  INFO(prune.err);
  CHECK(prune.exitCode == 0);
  CHECK(preambleFiles().empty());
  nlohmann::json after = cacheStats(cache);
  CHECK(after["entries"] == 2);
  CHECK_THAT(runTlc({"cache", "stats"}, env).out, !Contains("of the parse"));
}

TEST_CASE("two builds in different folders give byte-identical outputs", "[buildsystem]") {
  std::string first = scratchDir("reproducible-a"), second = scratchDir("reproducible-b");
  std::vector<std::string> a = copyMultiFile(first), b = copyMultiFile(second);
  REQUIRE(build({a[0], a[1], "--name", "mf", "--arch", "sm_80", "--arch", "sm_90a", "-o",
                 first + "/out", "--no-cache"})
              .exitCode == 0);
  REQUIRE(build({b[0], b[1], "--name", "mf", "--arch", "sm_80", "--arch", "sm_90a", "-o",
                 second + "/elsewhere/out", "--no-cache"})
              .exitCode == 0);
  for (const char* file : {"mf.fatbin", "libmf.so", "mf.h", "mf.json"}) {
    INFO(file);
    CHECK(readText(first + "/out/" + file) == readText(second + "/elsewhere/out/" + file));
  }
  CHECK_THAT(readText(first + "/out/mf.json"), !Contains(first));
}

TEST_CASE("tlc verify checks every output against the manifest", "[buildsystem]") {
  std::string out = scratchDir("verify") + "/out";
  REQUIRE(build({sample("vadd/vadd.cu"), "-o", out}).exitCode == 0);
  ToolRun ok = runTlc({"verify", out});
  CHECK(ok.exitCode == 0);
  CHECK_THAT(ok.out, Contains("ok: 3 files of vadd match the manifest"));
  std::ofstream(out + "/vadd.h", std::ios::app) << "/* tampered */\n";
  ToolRun bad = runTlc({"verify", out});
  CHECK(bad.exitCode == 1);
  CHECK_THAT(bad.err, Contains("does not match its manifest"));
  CHECK_THAT(bad.err, Contains("vadd.h: SHA-256 "));
  llvm::sys::fs::remove(out + "/libvadd.so");
  CHECK_THAT(runTlc({"verify", out}).err, Contains("libvadd.so: missing or unreadable"));
  CHECK(runTlc({"verify", scratchDir("verify-empty")}).exitCode == 1);
}

TEST_CASE("progress: [n/N] lines when not on a terminal, none with -q", "[buildsystem]") {
  std::string dir = scratchDir("progress");
  ToolRun shown = build({sample("multi_file/filter.cu"), sample("multi_file/activate.cu"), "--name",
                         "mf", "-o", dir + "/a", "--no-cache"});
  REQUIRE(shown.exitCode == 0);
  CHECK(shown.err.find('\r') == std::string::npos);
  // One line per step, numbered 1 to 7 in order; the parse and nvcc start concurrently, so
  // which comes first varies, but linking the library is always last.
  std::vector<std::string> steps;
  llvm::StringRef rest = shown.err;
  while (!rest.empty()) {
    auto [line, after] = rest.split('\n');
    rest = after;
    std::string prefix = "[" + std::to_string(steps.size() + 1) + "/7] ";
    INFO(line.str());
    REQUIRE(line.starts_with(prefix));
    steps.push_back(line.drop_front(prefix.size()).str());
  }
  std::sort(steps.begin(), steps.end());
  CHECK(steps == std::vector<std::string>{"c++ mf_launcher.cpp", "device link (sm_75)",
                                          "fatbinary (2 targets)", "link libmf.so",
                                          "nvcc activate.cu (sm_75, compute_75)",
                                          "nvcc filter.cu (sm_75, compute_75)", "parse 2 file(s)"});
  CHECK_THAT(shown.err, Contains("[7/7] link libmf.so\n"));
  ToolRun quiet = build({sample("vadd/vadd.cu"), "-o", dir + "/b", "-q", "--no-cache"});
  REQUIRE(quiet.exitCode == 0);
  CHECK(quiet.err.empty());
}

TEST_CASE("compile_commands.json gives each input the build system's flags", "[buildsystem]") {
  std::string dir = scratchDir("compile-commands");
  auto configured = runCommand({"cmake", "-S", fixture("compile_commands"), "-B", dir + "/build",
                                "-G", "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                                "-DCMAKE_CUDA_COMPILER=" + std::string(TLC_NVCC)});
  REQUIRE_EXPECTED(configured);
  INFO(configured->output);
  REQUIRE(configured->exitCode == 0);
  std::string input = fixture("compile_commands/kernels.cu");

  ToolRun without = build({input, "-o", dir + "/plain", "-q"});
  CHECK(without.exitCode == 1); // tile.h and TILE come from the target's settings
  CHECK_THAT(without.err, Contains("'tile.h' file not found"));

  ToolRun with = build({input, "-p", dir + "/build", "-o", dir + "/out", "-q"});
  INFO(with.err);
  REQUIRE(with.exitCode == 0);
  nlohmann::json manifest = nlohmann::json::parse(readText(dir + "/out/kernels.json"));
  CHECK(manifest["archs"] == nlohmann::json::array({"sm_90a"})); // from --generate-code
  CHECK_THAT(manifest["commands"][0].get<std::string>(), Contains("-DTILE=32"));
  CHECK_THAT(manifest["commands"][0].get<std::string>(), Contains("--expt-relaxed-constexpr"));

  ToolRun inspect =
      runTlc({"inspect", "--compile-commands", dir + "/build/compile_commands.json", input});
  CHECK(inspect.exitCode == 0);
  ToolRun missing = build({sample("vadd/vadd.cu"), "-p", dir + "/build", "-o", dir + "/x"});
  CHECK(missing.exitCode == 1);
  CHECK_THAT(missing.err, Contains("has no entry for"));
}

TEST_CASE("the compile database tlc writes gives each header of the user's a CUDA entry",
          "[buildsystem]") {
  // A header shared by the kernels, in a -I folder, named like a C file of the project: without
  // an entry clangd borrows that file's command (-x c-header: 'cstdint' file not found). A
  // system header (-isystem) gets none.
  std::string dir = scratchDir("compile-commands-headers");
  REQUIRE(llvm::sys::fs::create_directories(dir + "/include") == std::error_code());
  REQUIRE(llvm::sys::fs::create_directories(dir + "/kernels") == std::error_code());
  REQUIRE(llvm::sys::fs::create_directories(dir + "/sys") == std::error_code());
  std::ofstream(dir + "/include/tile.h")
      << "#pragma once\n#include <cstdint>\n#include \"tile_detail.h\"\n"
         "struct Tile { int32_t w; };\n";
  std::ofstream(dir + "/include/tile_detail.h") << "#pragma once\n#define TILE_W 4\n";
  std::ofstream(dir + "/sys/vendor.h") << "#pragma once\n#define VENDOR 1\n";
  std::ofstream(dir + "/kernels/k.cu")
      << "#include \"tile.h\"\n#include <vendor.h>\n"
         "__global__ void k(Tile t, int* o) { *o = t.w + TILE_W + VENDOR; }\n";
  std::string db = dir + "/db/compile_commands.json";
  std::vector<std::string> args = {dir + "/kernels/k.cu",
                                   "-I",
                                   dir + "/include",
                                   "-isystem",
                                   dir + "/sys",
                                   "--arch",
                                   "sm_90a",
                                   "-o",
                                   dir + "/out",
                                   "-q",
                                   "--compile-commands-out",
                                   db};
  std::vector<std::string> env = {"TLC_CACHE_DIR=" + dir + "/cache"};
  auto entries = [&] {
    std::map<std::string, std::vector<std::string>> byFile;
    for (const nlohmann::json& entry : nlohmann::json::parse(readText(db)))
      byFile[entry["file"].get<std::string>()] = entry["arguments"];
    return byFile;
  };
  std::set<std::string> expected = {dir + "/kernels/k.cu", dir + "/include/tile.h",
                                    dir + "/include/tile_detail.h"};
  auto files = [&] {
    std::set<std::string> names;
    for (const auto& [file, arguments] : entries())
      names.insert(file);
    return names;
  };

  ToolRun first = build(args, env);
  INFO(first.err);
  REQUIRE(first.exitCode == 0);
  CHECK(files() == expected);
  // A header's command is its input's, the header in the input's place: CUDA, device-side.
  auto byFile = entries();
  std::vector<std::string> header = byFile[dir + "/include/tile.h"];
  std::vector<std::string> input = byFile[dir + "/kernels/k.cu"];
  REQUIRE(!header.empty());
  CHECK(header.back() == dir + "/include/tile.h");
  header.back() = input.back();
  CHECK(header == input);
  CHECK(std::find(input.begin(), input.end(), "cuda") != input.end());

  // A cache hit (no parse) and a build whose parse fails keep them.
  ToolRun hit = build(args, env);
  REQUIRE(hit.exitCode == 0);
  CHECK(files() == expected);
  std::ofstream(dir + "/kernels/k.cu", std::ios::app) << "__global__ void broken( {}\n";
  CHECK(build(args, env).exitCode == 1);
  CHECK(files() == expected);
  // A header no longer included loses its entry at the next parse.
  std::ofstream(dir + "/kernels/k.cu") << "__global__ void k(int* o) { *o = 1; }\n";
  REQUIRE(build(args, env).exitCode == 0);
  CHECK(files() == std::set<std::string>{dir + "/kernels/k.cu"});
}

TEST_CASE("under --launcher ccache an unchanged rebuild reuses nvcc's results", "[buildsystem]") {
  auto ccache = findProgram("ccache");
  if (!ccache) // scripts/bootstrap installs it: its absence is a broken set-up, not a skip
    FAIL("ccache is not installed: " << summarize(ccache.takeError()).message);
  std::string dir = scratchDir("ccache");
  std::vector<std::string> env = {"CCACHE_DIR=" + dir + "/ccache"};
  for (const char* out : {"/a", "/b"}) {
    ToolRun run = build({sample("multi_file/filter.cu"), sample("multi_file/activate.cu"), "--name",
                         "mf", "-o", dir + out, "--launcher", "ccache", "--no-cache", "-q"},
                        env);
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
  }
  RunOptions options;
  options.environment = environmentWith(env);
  auto stats = runCommand({*ccache, "--print-stats"}, options);
  REQUIRE_EXPECTED(stats);
  INFO(stats->output);
  // Two inputs compiled twice: the second time both come from ccache.
  CHECK_THAT(stats->output,
             Contains("direct_cache_hit\t2") || Contains("preprocessed_cache_hit\t2"));
  CHECK(readText(dir + "/a/mf.fatbin") == readText(dir + "/b/mf.fatbin"));
}

// sccache's server remembers a compiler by its real path, with the path it was first given: under
// a launcher tlc gives nvcc by its real path, never by a link in a work folder that a later build
// would find deleted (the second build failed with "failed to spawn ... No such file").
TEST_CASE("under --launcher sccache a later build in another work folder reuses nvcc's results",
          "[buildsystem]") {
  auto sccache = findProgram("sccache");
  if (!sccache) // scripts/bootstrap installs it: its absence is a broken set-up, not a skip
    FAIL("sccache is not installed: " << summarize(sccache.takeError()).message);
  std::string dir = scratchDir("sccache");
  // A server of the test's own: its cache, and a port no other test run's server has. The client
  // waits 10 s for a server it starts unless its configuration says otherwise, which a CI run's
  // other tests (a 400 s CMake build beside it on two cores) once made it miss.
  REQUIRE(!writeFile(dir + "/sccache.toml", "server_startup_timeout_ms = 120000\n"));
  std::vector<std::string> env = {
      "SCCACHE_DIR=" + dir + "/sccache", "SCCACHE_CONF=" + dir + "/sccache.toml",
      "SCCACHE_SERVER_PORT=" + std::to_string(20000 + ::getpid() % 20000),
      "SCCACHE_IDLE_TIMEOUT=120"};
  RunOptions options;
  options.environment = environmentWith(env);
  struct StopServer {
    std::string sccache;
    RunOptions options;
    ~StopServer() {
      llvm::consumeError(runCommand({sccache, "--stop-server"}, options).takeError());
    }
  } stop{*sccache, options};
  for (const char* out : {"/a", "/b", "/c"}) {
    ToolRun run = build({sample("multi_file/filter.cu"), sample("multi_file/activate.cu"), "--name",
                         "mf", "-o", dir + out, "--launcher", "sccache", "--no-cache", "-q"},
                        env);
    INFO(out << ": " << run.err);
    REQUIRE(run.exitCode == 0);
  }
  auto stats = runCommand({*sccache, "--show-stats"}, options);
  REQUIRE_EXPECTED(stats);
  INFO(stats->output);
  // Two inputs compiled three times: the second and third time all four from sccache.
  std::smatch hits;
  std::string text = stats->output;
  REQUIRE(std::regex_search(text, hits, std::regex("Cache hits +([0-9]+)")));
  CHECK(std::stoi(hits[1].str()) >= 4);
  CHECK(readText(dir + "/a/mf.fatbin") == readText(dir + "/c/mf.fatbin"));
}
