// render/Literals: outside text in generated code is data. Every byte value, and the pairs that
// make comments, trigraphs, line continuations and escapes, goes through each language's
// escaping into a string literal and into the comments the templates use; the real compiler,
// assembler and interpreter then read back exactly the input, and the code after the comments
// still compiles. The templates paste raw text ({{{...}}}) only for the fields listed here.
#include "render/Literals.h"
#include "render/ModuleApi.h"

#include "TestSupport.h"

#include "support/Files.h"
#include "support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <regex>
#include <set>

using namespace tlc;

namespace {

// Every byte, then the sequences that could end or continue a comment, make a trigraph, end a
// string, or extend an escape: each as text of its own and glued to the next.
std::string torture() {
  std::string text;
  for (int byte = 1; byte < 256; ++byte)
    text += static_cast<char>(byte);
  text += std::string(1, '\0') + "x";
  for (const char* piece : {"*/",
                            "/*",
                            "//",
                            "?"
                            "?/",
                            "?"
                            "?=",
                            "?"
                            "?"
                            "?/",
                            "\\\n",
                            "\\",
                            "\"",
                            "'",
                            "\"\"\"",
                            "\n#error no\n",
                            "*/ int pwned = 1; /*",
                            "\\1234",
                            "\r\n",
                            "\xe2\x80\xae",
                            "caf\xc3\xa9",
                            "\xff\xfe",
                            "\xc3",
                            "\xed\xa0\x80"})
    text += piece;
  return text;
}

std::string byteList(llvm::StringRef text) {
  std::string list;
  for (unsigned char c : text)
    list += std::to_string(c) + ",";
  return list + "0";
}

CommandResult run(const std::vector<std::string>& argv) {
  RunOptions options;
  options.separateErrors = true;
  auto result = runCommand(argv, options);
  REQUIRE_EXPECTED(result);
  return *result;
}

// Compiles `source` as `language` with `flags` and runs it: it must exit 0.
void compileAndRun(const std::string& dir, const std::string& name, const std::string& source,
                   const std::vector<std::string>& compiler) {
  std::string file = dir + "/" + name;
  REQUIRE(!writeFile(file, source));
  std::vector<std::string> argv = compiler;
  argv.insert(argv.end(), {file, "-o", file + ".out"});
  CommandResult built = run(argv);
  INFO(built.output + built.errors);
  REQUIRE(built.succeeded());
  CommandResult ran = run({file + ".out"});
  INFO(ran.output + ran.errors);
  CHECK(ran.succeeded());
}

} // namespace

TEST_CASE("outside text in C and C++ reads back exactly and ends no comment", "[render]") {
  std::string text = torture();
  std::string escaped = cLiteralText(text);
  // Printable ASCII outside the special cases stays as it is.
  CHECK(cLiteralText("saxpy<float> (kernels/a b.cu:3)") == "saxpy<float> (kernels/a b.cu:3)");
  CHECK(cLiteralText("a*/b") == "a*\\057b");
  CHECK(cLiteralText("x\"y\\") == "x\\042y\\134");
  // UTF-8 as universal character names, which an identifier may hold too (a parameter `été`);
  // a C1 control and a byte that starts no character stay octal.
  CHECK(cLiteralText("\xc3\xa9t\xc3\xa9") == "\\u00e9t\\u00e9");
  CHECK(cLiteralText("\xf0\x9f\x98\x80") == "\\U0001f600");
  CHECK(cLiteralText("\xc2\x85") == "\\302\\205");
  CHECK(cLiteralText("\xe9t") == "\\351t");
  for (char c : escaped)
    CHECK((c >= 0x20 && c < 0x7f)); // nothing but printable ASCII reaches the compiler

  std::string source = "// " + escaped + "\n/* " + escaped + " */\nstatic const char kText[] = \"" +
                       escaped + "\";\nstatic const unsigned char kBytes[] = {" + byteList(text) +
                       "};\nint after_comments = 1;\nint " + cLiteralText("\xc3\xa9t\xc3\xa9") +
                       " = 1;\n"
                       "int main(void) {\n"
                       "  if (sizeof kText != sizeof kBytes) return 2;\n"
                       "  for (unsigned i = 0; i < sizeof kBytes; ++i)\n"
                       "    if ((unsigned char)kText[i] != kBytes[i]) return 3;\n"
                       "  return after_comments == 1 && \xc3\xa9t\xc3\xa9 == 1 ? 0 : 4;\n"
                       "}\n";
  std::string dir = test::scratchDir("literals-c");
  // Trigraphs are read in strict C and C++14 modes; C++17 has none; both must hold.
  compileAndRun(dir, "strict.c", source, {"cc", "-std=c11", "-Wall", "-Werror", "-x", "c"});
  compileAndRun(dir, "gnu.c", source, {"cc", "-std=gnu11", "-trigraphs", "-x", "c"});
  compileAndRun(dir, "strict14.cpp", source,
                {"c++", "-std=c++14", "-Wall", "-Werror", "-x", "c++"});
  compileAndRun(dir, "cxx17.cpp", source, {"c++", "-std=c++17", "-Wall", "-Werror", "-x", "c++"});
}

TEST_CASE("outside text in assembly reads back exactly and ends no comment", "[render]") {
  std::string text = torture();
  std::string escaped = assemblyLiteralText(text);
  std::string dir = test::scratchDir("literals-asm");
  std::string source = "/* " + escaped +
                       " */\n  .section .rodata.text,\"a\",@progbits\n  .globl kText\nkText:\n"
                       "  .ascii \"" +
                       escaped + "\"\n  .section .note.GNU-stack,\"\",@progbits\n";
  REQUIRE(!writeFile(dir + "/text.S", source));
  CommandResult assembled =
      run({"cc", "-c", "-x", "assembler", dir + "/text.S", "-o", dir + "/text.o"});
  INFO(assembled.output + assembled.errors);
  REQUIRE(assembled.succeeded());
  CommandResult copied = run({"objcopy", "-O", "binary", "--only-section=.rodata.text",
                              dir + "/text.o", dir + "/text.bin"});
  INFO(copied.output + copied.errors);
  REQUIRE(copied.succeeded());
  CHECK(test::readText(dir + "/text.bin") == text);
}

TEST_CASE("outside text in Python reads back as its surrogate-escaped bytes", "[render]") {
  std::string text = torture();
  std::string escaped = pythonLiteralText(text);
  CHECK(pythonLiteralText("saxpy<float>") == "saxpy<float>");
  CHECK(pythonLiteralText("\xe2\x80\xae") ==
        "\\u202e"); // no bidirectional override reaches a reader
  CHECK(pythonLiteralText("\xff") == "\\udcff");
  for (char c : escaped)
    CHECK((c >= 0x20 && c < 0x7f));
  std::string doc = pythonDocstringText(text);
  std::string dir = test::scratchDir("literals-python");
  std::string source =
      "# " + escaped +
      "\nimport sys\n"
      "s = \"" +
      escaped + "\"  # " + escaped +
      "\n"
      "t = '" +
      escaped +
      "'\n"
      "u = \"\"\"" +
      doc +
      "\"\"\"\n"
      "expected = bytes([" +
      byteList(text) +
      "])[:-1]\n"
      "ok = all(v.encode('utf-8', 'surrogateescape') == expected for v in (s, t, u))\n"
      "sys.exit(0 if ok else 1)\n";
  REQUIRE(!writeFile(dir + "/text.py", source));
  CommandResult ran = run({"python3", dir + "/text.py"});
  INFO(ran.output + ran.errors);
  CHECK(ran.succeeded());
}

TEST_CASE("each template's values are escaped for its language", "[render]") {
  CHECK(templateLanguage("launcher.cpp") == TargetLanguage::C);
  CHECK(templateLanguage("header.h") == TargetLanguage::C);
  CHECK(templateLanguage("python_module.c") == TargetLanguage::C);
  CHECK(templateLanguage("image.S") == TargetLanguage::Assembly);
  CHECK(templateLanguage("python_init.py") == TargetLanguage::Python);
  CHECK(templateLanguage("python_stubs.pyi") == TargetLanguage::Python);
  CHECK_FALSE(templateLanguage("notes.txt"));
  CHECK_FALSE(templateLanguage("argument")); // a partial: rendered inside its template only
}

TEST_CASE("templates paste raw text only from tlc's own tables", "[render]") {
  // {{{field}}} puts text in as code. Each of these is made by tlc from its own tables or
  // files, never from a name, a path or a byte it read: adding one needs that argument.
  const std::set<std::string> raw = {
      "build.launcher_types", // the text of tlc/launcher.h
      "variant_literal",      // 0, 'a' or 'f' (render/LauncherView.cpp, targetEntry)
      "py.accepts",           // TLC_PY_ACCEPTS(...) of tlc's dtype table
      "python.stub_doc",      // pythonDocstringText: escaped, line breaks kept
      "doc",                  // moduleApi()'s descriptions (render/ModuleApi.cpp), checked below
  };
  // They go in /* */ comments of NAME.h: as plain text, with quotes, and none ending one.
  for (const tlc::ModuleApiFunction& function : tlc::moduleApi())
    CHECK(llvm::StringRef(function.doc).find("*/") == llvm::StringRef::npos);
  std::set<std::string> found;
  std::error_code ec;
  std::string dir = std::string(TLC_SOURCE_DIR) + "/templates";
  std::regex triple(R"(\{\{\{\s*([^}\s]+)\s*\}\}\})");
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    if (!llvm::StringRef(it->path()).ends_with(".mustache"))
      continue;
    std::string text = test::readText(it->path());
    for (std::sregex_iterator match(text.begin(), text.end(), triple), last; match != last; ++match)
      found.insert((*match)[1].str());
    // No other delimiters: a `{{=<% %>=}}` would hide tags from this check.
    CHECK(text.find("{{=") == std::string::npos);
    CHECK(text.find("{{&") == std::string::npos); // `{{& x}}` is raw too
  }
  REQUIRE(!ec);
  CHECK(found == raw);
}
