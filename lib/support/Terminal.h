// How tlc talks to the user's terminal: color when --color and the environment say so (never when
// NO_COLOR is set, unless --color=always), one format for tool messages (`tlc: error: ...`), like
// ninja and clang, and ninja's in-place status line, which no other message ever shares.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <mutex>
#include <optional>
#include <string>

namespace tlc {

enum class MessageKind { Error, Warning, Note };

// --color: auto (the default) colors a terminal whose TERM is not "dumb", without NO_COLOR.
enum class ColorChoice { Auto, Always, Never };

// The spellings --color takes: "auto", "always", "never".
std::optional<ColorChoice> colorChoiceNamed(llvm::StringRef name);

// What --color said, for the rest of the process (the default: Auto).
void setColorChoice(ColorChoice choice);

// Whether stderr should get ANSI colors: --color=always, or under auto: a terminal, TERM not
// "dumb", NO_COLOR unset or empty.
bool stderrWantsColor();

// Prints `tlc: error: message` (or warning/note) on stderr, colored when stderrWantsColor().
void printToolMessage(MessageKind kind, llvm::StringRef message);

// Whether stderr is an interactive terminal.
bool stderrIsTerminal();

// Whether stderr is a terminal that can rewrite a line in place (`\r` and ESC[K), as ninja
// decides: a terminal whose TERM is set and not "dumb". Progress is drawn so only there.
bool stderrIsSmartTerminal();
// The same decision, from whether stderr is a terminal and TERM's value (null: unset).
bool isSmartTerminal(bool terminal, const char* term);

// Shows `text` as the terminal's status line, rewritten in place (the caller checks that stderr is
// a terminal).
void showStatusLine(llvm::StringRef text);

// Leaves the status line shown, if one is, and moves below it (the end of a build's progress).
void endStatusLine();

// Holds stderr for one message (several threads print): the status line is cleared first, as
// ninja does, so that no diagnostic is printed after a progress line on the same line. Every
// message printed during a build is printed inside one.
class StderrSection {
public:
  StderrSection();
  ~StderrSection();
  StderrSection(const StderrSection&) = delete;
  StderrSection& operator=(const StderrSection&) = delete;

private:
  std::unique_lock<std::recursive_mutex> Lock;
};

} // namespace tlc
