// Make-style depfiles: written escaped as GCC does, one rule per target; read as Make reads them.
#include "publish/Depfile.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <set>

namespace tlc {

llvm::Expected<std::string> depfilePath(const std::string& path) {
  llvm::StringRef text(path);
  bool unspellable = text.ends_with("\\") || text.ends_with(":") || llvm::any_of(text, [](char c) {
                       return static_cast<unsigned char>(c) < 0x20;
                     });
  if (unspellable)
    return inputError("cannot write a depfile naming '" + path +
                      "': Make's syntax has no spelling for a line break, a tab, or a backslash "
                      "or colon at the end of a path");
  std::string out;
  size_t backslashes = 0; // just before the current character
  for (char c : path) {
    if (c == ' ')
      out.append(backslashes, '\\'); // 2N+1 backslashes and a space: N backslashes, a space
    if (c == ' ' || c == '#' || c == ':')
      out += '\\';
    if (c == '$')
      out += '$';
    out += c;
    backslashes = c == '\\' ? backslashes + 1 : 0;
  }
  return out;
}

llvm::Error writeDepfile(const std::string& path, const std::string& target,
                         const std::vector<std::string>& dependencies) {
  std::set<std::string> unique;
  for (const std::string& dependency : dependencies)
    unique.insert(absolutePath(dependency));
  // The target as the build system wrote it: Make matches it to its rule's target by name.
  auto targetText = depfilePath(target);
  if (!targetText)
    return targetText.takeError();
  std::string text = *targetText + ":";
  for (const std::string& dependency : unique) {
    auto spelled = depfilePath(dependency);
    if (!spelled)
      return spelled.takeError();
    text += " \\\n  " + *spelled;
  }
  text += "\n";
  return replaceFileIfChanged(path, text);
}

// Whether `text` has the shape writeDepfile gives a depfile: `TARGET:`, then each prerequisite
// on a line of its own, indented by two spaces, every line but the last ending in ` \`. Make's
// syntax alone would take a user's `Reminder: call the vendor` or a YAML file's first line for a
// rule.
static bool writtenByTlc(llvm::StringRef text) {
  if (!text.consume_back("\n"))
    return false;
  llvm::SmallVector<llvm::StringRef, 16> lines;
  text.split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i];
    bool last = i + 1 == lines.size();
    if (!last && !line.consume_back(" \\"))
      return false;
    if (i == 0 ? !line.ends_with(":")
               : !line.consume_front("  ") || line.empty() || line.starts_with(" ") ||
                     line.ends_with("\\"))
      return false;
  }
  auto rules = depfilePrerequisites(text.str() + "\n");
  if (!rules) {
    llvm::consumeError(rules.takeError());
    return false;
  }
  return true;
}

llvm::Error checkDepfileReplaceable(const std::string& path) {
  if (!llvm::sys::fs::exists(path))
    return llvm::Error::success();
  // Far more than any depfile of a build; a bigger file is no depfile tlc wrote.
  constexpr uint64_t kReadLimit = uint64_t(64) << 20;
  auto text = readFile(path, kReadLimit);
  if (!text)
    return text.takeError();
  if (llvm::StringRef(*text).trim().empty() || writtenByTlc(*text))
    return llvm::Error::success();
  return usageError("--depfile '" + path +
                    "' exists and is not a depfile; tlc replaces only what it wrote there: name "
                    "another file");
}

llvm::Expected<std::vector<std::string>> depfilePrerequisites(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  auto endWord = [&] {
    if (inWord)
      words.push_back(std::move(word));
    word.clear();
    inWord = false;
  };
  std::vector<bool> targets; // per word: it ended in an unescaped ':'
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\') {
      size_t end = text.find_first_not_of('\\', i);
      size_t run = (end == std::string::npos ? text.size() : end) - i; // backslashes in a row
      char next = i + run < text.size() ? text[i + run] : '\0';
      if (next == '\n' && run == 1) { // a line continued
        endWord();
        i += run;
        continue;
      }
      if (next == ' ' || next == '\t') {
        word.append(run / 2, '\\');
        inWord = true;
        i += run - 1;
        if (run % 2) { // the space is the path's
          word += next;
          ++i;
        }
        continue;
      }
      if (next == '#' || next == ':') {
        word.append(run - 1, '\\');
        word += next;
        inWord = true;
        i += run;
        continue;
      }
      word.append(run, '\\');
      inWord = true;
      i += run - 1;
      continue;
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      word += '$';
      inWord = true;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      endWord();
      continue;
    }
    if (c == ':' && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\t' ||
                     text[i + 1] == '\n' || text[i + 1] == '\r')) {
      endWord();
      targets.resize(words.size(), false);
      if (!targets.empty())
        targets.back() = true;
      else
        return inputError("not a depfile: a ':' with no target before it");
      continue;
    }
    word += c;
    inWord = true;
  }
  endWord();
  targets.resize(words.size(), false);
  std::vector<std::string> prerequisites;
  bool sawTarget = false;
  for (size_t i = 0; i < words.size(); ++i) {
    if (targets[i]) {
      sawTarget = true;
      continue;
    }
    if (!sawTarget)
      return inputError("not a depfile: '" + words[i] + "' comes before any target");
    prerequisites.push_back(std::move(words[i]));
  }
  return prerequisites;
}

} // namespace tlc
