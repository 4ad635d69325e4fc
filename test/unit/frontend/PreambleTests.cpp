// The parse's precompiled preamble (frontend/Preamble.h): a parse that makes one and a parse
// that loads it see exactly what a parse without one sees, and a preamble that is stale, foreign,
// corrupt or holds a file of nvcc's view is never used and never an error.
#include "TestSupport.h"

#include "frontend/Frontend.h"
#include "frontend/Preamble.h"
#include "model/ModelJson.h"
#include "support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

CudaToolkit toolkitInUse() {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  return *toolkit;
}

struct Parsed {
  std::string module; // the model's JSON
  std::vector<std::string> filesRead;
  bool preamble = false;
  std::string diagnostics;
};

Parsed parse(const std::string& input, FrontendOptions options) {
  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  auto units = parseInputs({input}, options, toolkitInUse(), stream);
  REQUIRE_EXPECTED(units);
  REQUIRE(units->size() == 1);
  TranslationUnitFacts& unit = units->front();
  auto analysis = analyze({input}, options, toolkitInUse());
  REQUIRE_EXPECTED(analysis);
  // The model as inspect --json shows it: the library kernel templates too (ImageCheck.h).
  auto module = toJson(analysis->module);
  module["library_kernel_templates"] = analysis->module.libraryKernelTemplates;
  return {module.dump(1), unit.filesRead, unit.fromPreamble, diagnostics};
}

// The preambles `dir` holds (their precompiled files).
std::vector<std::string> preamblesIn(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".pch"))
      found.push_back(it->path());
  return found;
}

// A parse without a preamble, and the preamble the second parse with one made in a scratch
// folder named `name`, for the tests that damage it.
struct Made {
  std::string input = fixture("parity/clang_struct_layout.cu");
  FrontendOptions options = frontendFor("sm_90a");
  Parsed plain;
  std::vector<std::string> made;
};

Made madePreamble(const std::string& name) {
  Made setup;
  setup.plain = parse(setup.input, setup.options);
  setup.options.preambleDir = scratchDir(name);
  parse(setup.input, setup.options);
  setup.made = preamblesIn(setup.options.preambleDir);
  REQUIRE(setup.made.size() == 1);
  return setup;
}

} // namespace

TEST_CASE("a parse with a preamble sees what a parse without one sees", "[preamble]") {
  struct Case {
    const char* input;
    std::vector<std::string> args;
    size_t made; // preambles its parses make: its command line's if new, its includes' if kept
  } cases[] = {
      {"parity/clang_hidden_kernel.cu", {"-I", fixture("parity/compiler")}, 1}, // the view switch
      {"parity/clang_struct_layout.cu", {}, 1},
      {"parity/library_instances.cu", {"-I" + fixture("parity/system")}, 1}, // a library's kernels
      {"parity/template_bodies.cu", {}, 0},
      {"parity/cuda_types.cu", {}, 1},       // <cuda_bf16.h>, <cuda_fp16.h>, <type_traits>
      {"parity/host_headers.cu", {}, 1},     // <omp.h>
      {"tma/valid.cu", {}, 0},               // <tlc/annotations.h> is tlc's, not of Clang's view
      {"parity/toolkit_library.cu", {}, 1},  // CUB's headers
      {"parity/unguarded_header.cu", {}, 0}, // a header without a guard
  };
  std::string dir = scratchDir("preamble-same");
  for (const Case& c : cases) {
    INFO(c.input);
    FrontendOptions options = frontendFor("sm_90a");
    options.extraArgs = c.args;
    std::string input = fixture(c.input);
    Parsed plain = parse(input, options);
    CHECK(!plain.preamble);
    options.preambleDir = dir;
    size_t before = preamblesIn(dir).size();
    // The first parse of a command line leaves a mark, the second makes the preamble and
    // loads it (analyze() in parse()), the parses after load it.
    parse(input, options);
    Parsed loading = parse(input, options);
    CHECK(loading.preamble);
    CHECK(loading.module == plain.module);
    CHECK(loading.filesRead == plain.filesRead);
    CHECK(loading.diagnostics == plain.diagnostics);
    CHECK(preamblesIn(dir).size() - before == c.made);
  }
}

TEST_CASE("a damaged or foreign preamble is not loaded, not an error, and made again",
          "[preamble]") {
  Made setup = madePreamble("preamble-bad");
  const std::string& input = setup.input;
  FrontendOptions& options = setup.options;
  const Parsed& plain = setup.plain;
  const std::vector<std::string>& made = setup.made;

  SECTION("corrupt") {
    REQUIRE(!writeFile(made[0], "not a precompiled header"));
  }
  SECTION("cut short") {
    auto whole = readFile(made[0]);
    REQUIRE_EXPECTED(whole);
    REQUIRE(!writeFile(made[0], whole->substr(0, whole->size() / 2)));
  }
  SECTION("a byte changed near its end") { // Clang loads many such a file without a word
    auto whole = readFile(made[0]);
    REQUIRE_EXPECTED(whole);
    std::string changed = *whole;
    changed[changed.size() - 4096] ^= 0x5a;
    REQUIRE(!writeFile(made[0], changed));
  }
  SECTION("made for another arch") {
    FrontendOptions other = frontendFor("sm_80");
    other.preambleDir = scratchDir("preamble-other");
    parse(input, other);
    std::vector<std::string> foreign = preamblesIn(other.preambleDir);
    REQUIRE(foreign.size() == 1);
    REQUIRE(!copyFile(foreign[0], made[0]));
  }
  auto damaged = readFile(made[0]);
  REQUIRE_EXPECTED(damaged);
  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  auto units = parseInputs({input}, options, toolkitInUse(), stream);
  REQUIRE_EXPECTED(units);
  CHECK(diagnostics.empty());
  CHECK(units->front().filesRead == plain.filesRead);
  // Its digest does not match: it is not loaded but made again in its place (the parse that
  // finds it is one of a command line parsed before), and that one is loaded.
  CHECK(units->front().fromPreamble);
  auto remade = readFile(made[0]);
  REQUIRE_EXPECTED(remade);
  CHECK(*remade != *damaged);
  Parsed again = parse(input, options);
  CHECK(again.preamble);
  CHECK(again.module == plain.module);
}

TEST_CASE("a preamble Clang refuses is not used, not an error, and made again", "[preamble]") {
  Made setup = madePreamble("preamble-refused");
  const std::string& input = setup.input;
  FrontendOptions& options = setup.options;
  const Parsed& plain = setup.plain;
  const std::vector<std::string>& made = setup.made;
  // Bytes its listing's digest vouches for, which Clang cannot load.
  std::string listingPath = made[0].substr(0, made[0].size() - 4) + ".files";
  auto listing = readFile(listingPath);
  REQUIRE_EXPECTED(listing);
  const std::string garbage = "not a precompiled header";
  std::string rest = listing->substr(listing->find('\n'));
  REQUIRE(!writeFile(made[0], garbage, 0600));
  REQUIRE(!writeFile(listingPath, preambleDigest(garbage) + rest, 0600));

  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  auto units = parseInputs({input}, options, toolkitInUse(), stream);
  REQUIRE_EXPECTED(units);
  CHECK(!units->front().fromPreamble);
  CHECK(diagnostics.empty());
  CHECK(units->front().filesRead == plain.filesRead);
  // Refused, it was removed; the next parse makes it again and loads it.
  CHECK(preamblesIn(options.preambleDir).empty());
  Parsed again = parse(input, options);
  CHECK(again.preamble);
  CHECK(again.module == plain.module);
}

TEST_CASE("a preamble holding a file of nvcc's view is not kept", "[preamble]") {
  // A folder of the user's ahead of the C++ library's: the CUDA wrapper's <cmath> is the user's
  // file, which a parse sees in nvcc's view.
  std::string folder = scratchDir("preamble-shadow");
  REQUIRE(!writeFile(folder + "/cmath", "#include_next <cmath>\n"));
  FrontendOptions options = frontendFor("sm_90a");
  options.extraArgs = {"-I", folder};
  options.preambleDir = scratchDir("preamble-shadow-dir");
  std::string input = fixture("parity/clang_struct_layout.cu");
  Parsed parsed = parse(input, options);
  CHECK(!parsed.preamble);
  CHECK(preamblesIn(options.preambleDir).empty());
}

TEST_CASE("a preamble is stale once a file it read changes", "[preamble]") {
  std::string folder = scratchDir("preamble-stale");
  std::string header = folder + "/read.h";
  REQUIRE(!writeFile(header, "int x;\n"));
  PreambleOutput made{"bytes", {header}, {}};
  std::string stem = folder + "/key";
  REQUIRE(storePreamble(stem, made));
  REQUIRE(findPreamble(stem));
  std::this_thread::sleep_for(std::chrono::milliseconds(20)); // another modification time
  REQUIRE(!writeFile(header, "int y;\n"));
  CHECK(!findPreamble(stem));
}

TEST_CASE("a preamble others could have changed is not used", "[preamble]") {
  std::string folder = scratchDir("preamble-writable");
  std::string header = folder + "/read.h";
  REQUIRE(!writeFile(header, "int x;\n"));
  std::string stem = folder + "/key";
  REQUIRE(storePreamble(stem, {"bytes", {header}, {}}));
  REQUIRE(findPreamble(stem));
  for (const char* suffix : {".pch", ".files"}) {
    INFO(suffix);
    REQUIRE(!llvm::sys::fs::setPermissions(stem + suffix, llvm::sys::fs::perms(0666)));
    CHECK(!findPreamble(stem));
    REQUIRE(!llvm::sys::fs::setPermissions(stem + suffix, llvm::sys::fs::perms(0644)));
    CHECK(findPreamble(stem));
  }
}

TEST_CASE("a cache keeps the eight preambles used last", "[preamble]") {
  std::string dir = scratchDir("preamble-kept");
  std::string header = dir + "/read.h";
  REQUIRE(!writeFile(header, "int x;\n"));
  for (int i = 0; i < 10; ++i) {
    REQUIRE(storePreamble(dir + "/key" + std::to_string(i), {"bytes", {header}, {}}));
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // another modification time
    if (i == 2) { // the oldest but one, used again: kept
      REQUIRE(findPreamble(dir + "/key1"));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  CHECK(preamblesIn(dir).size() == 8);
  CHECK(!findPreamble(dir + "/key0"));
  CHECK(findPreamble(dir + "/key1"));
  CHECK(!findPreamble(dir + "/key2"));
  CHECK(findPreamble(dir + "/key9"));
}

TEST_CASE("a cache keeps the marks of the 32 preambles refused last", "[preamble]") {
  std::string dir = scratchDir("preamble-refusals-kept");
  std::string header = dir + "/read.h";
  REQUIRE(!writeFile(header, "int x;\n"));
  for (int i = 0; i < 34; ++i) {
    refusePreamble(dir + "/key" + std::to_string(i), {header});
    std::this_thread::sleep_for(std::chrono::milliseconds(5)); // another modification time
  }
  size_t marks = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    marks += llvm::StringRef(it->path()).ends_with(".refused");
  CHECK(marks == 32);
  CHECK(!preambleRefused(dir + "/key1"));
  CHECK(preambleRefused(dir + "/key2"));
  CHECK(preambleRefused(dir + "/key33"));
}

TEST_CASE("a preamble is made by the second parse of a command line, not the first", "[preamble]") {
  FrontendOptions options = frontendFor("sm_90a");
  options.preambleDir = scratchDir("preamble-second");
  std::string input = fixture("parity/clang_struct_layout.cu");
  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  for (bool expected : {false, true, true}) {
    auto units = parseInputs({input}, options, toolkitInUse(), stream);
    REQUIRE_EXPECTED(units);
    CHECK(units->front().fromPreamble == expected);
    CHECK(preamblesIn(options.preambleDir).size() == (expected ? 1u : 0u));
  }
}

TEST_CASE("a verbose parse (-v) makes and loads no preamble", "[preamble]") {
  FrontendOptions options = frontendFor("sm_90a");
  options.verbose = true;
  options.preambleDir = scratchDir("preamble-verbose");
  Parsed parsed = parse(fixture("parity/clang_struct_layout.cu"), options);
  CHECK(!parsed.preamble);
  CHECK(preamblesIn(options.preambleDir).empty());
}

TEST_CASE("an input's leading system includes are read as the preprocessor would read them",
          "[preamble]") {
  using Names = std::vector<std::string>;
  CHECK(leadingSystemIncludes("#include <a.h>\n#include <b/c.cuh>\nint x;\n#include <d.h>\n") ==
        Names{"a.h", "b/c.cuh"});
  // A byte order mark, blank lines, comments of both kinds, spaces around '#', a line comment
  // after the name, and a last line without its line break.
  CHECK(leadingSystemIncludes("\xEF\xBB\xBF// intro\n\n/* a\n   block */\n  #  include\t<a.h>  "
                              "// why\r\n#include <b.h>") == Names{"a.h", "b.h"});
  // The run ends at a quoted include, another directive, or anything else...
  CHECK(leadingSystemIncludes("#include <a.h>\n#include \"b.h\"\n#include <c.h>\n") ==
        Names{"a.h"});
  CHECK(leadingSystemIncludes("#define X 1\n#include <a.h>\n").empty());
  CHECK(leadingSystemIncludes("#include <a.h>\n#include_next <b.h>\n") == Names{"a.h"});
  CHECK(leadingSystemIncludes("#include MACRO_HEADER\n").empty());
  // ...and wherever the preprocessor would join lines or read past what a name can be.
  CHECK(leadingSystemIncludes("// continued \\\n#include <a.h>\n").empty());
  CHECK(leadingSystemIncludes("#include <a.h> \\\n  <b.h>\n").empty());
  CHECK(leadingSystemIncludes("#include <a.h> // continued \\\n#include <b.h>\n").empty());
  CHECK(leadingSystemIncludes("/* never closed\n#include <a.h>\n").empty());
  CHECK(leadingSystemIncludes("#include <a.h\n").empty());
  CHECK(leadingSystemIncludes("#include <a\"b.h>\n").empty());
  CHECK(leadingSystemIncludes("#include <a\\b.h>\n").empty());
  CHECK(leadingSystemIncludes("#include <>\n").empty());
  CHECK(leadingSystemIncludes("#include <a.h> int x;\n").empty());
}

TEST_CASE("a preamble that cannot be kept is not made again until a file it read changes",
          "[preamble]") {
  // The parse of an input that starts with a header without an include guard: the preamble of
  // its includes is made once, refused, and remembered as such.
  FrontendOptions options = frontendFor("sm_90a");
  options.preambleDir = scratchDir("preamble-unguarded");
  std::string input = fixture("parity/unguarded_header.cu");
  parse(input, options);
  Parsed loading = parse(input, options);
  CHECK(loading.preamble); // the command line's
  std::vector<std::string> marks;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(options.preambleDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".refused"))
      marks.push_back(it->path());
  REQUIRE(marks.size() == 1);
  llvm::sys::fs::file_status before, after;
  REQUIRE(!llvm::sys::fs::status(marks[0], before));
  parse(input, options);
  REQUIRE(!llvm::sys::fs::status(marks[0], after));
  CHECK(after.getUniqueID() == before.getUniqueID()); // not written again: not made again
  CHECK(after.getLastModificationTime() == before.getLastModificationTime());

  // The mark holds while every file it names is as it was.
  std::string folder = scratchDir("preamble-refusal");
  std::string header = folder + "/read.h";
  REQUIRE(!writeFile(header, "int x;\n"));
  std::string stem = folder + "/key";
  CHECK(!preambleRefused(stem));
  refusePreamble(stem, {header});
  CHECK(preambleRefused(stem));
  std::this_thread::sleep_for(std::chrono::milliseconds(20)); // another modification time
  REQUIRE(!writeFile(header, "int y;\n"));
  CHECK(!preambleRefused(stem));
}

TEST_CASE("an error in a header an input's include lines name is shown as included from them",
          "[preamble]") {
  // The preamble of the input's includes holds CUB's header, where Clang finds the error: a
  // parse that loads it would show the header as included from the preamble's own input.
  std::string input = fixture("parity/library_error.cu");
  FrontendOptions options = frontendFor("sm_90a");
  auto failedParse = [&] {
    std::string diagnostics;
    llvm::raw_string_ostream stream(diagnostics);
    auto units = parseInputs({input}, options, toolkitInUse(), stream);
    CHECK(!units);
    llvm::consumeError(units.takeError());
    return diagnostics;
  };
  std::string plain = failedParse();
  CHECK_THAT(plain, Contains("In file included from " + input + ":4:"));
  options.preambleDir = scratchDir("preamble-library-error");
  for (int parse = 0; parse < 3; ++parse) {
    INFO("parse " << parse);
    std::string diagnostics = failedParse();
    CHECK(diagnostics == plain);
    CHECK_THAT(diagnostics, !Contains("tlc_preamble"));
  }
  // The preamble of the input's include line was made, and loaded by the parses after: each
  // of those found an error and parsed again without a preamble.
  CHECK(preamblesIn(options.preambleDir).size() == 1);
}
