// Reporting tlc's own findings through a Clang DiagnosticsEngine, so they print exactly like
// compiler diagnostics: `file:line:col: error: ...`, the source line and a caret.
#pragma once

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/StringRef.h"

namespace tlc {

class ClangDiagnostics {
public:
  explicit ClangDiagnostics(clang::DiagnosticsEngine& engine) : Engine(engine) {}

  void error(clang::SourceLocation at, llvm::StringRef message) {
    report(clang::DiagnosticsEngine::Error, at, message);
  }
  void warning(clang::SourceLocation at, llvm::StringRef message) {
    report(clang::DiagnosticsEngine::Warning, at, message);
  }
  void note(clang::SourceLocation at, llvm::StringRef message) {
    report(clang::DiagnosticsEngine::Note, at, message);
  }

private:
  void report(clang::DiagnosticsEngine::Level level, clang::SourceLocation at,
              llvm::StringRef message) {
    Engine.Report(at, Engine.getCustomDiagID(level, "%0")) << message;
  }

  clang::DiagnosticsEngine& Engine;
};

} // namespace tlc
