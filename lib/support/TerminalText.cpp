// Outside text made harmless for a terminal (TerminalText.h).
#include "support/TerminalText.h"

#include "llvm/Support/ConvertUTF.h"

#include <cstdio>

namespace tlc {

static bool harmful(llvm::UTF32 point) {
  return (point < 0x20 && point != '\n' && point != '\t') || (point >= 0x7f && point < 0xa0) ||
         (point >= 0x202a && point <= 0x202e) || (point >= 0x2066 && point <= 0x2069) ||
         point == 0x200e || point == 0x200f || point == 0x061c;
}

std::string terminalText(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  const auto* at = reinterpret_cast<const llvm::UTF8*>(text.data());
  const auto* end = at + text.size();
  char escaped[12];
  while (at < end) {
    const llvm::UTF8* next = at;
    llvm::UTF32 point = 0;
    if (llvm::convertUTF8Sequence(&next, end, &point, llvm::strictConversion) !=
        llvm::conversionOK) {
      std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned>(*at));
      out += escaped;
      ++at;
      continue;
    }
    if (harmful(point)) {
      std::snprintf(escaped, sizeof escaped, point < 0x100 ? "\\x%02X" : "\\u%04X",
                    static_cast<unsigned>(point));
      out += escaped;
    } else {
      out.append(reinterpret_cast<const char*>(at), next - at);
    }
    at = next;
  }
  return out;
}

} // namespace tlc
