// Reading tlc's annotations (tlc/annotations.h) from the AST. Each macro becomes
// `__attribute__((annotate("tlc.<key>", "<value>")))`; this turns them into (key, value, location)
// and reports malformed ones. Keys: "name" on kernels; "tma" and "tma_im2col" on parameters.
#pragma once

#include "clang/Basic/SourceLocation.h"

#include <string>
#include <vector>

namespace clang {
class Decl;
}

namespace tlc {

class ClangDiagnostics;

struct Annotation {
  std::string key;   // "name", "tma", "tma_im2col"
  std::string value; // the string argument
  clang::SourceLocation location;
};

// The tlc annotations on `decl`. Annotations whose key tlc does not know, or whose argument is
// not a string literal, are reported as errors and left out.
std::vector<Annotation> readAnnotations(const clang::Decl& decl, ClangDiagnostics& diagnostics);

} // namespace tlc
