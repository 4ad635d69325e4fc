// builder/NvccMessages: nvcc's `file(line): kind: text` diagnostics in tlc's `file:line:col:`
// format (the column checked against the file's own line), and nvcc's "declared but never
// referenced" warnings for the kernels the launcher library launches dropped.
#include "builder/NvccMessages.h"

#include "llvm/ADT/StringRef.h"

#include <catch2/catch.hpp>

#include <map>

using namespace tlc;

namespace {

// Source lines from a table: {file, {line 1, line 2, ...}}.
SourceLineReader linesOf(std::map<std::string, std::vector<std::string>> files) {
  return [files](const std::string& file, unsigned line) -> std::optional<std::string> {
    auto found = files.find(file);
    if (found == files.end() || line == 0 || line > found->second.size())
      return std::nullopt;
    return found->second[line - 1];
  };
}

bool startsWith(const std::string& text, llvm::StringRef prefix) {
  return llvm::StringRef(text).starts_with(prefix);
}

} // namespace

TEST_CASE("nvcc's diagnostics take tlc's file:line:col format", "[nvcc-messages]") {
  // Issue 36: nvcc's errors were `file(line)` while tlc's and Clang's are `file:line:col`.
  auto lines =
      linesOf({{"a.cu", {"__global__ void k(int* p) {", "  int x = 1", "  p[0] = x;"}},
               {"src/b.cu", {"__global__ void k2(int* p) {", "\tp[0] = undefined_name;"}}});
  std::string nvcc = "a.cu(3): error: expected a \";\"\n"
                     "    p[0] = x;\n"
                     "    ^\n"
                     "\n"
                     "a.cu(2): warning #177-D: variable \"x\" was declared but never referenced\n"
                     "    int x = 1\n"
                     "        ^\n"
                     "\n"
                     "Remark: The warnings can be suppressed with \"-diag-suppress "
                     "<warning-number>\"\n"
                     "\n"
                     "src/b.cu(2): error: identifier \"undefined_name\" is undefined\n"
                     "   p[0] = undefined_name;\n"
                     "          ^\n"
                     "\n"
                     "2 errors detected in the compilation of \"a.cu\".\n";
  std::string expected = "a.cu:3:3: error: expected a \";\"\n"
                         "    p[0] = x;\n"
                         "    ^\n"
                         "\n"
                         "a.cu:2:7: warning: variable \"x\" was declared but never referenced "
                         "[#177-D]\n"
                         "    int x = 1\n"
                         "        ^\n"
                         "\n"
                         "Remark: The warnings can be suppressed with \"-diag-suppress "
                         "<warning-number>\"\n"
                         "\n"
                         "src/b.cu:2:9: error: identifier \"undefined_name\" is undefined\n"
                         "   p[0] = undefined_name;\n"
                         "          ^\n"
                         "\n"
                         "2 errors detected in the compilation of \"a.cu\".\n";
  CHECK(rewriteNvccDiagnostics(nvcc, lines) == expected);
}

TEST_CASE("a column is given only where nvcc's echo of the line agrees with the file",
          "[nvcc-messages]") {
  auto lines = linesOf(
      {{"k.cu",
        {"__global__ void k(int* p) { int unused; p[0] = 3; }", // the echo expands __global__
         "  p[0] = BAD(1) + BAD(2);",                           // macros on both sides
         "  const char* s = \"\xC3\xA9\"; p[1] = y;"}}});       // a two-byte character
  // Before the caret the echo differs (a macro expanded): the text from the caret on agrees.
  CHECK(startsWith(
      rewriteNvccDiagnostics("k.cu(1): warning #177-D: variable \"unused\" was declared but "
                             "never referenced\n"
                             "  __attribute__((global)) void k(int* p) { int unused; p[0] = 3; "
                             "}\n"
                             "                                               ^\n",
                             lines),
      "k.cu:1:33: warning: variable"));
  // Both sides differ: no column, rather than a wrong one.
  CHECK(startsWith(rewriteNvccDiagnostics("k.cu(2): error: expected an expression\n"
                                          "    p[0] = 1 + + 2 +;\n"
                                          "                ^\n",
                                          lines),
                   "k.cu:2: error: expected an expression\n"));
  // nvcc counts the caret in characters, tlc in bytes as Clang and gcc do.
  CHECK(startsWith(rewriteNvccDiagnostics("k.cu(3): error: identifier \"y\" is undefined\n"
                                          "    const char* s = \"\xC3\xA9\"; p[1] = y;\n"
                                          "                                ^\n",
                                          lines),
                   "k.cu:3:32: error:"));
  // No caret, or a file tlc cannot read: the line alone.
  CHECK(rewriteNvccDiagnostics("k.cu(3): catastrophic error: cannot open source file \"x.h\"\n",
                               lines) == "k.cu:3: fatal error: cannot open source file \"x.h\"\n");
  CHECK(rewriteNvccDiagnostics("gone.cu(4): error: x\n  a b\n  ^\n", lines) ==
        "gone.cu:4: error: x\n  a b\n  ^\n");
}

TEST_CASE("only nvcc's diagnostic lines are rewritten", "[nvcc-messages]") {
  auto none = linesOf({});
  for (const char* kept :
       {"ptxas info    : Used 8 registers, used 0 barriers\n",
        "nvlink error   : Multiple definition of 'k' in 'b.o'\n",
        "a.cu:1:2: warning: #warning hello [-Wcpp]\n", "f(x): error: not a line number\n",
        "a.cu(0): error: no line 0\n", "a.cu(3): note: not a kind nvcc writes\n", ""})
    CHECK(rewriteNvccDiagnostics(kept, none) == kept);
  // A folder's name may hold parentheses; the line number is the one before "): ".
  CHECK(rewriteNvccDiagnostics("v(2)/a.cu(7): remark #1234: text\n", none) ==
        "v(2)/a.cu:7: remark: text [#1234]\n");
}

TEST_CASE("nvcc's unreferenced-function warning for a kernel tlc launches is dropped",
          "[nvcc-messages]") {
  std::string nvcc = "s.cu(5): warning #177-D: variable \"unused\" was declared but never "
                     "referenced\n"
                     "  int unused;\n"
                     "      ^\n"
                     "\n"
                     "Remark: The warnings can be suppressed with \"-diag-suppress "
                     "<warning-number>\"\n"
                     "\n"
                     "s.cu(1): warning #177-D: function \"sk\" was declared but never referenced\n"
                     "  static __attribute__((global)) void sk(int* p) { p[0] = 1; }\n"
                     "                                      ^\n"
                     "\n"
                     "s.cu(6): warning #177-D: function \"helper\" was declared but never "
                     "referenced\n"
                     "  static __attribute__((device)) int helper() { return 1; }\n"
                     "                                     ^\n"
                     "\n";
  auto kernelAt = [](const std::string& file, unsigned line) {
    return file == "s.cu" && line == 1;
  };
  std::string kept = dropLaunchedKernelWarnings(nvcc, kernelAt);
  CHECK(kept.find("\"sk\"") == std::string::npos);
  CHECK(kept.find("\"helper\"") != std::string::npos); // not a kernel: nvcc's word stands
  CHECK(kept.find("\"unused\"") != std::string::npos);
  CHECK(kept.find("Remark:") != std::string::npos);
  // With only the kernels' warnings, nothing is left, nvcc's remark on warnings neither.
  std::string kernelsOnly = "s.cu(1): warning #177-D: function \"sk\" was declared but never "
                            "referenced\n"
                            "  static __attribute__((global)) void sk(int* p) { p[0] = 1; }\n"
                            "                                      ^\n"
                            "\n"
                            "Remark: The warnings can be suppressed with \"-diag-suppress "
                            "<warning-number>\"\n"
                            "\n";
  CHECK(dropLaunchedKernelWarnings(kernelsOnly, kernelAt) == "");
  CHECK(dropLaunchedKernelWarnings(nvcc, [](const std::string&, unsigned) { return false; }) ==
        nvcc);
}
