// How text from outside tlc (a kernel's symbol read from a device image, a file name, a C++ name
// Clang printed) goes into the code tlc generates: one function per target language, applied by
// the template renderer to every `{{value}}` (Templates.h), so that a value is data wherever a
// template puts it. A template pastes code only through `{{{value}}}`, and only values tlc makes
// from its own tables take that form (test/unit/render/LiteralsTests.cpp lists them).
//
// Each function's output is safe both inside a string literal of its language, where it reads
// back as exactly the input, and inside a comment there, which it can neither end nor continue
// onto the next line: those are the two places a template puts outside text.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tlc {

enum class TargetLanguage { C, Assembly, Python };

// C and C++ (C11/C++17, trigraphs or not): printable ASCII stays as it is; valid UTF-8 of a
// character from U+00A0 on becomes a universal character name (\u00e9), which also keeps an
// identifier one (a parameter named `été`); `"`, `\`, control bytes, other bytes above 0x7e, a
// `/` next to a `*` (a comment's start or end) and a `?` before another (a trigraph) become
// three-digit octal escapes, which no following digit extends.
std::string cLiteralText(llvm::StringRef text);

// GNU assembler strings and /* */ comments: the same rules as C, but every byte above 0x7e an
// octal escape (as reads C's octal escapes, not its universal character names).
std::string assemblyLiteralText(llvm::StringRef text);

// Python string literals ("...", '...', triple-quoted) and # comments: printable ASCII but `"`,
// `'` and `\` stays; control bytes become \xNN; valid UTF-8 above ASCII becomes \uXXXX or
// \UXXXXXXXX (no bidirectional override reaches a reader); a byte that is not valid UTF-8
// becomes \udcNN, the str Python's surrogateescape decoding gives it, so
// `s.encode("utf-8", "surrogateescape")` is the input's bytes again.
std::string pythonLiteralText(llvm::StringRef text);

// As pythonLiteralText, but keeps line breaks: for the inside of a triple-quoted docstring.
std::string pythonDocstringText(llvm::StringRef text);

// The escaping a template's `{{value}}` gets, by the generated file's suffix (the template's name
// less `.mustache`): .c .cpp .h → C, .S → Assembly, .py .pyi → Python; nullopt for any other.
std::optional<TargetLanguage> templateLanguage(llvm::StringRef templateName);
std::string literalText(TargetLanguage language, llvm::StringRef text);

} // namespace tlc
