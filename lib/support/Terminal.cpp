// Terminal facts: color, the status line, tool messages.
#include "support/Terminal.h"

#include "support/TerminalText.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace tlc {

namespace {

std::atomic<ColorChoice> Choice{ColorChoice::Auto};

// Whoever prints to stderr; recursive, as a message may be printed inside a section.
std::recursive_mutex& stderrMutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

// Whether the cursor is at the end of a status line (guarded by stderrMutex).
bool StatusShown = false;

} // namespace

std::optional<ColorChoice> colorChoiceNamed(llvm::StringRef name) {
  if (name == "auto")
    return ColorChoice::Auto;
  if (name == "always")
    return ColorChoice::Always;
  if (name == "never")
    return ColorChoice::Never;
  return std::nullopt;
}

void setColorChoice(ColorChoice choice) {
  Choice = choice;
}

bool stderrIsTerminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

bool isSmartTerminal(bool terminal, const char* term) {
  return terminal && term && *term && std::strcmp(term, "dumb") != 0;
}

bool stderrIsSmartTerminal() {
  return isSmartTerminal(stderrIsTerminal(), std::getenv("TERM"));
}

bool stderrWantsColor() {
  if (Choice != ColorChoice::Auto)
    return Choice == ColorChoice::Always;
  // https://no-color.org: any non-empty value disables color.
  const char* noColor = std::getenv("NO_COLOR");
  if (noColor && *noColor)
    return false;
  const char* term = std::getenv("TERM");
  if (term && std::strcmp(term, "dumb") == 0)
    return false;
  return stderrIsTerminal();
}

void showStatusLine(llvm::StringRef text) {
  std::lock_guard<std::recursive_mutex> lock(stderrMutex());
  llvm::errs() << "\r" << text << "\x1b[K"; // ninja-style: rewrite the status line
  llvm::errs().flush();
  StatusShown = true;
}

void endStatusLine() {
  std::lock_guard<std::recursive_mutex> lock(stderrMutex());
  if (StatusShown)
    llvm::errs() << "\n";
  llvm::errs().flush();
  StatusShown = false;
}

StderrSection::StderrSection() : Lock(stderrMutex()) {
  if (StatusShown) {
    llvm::errs() << "\r\x1b[K"; // the message takes the status line's place
    StatusShown = false;
  }
}

StderrSection::~StderrSection() {
  llvm::errs().flush();
}

void printToolMessage(MessageKind kind, llvm::StringRef message) {
  StderrSection section;
  llvm::raw_ostream& os = llvm::errs();
  bool color = stderrWantsColor();
  os << "tlc: ";
  llvm::HighlightColor highlight = kind == MessageKind::Error     ? llvm::HighlightColor::Error
                                   : kind == MessageKind::Warning ? llvm::HighlightColor::Warning
                                                                  : llvm::HighlightColor::Note;
  const char* label = kind == MessageKind::Error     ? "error: "
                      : kind == MessageKind::Warning ? "warning: "
                                                     : "note: ";
  llvm::WithColor(os, highlight, color ? llvm::ColorMode::Enable : llvm::ColorMode::Disable)
      << label;
  os << terminalText(message) << "\n"; // a name from an image is no command to the terminal
}

} // namespace tlc
