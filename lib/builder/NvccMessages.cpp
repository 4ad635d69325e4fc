// nvcc's `file(line): kind: text` diagnostics in the `file:line:col: kind: text` format
// (builder/NvccMessages.h).
#include "builder/NvccMessages.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace tlc {

namespace {

// The first line of one of nvcc's diagnostics, taken apart.
struct Header {
  std::string file;
  unsigned line = 0;
  std::string kind;   // "error", "warning", "remark", "fatal error"
  std::string number; // "#177-D", or empty
  std::string text;
};

// `a.cu(3): error: text`, `a.cu(2): warning #177-D: text`, `a.cu(1): catastrophic error: text`.
std::optional<Header> readHeader(llvm::StringRef line) {
  for (size_t close = line.find("): "); close != llvm::StringRef::npos;
       close = line.find("): ", close + 1)) {
    size_t open = line.rfind('(', close);
    if (open == llvm::StringRef::npos || open == 0)
      continue;
    llvm::StringRef digits = line.slice(open + 1, close);
    Header header;
    if (digits.empty() || !llvm::all_of(digits, llvm::isDigit) ||
        digits.getAsInteger(10, header.line) || header.line == 0)
      continue;
    llvm::StringRef rest = line.drop_front(close + 3);
    static const std::pair<llvm::StringRef, llvm::StringRef> kinds[] = {
        {"catastrophic error", "fatal error"},
        {"internal error", "error"},
        {"error", "error"},
        {"warning", "warning"},
        {"remark", "remark"}};
    bool known = false;
    for (const auto& [written, shown] : kinds)
      if (rest.consume_front(written)) {
        header.kind = shown.str();
        if (written == "internal error")
          header.text = "internal error: ";
        known = true;
        break;
      }
    if (!known)
      continue;
    if (rest.starts_with(" #")) { // the diagnostic's number: " #177-D"
      size_t end = rest.find(':');
      if (end == llvm::StringRef::npos)
        continue;
      header.number = rest.slice(1, end).str();
      rest = rest.drop_front(end);
    }
    if (!rest.consume_front(": "))
      continue;
    header.file = line.take_front(open).str();
    header.text += rest.str();
    return header;
  }
  return std::nullopt;
}

// The column of the caret under nvcc's echo of the line, in bytes from 1, when the echo agrees
// with `source` (the file's line) before the caret or from it to the line's end; 0 otherwise.
// nvcc indents the echo by two spaces, writes a tab as one space, counts the caret's place in
// characters and echoes the line with its macros expanded (`__global__` as
// `__attribute__((global))`), so one side may differ.
unsigned caretColumn(llvm::StringRef echo, llvm::StringRef caretLine, llvm::StringRef source) {
  llvm::StringRef caret = caretLine.rtrim(' ');
  if (!caret.ends_with("^") || caret.drop_back().find_first_not_of(' ') != llvm::StringRef::npos)
    return 0;
  size_t characters = caret.size() - 1;
  if (characters < 2 || !echo.consume_front("  "))
    return 0;
  characters -= 2;
  size_t bytes = 0;
  for (; characters > 0; --characters) {
    if (bytes >= echo.size())
      return 0;
    ++bytes;
    while (bytes < echo.size() && (static_cast<unsigned char>(echo[bytes]) & 0xC0) == 0x80)
      ++bytes; // the rest of one UTF-8 character
  }
  std::string line = source.str();
  std::replace(line.begin(), line.end(), '\t', ' ');
  if (llvm::StringRef(line).starts_with(echo.take_front(bytes)))
    return static_cast<unsigned>(bytes) + 1;
  llvm::StringRef rest = echo.drop_front(bytes).rtrim(' '), own = llvm::StringRef(line).rtrim(' ');
  if (!rest.empty() && own.ends_with(rest))
    return static_cast<unsigned>(own.size() - rest.size()) + 1;
  return 0;
}

// `text` as lines, each without its '\n'; whether the last one ended with one.
std::vector<llvm::StringRef> linesOf(llvm::StringRef text, bool& endsWithNewline) {
  endsWithNewline = text.ends_with("\n");
  if (endsWithNewline)
    text = text.drop_back();
  std::vector<llvm::StringRef> lines;
  if (text.empty() && !endsWithNewline)
    return lines;
  llvm::SmallVector<llvm::StringRef, 64> parts;
  text.split(parts, '\n');
  lines.assign(parts.begin(), parts.end());
  return lines;
}

std::string joined(const std::vector<std::string>& lines, bool endsWithNewline) {
  std::string text = llvm::join(lines, "\n");
  if (endsWithNewline && !lines.empty())
    text += "\n";
  return text;
}

// nvcc's remark after the first warning of a compile.
bool isSuppressionRemark(llvm::StringRef line) {
  return line.starts_with("Remark: The warnings can be suppressed with");
}

} // namespace

std::optional<std::string> SourceLines::operator()(const std::string& file, unsigned line) {
  auto [known, added] = Files.try_emplace(file);
  if (added) {
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (buffer) {
      std::vector<std::string> lines;
      llvm::SmallVector<llvm::StringRef, 256> parts;
      (*buffer)->getBuffer().split(parts, '\n');
      for (llvm::StringRef part : parts)
        lines.push_back(part.rtrim('\r').str());
      known->second = std::move(lines);
    }
  }
  if (!known->second || line == 0 || line > known->second->size())
    return std::nullopt;
  return (*known->second)[line - 1];
}

std::string rewriteNvccDiagnostics(llvm::StringRef text, const SourceLineReader& lines) {
  bool newline = false;
  std::vector<llvm::StringRef> in = linesOf(text, newline);
  std::vector<std::string> out;
  for (size_t i = 0; i < in.size(); ++i) {
    std::optional<Header> header = readHeader(in[i]);
    if (!header) {
      out.push_back(in[i].str());
      continue;
    }
    unsigned column = 0;
    if (i + 2 < in.size())
      if (std::optional<std::string> source = lines(header->file, header->line))
        column = caretColumn(in[i + 1], in[i + 2], *source);
    std::string location = header->file + ":" + std::to_string(header->line) + ":" +
                           (column ? std::to_string(column) + ":" : "");
    out.push_back(location + " " + header->kind + ": " + header->text +
                  (header->number.empty() ? "" : " [" + header->number + "]"));
  }
  return joined(out, newline);
}

std::string dropLaunchedKernelWarnings(
    llvm::StringRef text,
    const std::function<bool(const std::string& file, unsigned line)>& launched) {
  bool newline = false;
  std::vector<llvm::StringRef> in = linesOf(text, newline);
  std::vector<std::string> out;
  bool dropped = false, warningsLeft = false;
  for (size_t i = 0; i < in.size(); ++i) {
    std::optional<Header> header = readHeader(in[i]);
    llvm::StringRef message = header ? llvm::StringRef(header->text) : "";
    if (header && header->kind == "warning" && header->number == "#177-D" &&
        message.starts_with("function \"") &&
        message.ends_with("\" was declared but never referenced") &&
        launched(header->file, header->line)) {
      // The warning's lines run to the blank line that ends it, which goes too.
      while (i + 1 < in.size() && !in[i + 1].empty())
        ++i;
      if (i + 1 < in.size())
        ++i;
      dropped = true;
      continue;
    }
    if (header && header->kind == "warning")
      warningsLeft = true;
    out.push_back(in[i].str());
  }
  if (!dropped)
    return text.str();
  if (!warningsLeft) {
    std::vector<std::string> kept;
    for (size_t i = 0; i < out.size(); ++i) {
      if (isSuppressionRemark(out[i])) {
        if (i + 1 < out.size() && out[i + 1].empty())
          ++i;
        continue;
      }
      kept.push_back(std::move(out[i]));
    }
    out = std::move(kept);
  }
  return joined(out, newline && !out.empty());
}

} // namespace tlc
