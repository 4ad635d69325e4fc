// Terminal facts: color, width, progress lines.
#include "support/Terminal.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace tlc {

bool stderrIsTerminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

bool stderrWantsColor() {
  // https://no-color.org: any non-empty value disables color.
  const char* noColor = std::getenv("NO_COLOR");
  if (noColor && *noColor)
    return false;
  const char* term = std::getenv("TERM");
  if (term && std::strcmp(term, "dumb") == 0)
    return false;
  return stderrIsTerminal();
}

void printToolMessage(MessageKind kind, llvm::StringRef message) {
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
  os << message << "\n";
  os.flush();
}

} // namespace tlc
