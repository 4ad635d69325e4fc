// Outside text made safe for the languages tlc generates (Literals.h).
#include "render/Literals.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Path.h"

#include <cstdio>

namespace tlc {

static void appendOctal(std::string& out, unsigned char byte) {
  char escaped[5];
  std::snprintf(escaped, sizeof escaped, "\\%03o", byte);
  out += escaped;
}

// Whether the byte at `at` must be escaped in C: it could end or start a comment, form a
// trigraph, end a string or line, or is no printable ASCII.
static bool needsCEscape(llvm::StringRef text, size_t at) {
  unsigned char c = static_cast<unsigned char>(text[at]);
  char previous = at > 0 ? text[at - 1] : '\0';
  char next = at + 1 < text.size() ? text[at + 1] : '\0';
  if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
    return true;
  if (c == '/')
    return previous == '*' || next == '*';
  if (c == '?')
    return next == '?';
  return false;
}

// The UTF-8 sequence at `at` as a universal character name (\u00e9), which C and C++ read the
// same in an identifier (a parameter named `été`), a string literal and a comment; the number of
// bytes it took, or 0 where the bytes are no character a UCN may name (C11 6.4.3: not below
// U+00A0, no surrogate), which then go as octal escapes.
static size_t appendUniversalName(std::string& out, llvm::StringRef text, size_t at) {
  const auto* start = reinterpret_cast<const llvm::UTF8*>(text.data()) + at;
  const auto* end = reinterpret_cast<const llvm::UTF8*>(text.data()) + text.size();
  const llvm::UTF8* sequence = start;
  llvm::UTF32 point = 0;
  if (llvm::convertUTF8Sequence(&sequence, end, &point, llvm::strictConversion) !=
          llvm::conversionOK ||
      point < 0xa0 || (point >= 0xd800 && point <= 0xdfff))
    return 0;
  char escaped[12];
  if (point < 0x10000)
    std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(point));
  else
    std::snprintf(escaped, sizeof escaped, "\\U%08x", static_cast<unsigned>(point));
  out += escaped;
  return static_cast<size_t>(sequence - start);
}

static std::string escapedText(llvm::StringRef text, bool universalNames) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size(); ++at) {
    if (!needsCEscape(text, at)) {
      out += text[at];
      continue;
    }
    if (universalNames && static_cast<unsigned char>(text[at]) > 0x7f)
      if (size_t taken = appendUniversalName(out, text, at)) {
        at += taken - 1;
        continue;
      }
    appendOctal(out, static_cast<unsigned char>(text[at]));
  }
  return out;
}

std::string cLiteralText(llvm::StringRef text) {
  return escapedText(text, /*universalNames=*/true);
}

std::string assemblyLiteralText(llvm::StringRef text) {
  return escapedText(text, /*universalNames=*/false); // as knows no \u
}

static void appendCodePoint(std::string& out, llvm::UTF32 point) {
  char escaped[12];
  if (point < 0x100)
    std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(point));
  else if (point < 0x10000)
    std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(point));
  else
    std::snprintf(escaped, sizeof escaped, "\\U%08x", static_cast<unsigned>(point));
  out += escaped;
}

static std::string pythonText(llvm::StringRef text, bool keepLineBreaks) {
  std::string out;
  out.reserve(text.size());
  const auto* at = reinterpret_cast<const llvm::UTF8*>(text.data());
  const auto* end = at + text.size();
  while (at < end) {
    unsigned char c = *at;
    if (c < 0x80) {
      bool plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\'' && c != '\\';
      if (plain || (keepLineBreaks && c == '\n'))
        out += static_cast<char>(c);
      else
        appendCodePoint(out, c);
      ++at;
      continue;
    }
    // One UTF-8 sequence, as a code point; a byte that starts none is its surrogate escape.
    llvm::UTF32 point = 0;
    const llvm::UTF8* sequence = at;
    if (llvm::convertUTF8Sequence(&sequence, end, &point, llvm::strictConversion) ==
        llvm::conversionOK) {
      appendCodePoint(out, point);
      at = sequence;
    } else {
      appendCodePoint(out, 0xdc00 + c);
      ++at;
    }
  }
  return out;
}

std::string pythonLiteralText(llvm::StringRef text) {
  return pythonText(text, false);
}

std::string pythonDocstringText(llvm::StringRef text) {
  return pythonText(text, true);
}

std::optional<TargetLanguage> templateLanguage(llvm::StringRef templateName) {
  llvm::StringRef suffix = llvm::sys::path::extension(templateName);
  if (suffix == ".c" || suffix == ".cpp" || suffix == ".h")
    return TargetLanguage::C;
  if (suffix == ".S")
    return TargetLanguage::Assembly;
  if (suffix == ".py" || suffix == ".pyi")
    return TargetLanguage::Python;
  return std::nullopt;
}

std::string literalText(TargetLanguage language, llvm::StringRef text) {
  switch (language) {
  case TargetLanguage::C:
    return cLiteralText(text);
  case TargetLanguage::Assembly:
    return assemblyLiteralText(text);
  case TargetLanguage::Python:
    return pythonLiteralText(text);
  }
  return cLiteralText(text);
}

} // namespace tlc
