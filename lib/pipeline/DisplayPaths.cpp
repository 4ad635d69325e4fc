// Spelling build paths for messages and manifests: inputs relative, temporaries by role.
#include "pipeline/DisplayPaths.h"

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
  // A path under the base folder, alone or after -I or `=`.
  if (size_t at = path.find('/'); !Base.empty() && at != std::string::npos) {
    llvm::StringRef before = llvm::StringRef(path).take_front(at);
    if (before.empty() || before == "-I" || before.ends_with("="))
      if (std::string based = underBase(path.substr(at)); !based.empty())
        return before.str() + based;
  }
  return path;
}

std::string DisplayPaths::input(const std::string& path) const {
  std::string absolute = absoluteFolder(path);
  llvm::StringRef relative(absolute);
  if (relative.consume_front(Root))
    return relative.str();
  std::string based = underBase(absolute);
  return based.empty() ? absolute : based;
}

std::string DisplayPaths::sourcePath(const std::string& shown) const {
  for (const std::string& typed : Inputs)
    if (input(typed) == shown)
      return typed;
  if (shown.empty() || llvm::sys::path::is_absolute(shown))
    return shown;
  // Relative to the inputs' folder, or to its real path when it is under the base folder.
  std::string folder = RealRoot.empty() ? Root : RealRoot + "/";
  return absoluteFolder(folder + shown);
}

void DisplayPaths::setBase(const std::string& base) {
  Base = base;
  llvm::SmallString<256> real;
  RealRoot = llvm::sys::fs::real_path(Root, real) ? llvm::StringRef(Root).rtrim('/').str()
                                                  : real.str().str();
}

std::string DisplayPaths::underBase(const std::string& absolute) const {
  if (Base.empty() || RealRoot.empty())
    return "";
  llvm::SmallString<256> real;
  std::string where =
      llvm::sys::fs::real_path(absolute, real) ? absoluteFolder(absolute) : real.str().str();
  return isInsideFolder(where, Base) ? relativePath(RealRoot, where) : "";
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
