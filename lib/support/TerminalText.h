// Text from outside tlc as it may reach the user's terminal: a kernel's name read from a device
// image, a file name, a tool's output inside a message. Control characters other than line
// breaks and tabs (ESC starts a terminal's escape sequences: a title, a cleared screen, a
// hyperlink), C1 controls, bidirectional overrides (text that reads otherwise than it is) and
// bytes that are not UTF-8 are written as escapes (\x1B, \u202E), so nothing a name holds is
// ever a command to the terminal. Every tool message (printToolMessage) and source diagnostic
// (checks/SourceDiagnostics) goes through it.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tlc {

std::string terminalText(llvm::StringRef text);

} // namespace tlc
