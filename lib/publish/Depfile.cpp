// Writing Make-style depfiles: escaping as GCC does, one rule per target.
#include "publish/Depfile.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringRef.h"

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

} // namespace tlc
