// Spelling build paths for messages and manifests: inputs relative, temporaries by role.
#include "builder/DisplayPaths.h"

#include "cache/Relocation.h"
#include "support/Process.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace tlc {

static std::string absoluteFolder(const std::string& path) {
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute, true);
  return absolute.str().str();
}

DisplayPaths::DisplayPaths(const std::vector<std::string>& inputs, std::string workDir)
    : Inputs(inputs), Work(absoluteFolder(workDir) + "/") {
  for (const std::string& input : inputs) {
    std::string folder = llvm::sys::path::parent_path(absoluteFolder(input)).str() + "/";
    if (Root.empty()) {
      Root = folder;
      continue;
    }
    size_t common = 0;
    while (common < Root.size() && common < folder.size() && Root[common] == folder[common])
      ++common;
    Root = Root.substr(0, Root.rfind('/', common ? common - 1 : 0) + 1);
  }
  llvm::SmallString<256> real;
  RealRoot = llvm::sys::fs::real_path(Root, real) ? llvm::StringRef(Root).rtrim('/').str()
                                                  : real.str().str();
}

void DisplayPaths::addPlaceholder(const std::string& folder, const std::string& shown) {
  if (folder.empty())
    return;
  Placeholders.push_back({absoluteFolder(folder), shown});
  std::stable_sort(Placeholders.begin(), Placeholders.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string DisplayPaths::operator()(const std::string& path) const {
  // An input as typed (relative or absolute) shows as the outputs name it everywhere.
  if (std::find(Inputs.begin(), Inputs.end(), path) != Inputs.end())
    return input(path);
  // Arguments such as -I/abs/dir or --create=/abs/file carry paths after a prefix; the inputs'
  // common folder itself is ".".
  llvm::StringRef root = llvm::StringRef(Root);
  root.consume_back("/");
  if (!root.empty() && llvm::StringRef(path).ends_with(root)) {
    size_t at = path.size() - root.size();
    if (at == 0 || path[at - 1] == '=' || llvm::StringRef(path).take_front(at) == "-I")
      return path.substr(0, at) + ".";
  }
  for (const std::string* base : {&Work, &Root}) {
    size_t at = path.find(*base);
    if (at == std::string::npos || base->size() <= 1)
      continue;
    std::string replacement = base == &Work ? "<work>/" : "";
    return path.substr(0, at) + replacement + (*this)(path.substr(at + base->size()));
  }
  // Any other absolute path, alone or after -I or `=`.
  if (size_t at = path.find('/'); at != std::string::npos) {
    llvm::StringRef before = llvm::StringRef(path).take_front(at);
    if (before.empty() || before == "-I" || before == "-L" || before.ends_with("=") ||
        before.ends_with(","))
      return before.str() + outsideInputs(path.substr(at));
  }
  return path;
}

std::string DisplayPaths::input(const std::string& path) const {
  std::string absolute = absoluteFolder(path);
  llvm::StringRef relative(absolute);
  if (relative.consume_front(Root))
    return relative.str();
  return outsideInputs(absolute);
}

std::string DisplayPaths::sourcePath(const std::string& shown) const {
  for (const std::string& typed : Inputs)
    if (input(typed) == shown)
      return typed;
  if (shown.empty() || shown.front() == '<' || llvm::sys::path::is_absolute(shown))
    return shown;
  // Relative to the inputs' folder, through its real path as outsideInputs() made it.
  std::string folder = RealRoot.empty() ? Root : RealRoot + "/";
  return absoluteFolder(folder + shown);
}

std::string DisplayPaths::outsideInputs(const std::string& absolute) const {
  std::string plain = absoluteFolder(absolute);
  for (const auto& [folder, shown] : Placeholders)
    if (isInsideFolder(plain, folder))
      return shown + plain.substr(folder.size());
  if (RealRoot.empty())
    return absolute;
  llvm::SmallString<256> real;
  std::string where = llvm::sys::fs::real_path(plain, real) ? plain : real.str().str();
  return relativePath(RealRoot, where);
}

void DisplayPaths::relativize(Module& module) const {
  auto fix = [&](SourceLocation& location) {
    if (!location.file.empty())
      location.file = input(location.file);
  };
  for (std::string& input : module.inputs)
    input = this->input(input);
  for (Kernel& kernel : module.kernels) {
    fix(kernel.location);
    if (kernel.instantiatedAt)
      fix(*kernel.instantiatedAt);
    fix(kernel.explicitNameLocation);
    for (std::string& unit : kernel.translationUnits)
      unit = input(unit);
    for (Param& param : kernel.params) {
      fix(param.location);
      if (!param.record.header.empty())
        param.record.header = input(param.record.header);
      if (param.tensorMap)
        fix(param.tensorMap->location);
    }
  }
  for (Record& record : module.records) {
    fix(record.location);
    record.header = input(record.header);
  }
}

std::string DisplayPaths::commandLine(const std::vector<std::string>& argv) const {
  std::vector<std::string> shown;
  for (const std::string& arg : argv)
    shown.push_back((*this)(arg));
  return shellQuote(shown);
}

} // namespace tlc
