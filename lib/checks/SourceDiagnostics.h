// Diagnostics about source positions after the ASTs are gone (cross-file checks). They print
// exactly like Clang's: `file:line:col: error: message`, the source line and a caret.
#pragma once

#include "model/Model.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>

namespace tlc {

class SourceDiagnostics {
public:
  SourceDiagnostics(llvm::raw_ostream& os, bool color);
  ~SourceDiagnostics();

  // Locations whose files are named otherwise than they can be opened (relative to the inputs'
  // folder, as build outputs name them) are printed and read under the name `path` gives.
  void setFileNames(std::function<std::string(const std::string&)> path);

  void error(const SourceLocation& at, llvm::StringRef message);
  void warning(const SourceLocation& at, llvm::StringRef message);
  void note(const SourceLocation& at, llvm::StringRef message);

private:
  struct Engine;
  std::unique_ptr<Engine> Impl;
};

} // namespace tlc
