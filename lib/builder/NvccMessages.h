// nvcc's diagnostics in the one format tlc's, Clang's and gcc's share, so that one error parser
// (an editor's, a CI log's) reads them all: nvcc's front end writes
//
//   a.cu(3): error: expected a ";"
//       p[0] = x;
//       ^
//
// which becomes `a.cu:3:5: error: expected a ";"`, the lines below kept as nvcc wrote them. The
// column is the caret's, counted in bytes as Clang and gcc count; nvcc echoes the line after the
// preprocessor (a macro expanded, a tab as a space), so the column is given only when the echo
// agrees with the file's own line up to the caret, else the location is `a.cu:3:` (gcc's form
// without a column). A diagnostic's number moves to the end, as Clang puts a warning's flag:
// `a.cu:2:7: warning: variable "x" was declared but never referenced [#177-D]` (the number
// -diag-suppress takes). nvcc's preprocessor is the host compiler's, whose messages are in this
// format already.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

// Line `line` (from 1) of `file`, named as a diagnostic names it (relative to the working folder,
// or absolute); none when there is no such file or line.
using SourceLineReader =
    std::function<std::optional<std::string>(const std::string& file, unsigned line)>;

// Reads each file once, from the working folder.
class SourceLines {
public:
  std::optional<std::string> operator()(const std::string& file, unsigned line);

private:
  std::map<std::string, std::optional<std::vector<std::string>>> Files;
};

// `text` (what nvcc printed, with the user's names for files) with every diagnostic's first line
// in tlc's format; `lines` gives the source lines its columns are checked against.
std::string rewriteNvccDiagnostics(llvm::StringRef text, const SourceLineReader& lines);

// `text` without nvcc's `warning #177-D: function "k" was declared but never referenced` (and the
// lines that belong to it) for each kernel at (file, line) where `launched` says tlc's launcher
// library launches one: a static or anonymous-namespace kernel that no code of the input's own
// launches is referenced by the launcher, whose source nvcc never sees. nvcc's remark on how to
// suppress warnings goes when no warning is left.
std::string dropLaunchedKernelWarnings(
    llvm::StringRef text,
    const std::function<bool(const std::string& file, unsigned line)>& launched);

} // namespace tlc
