// Relocating paths under a base folder: relative to the working directory, component by
// component.
#include "cache/Relocation.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <sys/stat.h>

#include <cstdlib>

namespace tlc {

namespace {

constexpr llvm::StringLiteral ToolkitToken = "<cuda>";

// `path`'s real path, or where it would be when it does not exist.
std::string uncachedRealOrAbsolute(const std::string& path) {
  llvm::SmallString<256> real;
  return llvm::sys::fs::real_path(path, real) ? absolutePath(path) : real.str().str();
}

llvm::SmallVector<llvm::StringRef, 16> components(llvm::StringRef path) {
  return llvm::SmallVector<llvm::StringRef, 16>(llvm::sys::path::begin(path),
                                                llvm::sys::path::end(path));
}

} // namespace

std::string relativePath(llvm::StringRef from, llvm::StringRef to) {
  auto source = components(from), target = components(to);
  size_t common = 0;
  while (common < source.size() && common < target.size() && source[common] == target[common])
    ++common;
  llvm::SmallString<256> relative;
  for (size_t i = common; i < source.size(); ++i)
    llvm::sys::path::append(relative, "..");
  for (size_t i = common; i < target.size(); ++i)
    llvm::sys::path::append(relative, target[i]);
  return relative.empty() ? "." : relative.str().str();
}

bool isInsideFolder(llvm::StringRef path, llvm::StringRef folder) {
  if (folder == "/")
    return path.starts_with("/");
  return path == folder || (path.starts_with(folder) && path[folder.size()] == '/');
}

llvm::Expected<PathRelocation> PathRelocation::create(const std::string& baseDir) {
  PathRelocation relocation;
  if (baseDir.empty())
    return relocation;
  llvm::SmallString<256> base, cwd;
  if (std::error_code ec = llvm::sys::fs::real_path(absolutePath(baseDir), base))
    return inputError("the base folder '" + baseDir + "' cannot be used: " + ec.message());
  if (!llvm::sys::fs::is_directory(base))
    return inputError("the base folder '" + baseDir + "' is not a folder");
  if (std::error_code ec = llvm::sys::fs::current_path(cwd))
    return inputError("cannot read the working folder: " + ec.message());
  relocation.Base = base.str().str();
  relocation.Cwd = cwd.str().str();
  return relocation;
}

llvm::Expected<PathRelocation> PathRelocation::fromSettings(const std::string* option) {
  if (option)
    return create(*option);
  const char* variable = std::getenv("TLC_BASE_DIR");
  return create(variable ? variable : "");
}

void PathRelocation::setToolkit(const std::string& root) {
  Toolkit = absolutePath(root);
  ToolkitReal = uncachedRealOrAbsolute(root);
}

std::string PathRelocation::realOrAbsolute(const std::string& path) const {
  // A file that is no link is where its folder really is; anything else (a link, a missing
  // file, "." or "..") resolves whole.
  llvm::StringRef folder = llvm::sys::path::parent_path(path);
  llvm::StringRef name = llvm::sys::path::filename(path);
  struct stat status;
  if (folder.empty() || name == "." || name == ".." || name == "/" ||
      ::lstat(path.c_str(), &status) != 0 || S_ISLNK(status.st_mode))
    return uncachedRealOrAbsolute(path);
  std::lock_guard<std::mutex> lock(Folders->mutex);
  auto [known, added] = Folders->known.try_emplace(folder.str());
  if (added)
    known->second = uncachedRealOrAbsolute(folder.str());
  return known->second == "/" ? "/" + name.str() : known->second + "/" + name.str();
}

std::string PathRelocation::path(const std::string& path) const {
  if ((Base.empty() && Toolkit.empty()) || !llvm::sys::path::is_absolute(path))
    return path;
  // Compared where the files really are: the working directory is a real path too, and ".."
  // from it must climb the folders the file is in. The toolkit comes first: it may be inside
  // the base folder.
  std::string where = realOrAbsolute(path);
  if (!Toolkit.empty() && isInsideFolder(where, ToolkitReal)) {
    std::string inside = relativePath(ToolkitReal, where);
    return inside == "." ? ToolkitToken.str() : ToolkitToken.str() + "/" + inside;
  }
  if (Base.empty() || !isInsideFolder(where, Base))
    return path;
  std::string relative = relativePath(Cwd, where);
  return llvm::StringRef(relative).starts_with("<") ? "./" + relative : relative;
}

std::string PathRelocation::resolve(const std::string& spelled) const {
  llvm::StringRef rest(spelled);
  if (Toolkit.empty() || !rest.consume_front(ToolkitToken))
    return spelled;
  if (rest.empty())
    return Toolkit;
  return rest.starts_with("/") ? Toolkit + rest.str() : spelled;
}

std::string PathRelocation::argument(const std::string& argument) const {
  if (Base.empty() && Toolkit.empty())
    return argument;
  size_t slash = argument.find('/');
  if (slash == std::string::npos)
    return argument;
  // Only options that name folders to search: a path in a macro's value may end up in the
  // outputs, and must stay in the key as it is.
  llvm::StringRef prefix = llvm::StringRef(argument).take_front(slash);
  if (!llvm::is_contained({"", "-I", "-isystem", "-iquote", "-idirafter",
                           "--include-path=", "--system-include=", "-L", "--library-path="},
                          prefix))
    return argument;
  return prefix.str() + path(argument.substr(slash));
}

} // namespace tlc
