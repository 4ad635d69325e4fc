// Printing located diagnostics after the ASTs are gone, as Clang would print them.
#include "checks/SourceDiagnostics.h"

#include "support/Terminal.h"
#include "support/TerminalText.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"

namespace tlc {

struct SourceDiagnostics::Engine {
  Engine(llvm::raw_ostream& os, bool color)
      : Files(clang::FileSystemOptions()), Printer(os, Options),
        Diagnostics(clang::DiagnosticIDs::create(), Options, &Printer, /*ShouldOwnClient=*/false),
        Sources(Diagnostics, Files) {
    Options.ShowColors = color;
    Diagnostics.setSourceManager(&Sources);
    Printer.BeginSourceFile(Language, nullptr);
  }
  ~Engine() { Printer.EndSourceFile(); }

  void report(clang::DiagnosticsEngine::Level level, SourceLocation at, llvm::StringRef message) {
    if (FileNames && at.valid())
      at.file = FileNames(at.file);
    clang::SourceLocation location = translate(at);
    StderrSection section; // printed below any progress line
    unsigned id = Diagnostics.getCustomDiagID(level, "%0");
    // Names in the message may come from an image or a file name: no command to the terminal.
    std::string text = terminalText(message);
    if (location.isValid() || !at.valid()) {
      Diagnostics.Report(location, id) << text;
      return;
    }
    // The file is gone (or unreadable): keep the position in the text at least.
    Diagnostics.Report(id) << (terminalText(at.str()) + ": " + text);
  }

  clang::SourceLocation translate(const SourceLocation& at) {
    if (!at.valid())
      return {};
    auto file = Files.getOptionalFileRef(at.file);
    if (!file)
      return {};
    clang::FileID id = Sources.getOrCreateFileID(*file, clang::SrcMgr::C_User);
    return Sources.translateLineCol(id, at.line, at.column);
  }

  clang::DiagnosticOptions Options;
  clang::LangOptions Language;
  clang::FileManager Files;
  clang::TextDiagnosticPrinter Printer;
  clang::DiagnosticsEngine Diagnostics;
  clang::SourceManager Sources;
  std::function<std::string(const std::string&)> FileNames;
};

SourceDiagnostics::SourceDiagnostics(llvm::raw_ostream& os, bool color)
    : Impl(std::make_unique<Engine>(os, color)) {
}
SourceDiagnostics::~SourceDiagnostics() = default;

void SourceDiagnostics::setFileNames(std::function<std::string(const std::string&)> path) {
  Impl->FileNames = std::move(path);
}

void SourceDiagnostics::error(const SourceLocation& at, llvm::StringRef message) {
  Impl->report(clang::DiagnosticsEngine::Error, at, message);
}
void SourceDiagnostics::warning(const SourceLocation& at, llvm::StringRef message) {
  Impl->report(clang::DiagnosticsEngine::Warning, at, message);
}
void SourceDiagnostics::note(const SourceLocation& at, llvm::StringRef message) {
  Impl->report(clang::DiagnosticsEngine::Note, at, message);
}

} // namespace tlc
