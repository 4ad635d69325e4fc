// C identifiers from C++ spellings.
#include "support/Identifiers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace tlc {

std::string identifierFrom(const std::string& spelling) {
  std::string out;
  auto separate = [&] {
    if (!out.empty() && out.back() != '_')
      out += '_';
  };
  for (size_t i = 0; i < spelling.size(); ++i) {
    char c = spelling[i];
    if (llvm::isAlnum(c) || c == '_') {
      out += c;
    } else if (c == '*') {
      separate();
      out += "ptr";
    } else if (c == '&') {
      separate();
      out += "ref";
    } else if (c == '-' && i + 1 < spelling.size() && llvm::isDigit(spelling[i + 1])) {
      separate();
      out += 'm';
    } else if (c == '.') {
      out += 'p'; // 1.5 -> 1p5
    } else {
      separate();
    }
  }
  // Collapse runs of '_' and trim them, so names stay readable: "nn::act" -> "nn_act".
  std::string collapsed;
  for (char c : out)
    if (c != '_' || (!collapsed.empty() && collapsed.back() != '_'))
      collapsed += c;
  while (!collapsed.empty() && collapsed.back() == '_')
    collapsed.pop_back();
  // Reserved-looking spellings read better without their underscores: "__half" -> "half".
  size_t start = collapsed.find_first_not_of('_');
  return start == std::string::npos ? "" : collapsed.substr(start);
}

bool isCIdentifier(llvm::StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

} // namespace tlc
