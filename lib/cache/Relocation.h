// Paths in cache keys and entries spelled so that another checkout spells them the same. With a
// base folder (as ccache's base_dir) an absolute path under it becomes relative to the current
// working directory; a path outside it stays absolute. Two checkouts under one base folder, built
// from the same place in each, then have the same keys, and an entry's dependencies, resolved
// against the working directory again on lookup, name the files of the checkout that looks.
#pragma once

#include "llvm/Support/Error.h"

#include <string>

namespace tlc {

class PathRelocation {
public:
  PathRelocation() = default; // relocates nothing

  // `baseDir` "" relocates nothing; else it must be a folder (InputError saying why not).
  static llvm::Expected<PathRelocation> create(const std::string& baseDir);
  // --base-dir when given (`option`), else TLC_BASE_DIR.
  static llvm::Expected<PathRelocation> fromSettings(const std::string* option);

  bool active() const { return !Base.empty(); }
  const std::string& base() const { return Base; } // real path; "" when none

  // An absolute path under the base folder, relative to the working directory; any other
  // path as given.
  std::string path(const std::string& path) const;
  // A flag: an absolute path, or a folder to search after -I, -isystem, -iquote, -idirafter,
  // --include-path=, --system-include=, -L or --library-path=, relocated as path() does; any
  // other flag as given (a path in a macro's value may be in the outputs).
  std::string argument(const std::string& argument) const;

private:
  std::string Base; // real path, no trailing '/'
  std::string Cwd;  // real path
};

// `to` relative to the folder `from`, both absolute and free of "." and "..".
std::string relativePath(llvm::StringRef from, llvm::StringRef to);
// Whether `path` is `folder` or inside it (both absolute and free of "." and "..").
bool isInsideFolder(llvm::StringRef path, llvm::StringRef folder);

} // namespace tlc
