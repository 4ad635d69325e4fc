// builder/OutputPaths: an output never overwrites an input. Every output path a build was given
// (OUTDIR's files, --depfile, --compile-commands-out and the header beside it) is compared by
// file, whatever the spelling or link, with the files the build reads, before anything is written
// and again with the headers once they are known; outputs that are not regular files and a
// database over a file of the user's are refused first. Files in a scratch folder; no build runs.
#include "builder/OutputPaths.h"

#include "TestSupport.h"

#include "support/Files.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

using namespace tlc;

namespace {

// A build of `dir`/vadd.cu into `dir`/out, as resolveOptions leaves the options.
BuildOptions optionsIn(const std::string& dir) {
  BuildOptions options;
  options.sources.inputs = {dir + "/vadd.cu"};
  options.outputDir = dir + "/out";
  options.name = "vadd";
  return options;
}

// The message of the check before writing, "" when it passes.
std::string before(const BuildOptions& options) {
  llvm::Error error = OutputPaths(options, publishedFiles(options))
                          .checkBeforeWriting(filesReadBeforeBuilding(options, {}));
  return error ? summarize(std::move(error)).message : "";
}

std::string after(const BuildOptions& options, const std::vector<std::string>& dependencies) {
  llvm::Error error = OutputPaths(options, publishedFiles(options)).checkAgainst(dependencies);
  return error ? summarize(std::move(error)).message : "";
}

ExitCode codeBefore(const BuildOptions& options) {
  return summarize(OutputPaths(options, publishedFiles(options))
                       .checkBeforeWriting(filesReadBeforeBuilding(options, {})))
      .code;
}

} // namespace

TEST_CASE("an output that is an input, by any spelling or link, is refused before writing",
          "[builder]") {
  std::string dir = test::scratchDir("output-paths-inputs");
  REQUIRE(!writeFile(dir + "/vadd.cu", "__global__ void vadd() {}\n"));
  REQUIRE(::symlink((dir + "/vadd.cu").c_str(), (dir + "/link.d").c_str()) == 0);
  REQUIRE(::link((dir + "/vadd.cu").c_str(), (dir + "/hard.d").c_str()) == 0);
  REQUIRE(::mkdir((dir + "/out").c_str(), 0700) == 0);
  BuildOptions options = optionsIn(dir);
  CHECK(before(options).empty());

  for (const std::string& depfile : {dir + "/vadd.cu", dir + "/./vadd.cu", dir + "/out/../vadd.cu",
                                     dir + "/link.d", dir + "/hard.d"}) {
    INFO(depfile);
    BuildOptions named = options;
    named.depfile = depfile;
    CHECK(before(named) == "--depfile '" + depfile + "' would overwrite the input '" + dir +
                               "/vadd.cu': tlc never writes over a file it reads; name another "
                               "path");
    CHECK(codeBefore(named) == ExitCode::UsageError);
  }
  BuildOptions database = options;
  database.compileCommandsOut = dir + "/vadd.cu";
  CHECK_THAT(before(database), Catch::Contains("--compile-commands-out '" + dir +
                                               "/vadd.cu' would overwrite the input"));

  // The compilation database read, and the templates.
  REQUIRE(!writeFile(dir + "/cc.json", "[]\n"));
  BuildOptions reread = options;
  reread.sources.compileCommands = dir + "/cc.json";
  reread.compileCommandsOut = dir + "/cc.json";
  CHECK_THAT(before(reread),
             Catch::Contains("would overwrite the compilation database '" + dir + "/cc.json'"));
  REQUIRE(!writeFile(dir + "/header.h.mustache", "x"));
  BuildOptions templated = options;
  templated.depfile = dir + "/header.h.mustache";
  llvm::Error error =
      OutputPaths(templated, publishedFiles(templated))
          .checkBeforeWriting(filesReadBeforeBuilding(templated, {dir + "/header.h.mustache"}));
  CHECK_THAT(summarize(std::move(error)).message,
             Catch::Contains("would overwrite the template '" + dir + "/header.h.mustache'"));

  // An input OUTDIR would be published over: `tlc build vadd.h -o .` makes vadd.h.
  REQUIRE(!writeFile(dir + "/vadd.h", "__global__ void vadd() {}\n"));
  BuildOptions header = options;
  header.sources.inputs = {dir + "/vadd.h"};
  header.outputDir = dir;
  CHECK(before(header) == "the output '" + dir + "/vadd.h' (-o) would overwrite the input '" + dir +
                              "/vadd.h': tlc never writes over a file it reads; name "
                              "another path");
}

TEST_CASE("an output that is a header the build read is refused once the headers are known",
          "[builder]") {
  std::string dir = test::scratchDir("output-paths-headers");
  REQUIRE(!writeFile(dir + "/vadd.cu", "#include \"vadd.h\"\n"));
  REQUIRE(!writeFile(dir + "/vadd.h", "#define N 4\n"));
  BuildOptions options = optionsIn(dir);
  options.depfile = dir + "/vadd.h";
  CHECK(before(options).empty()); // nothing says yet that the build reads it
  CHECK(after(options, {dir + "/vadd.cu", dir + "/vadd.h"}) ==
        "--depfile '" + dir + "/vadd.h' would overwrite '" + dir +
            "/vadd.h', which the build read: tlc never writes over a file it reads; name another "
            "path");
  CHECK(after(options, {dir + "/vadd.cu"}).empty());

  // -o into the inputs' own folder, where the build read a header named as an output.
  BuildOptions here = optionsIn(dir);
  here.outputDir = dir;
  CHECK_THAT(after(here, {dir + "/vadd.h"}),
             Catch::Contains("the output '" + dir + "/vadd.h' (-o) would overwrite"));
  // Outputs that do not exist yet cannot be anything read.
  CHECK(after(optionsIn(dir), {dir + "/vadd.cu", dir + "/vadd.h"}).empty());
}

TEST_CASE("two outputs in one place are refused", "[builder]") {
  std::string dir = test::scratchDir("output-paths-twice");
  REQUIRE(!writeFile(dir + "/vadd.cu", "x"));
  BuildOptions options = optionsIn(dir);
  options.depfile = dir + "/x.json";
  options.compileCommandsOut = dir + "/x.json";
  CHECK(before(options) == "--depfile '" + dir + "/x.json' and --compile-commands-out '" + dir +
                               "/x.json' are the same file: name different paths");
  BuildOptions inOutdir = optionsIn(dir);
  inOutdir.depfile = dir + "/out/vadd.h";
  CHECK_THAT(before(inOutdir), Catch::Contains("the output '" + dir +
                                               "/out/vadd.h' (-o) and "
                                               "--depfile '" +
                                               dir + "/out/vadd.h' are the same file"));
  BuildOptions header = optionsIn(dir);
  header.depfile = dir + "/db.tlc_nvcc_compat.h";
  header.compileCommandsOut = dir + "/db.json";
  CHECK_THAT(before(header), Catch::Contains("the header --compile-commands-out writes beside"));
}

TEST_CASE("an output path that is not a regular file is refused before anything is written",
          "[builder]") {
  std::string dir = test::scratchDir("output-paths-special");
  REQUIRE(!writeFile(dir + "/vadd.cu", "x"));
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  for (const std::string& path : {dir + "/fifo", std::string("/dev/null"), std::string("/dev/full"),
                                  std::string("/dev/zero")}) {
    INFO(path);
    BuildOptions depfile = optionsIn(dir);
    depfile.depfile = path;
    CHECK_THAT(before(depfile),
               Catch::Contains("cannot write '" + path + "': it exists and is not a regular file"));
    CHECK(codeBefore(depfile) == ExitCode::InputError);
    BuildOptions database = optionsIn(dir);
    database.compileCommandsOut = path;
    CHECK_THAT(before(database), Catch::Contains("cannot write '" + path + "'"));
  }
  // The database's header beside it is checked too: /dev/null.tlc_nvcc_compat.h is never made.
  REQUIRE(::mkfifo((dir + "/db.tlc_nvcc_compat.h").c_str(), 0600) == 0);
  BuildOptions header = optionsIn(dir);
  header.compileCommandsOut = dir + "/db.json";
  CHECK_THAT(before(header), Catch::Contains("cannot write '" + dir + "/db.tlc_nvcc_compat.h'"));
}

TEST_CASE("a compile database written by --compile-commands-out replaces only what tlc wrote there",
          "[builder]") {
  std::string dir = test::scratchDir("output-paths-database");
  REQUIRE(!writeFile(dir + "/vadd.cu", "x"));
  REQUIRE(!writeFile(dir + "/tile.h", "#define TILE 4\n"));
  REQUIRE(!writeFile(dir + "/cmake.json", "[{\"directory\": \"/\", \"file\": \"a.cu\"}]\n"));
  REQUIRE(!writeFile(dir + "/empty.json", ""));
  REQUIRE(!writeFile(dir + "/object.json", "{}"));
  REQUIRE(!writeFile(dir + "/data.json", "[{\"id\":1}]"));
  BuildOptions options = optionsIn(dir);
  for (const char* ok : {"/new.json", "/cmake.json", "/empty.json"}) {
    INFO(ok);
    options.compileCommandsOut = dir + ok;
    CHECK(before(options).empty());
  }
  for (const char* mine : {"/tile.h", "/object.json", "/data.json"}) {
    INFO(mine);
    options.compileCommandsOut = dir + mine;
    CHECK_THAT(before(options),
               Catch::Contains("'" + dir + mine +
                               "' exists and is not a compilation database (a JSON list of "
                               "entries, each naming its file and directory)"));
    CHECK(codeBefore(options) == ExitCode::UsageError);
  }
  // The header beside it: only the one tlc writes.
  REQUIRE(!writeFile(dir + "/db.tlc_nvcc_compat.h", "// the user's own\n"));
  options.compileCommandsOut = dir + "/db.json";
  CHECK_THAT(before(options), Catch::Contains("is not the header tlc writes beside"));
}

TEST_CASE("the files a build publishes are named as the build names them", "[builder]") {
  BuildOptions options;
  options.name = "m";
  using Files = std::vector<std::string>;
  CHECK(publishedFiles(options) == Files{"m.fatbin", "libm.so", "m.h", "m.json"});
  options.emitOnly = true;
  CHECK(publishedFiles(options) == Files{"m.h", "m_launcher.cpp", "m.fatbin", "m_image.S"});
  options.externalImage = true;
  CHECK(publishedFiles(options) == Files{"m.h", "m_launcher.cpp", "m.fatbin"});
}
