// How tlc talks to the user's terminal: color only on a terminal, never when NO_COLOR is set, and
// one format for tool messages (`tlc: error: ...`), like ninja and clang.
#pragma once

#include "llvm/ADT/StringRef.h"

namespace tlc {

enum class MessageKind { Error, Warning, Note };

// Whether stderr should get ANSI colors: a terminal, TERM not "dumb", NO_COLOR unset or empty.
bool stderrWantsColor();

// Prints `tlc: error: message` (or warning/note) on stderr, colored when stderrWantsColor().
void printToolMessage(MessageKind kind, llvm::StringRef message);

// Whether stderr is an interactive terminal (progress lines).
bool stderrIsTerminal();

} // namespace tlc
