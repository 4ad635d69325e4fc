// Writing and reading Make-style depfiles (escaping, one rule per target).
#include "build/Depfile.h"

#include "support/Files.h"

#include <set>

namespace tlc {

static std::string escaped(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

llvm::Error writeDepfile(const std::string& path, const std::string& target,
                         const std::vector<std::string>& dependencies) {
  std::set<std::string> unique;
  for (const std::string& dependency : dependencies)
    unique.insert(absolutePath(dependency));
  std::string text = escaped(absolutePath(target)) + ":";
  for (const std::string& dependency : unique)
    text += " \\\n  " + escaped(dependency);
  text += "\n";
  return replaceFileIfChanged(path, text);
}

} // namespace tlc
