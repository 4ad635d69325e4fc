// Paths in cache keys and entries spelled so that another checkout, or another copy of the CUDA
// toolkit, spells them the same.
//
// - A path in the toolkit becomes "<cuda>/" and its place in the toolkit (from their real
//   paths): the toolkit is keyed by its tools' content and its version, and the headers a build
//   read by their content, so a copy of it elsewhere hits where its files are the same.
// - With a base folder (as ccache's base_dir) an absolute path under it becomes relative to the
//   current working directory. Two checkouts under one base folder, built from the same place in
//   each, then have the same keys.
// - Any other path stays absolute.
//
// An entry's dependencies are resolved again on lookup (resolve()): they name the files of the
// checkout and the toolkit that look.
#pragma once

#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tlc {

class PathRelocation {
public:
  PathRelocation() = default; // relocates nothing

  // `baseDir` "" relocates nothing; else it must be a folder (InputError saying why not).
  static llvm::Expected<PathRelocation> create(const std::string& baseDir);
  // --base-dir when given (`option`), else TLC_BASE_DIR.
  static llvm::Expected<PathRelocation> fromSettings(const std::string* option);

  const std::string& base() const { return Base; } // real path; "" when none

  // Files under `root` (the toolkit the build uses) are spelled "<cuda>/...".
  void setToolkit(const std::string& root);

  // A path in the toolkit as "<cuda>/..."; else an absolute path under the base folder, relative
  // to the working directory ("./" put before one that would start with '<'); any other path as
  // given.
  std::string path(const std::string& path) const;
  // A path as path() spells it, to a path of this machine's files.
  std::string resolve(const std::string& spelled) const;
  // A flag: an absolute path, or a folder to search after -I, -isystem, -iquote, -idirafter,
  // --include-path=, --system-include=, -L or --library-path=, spelled as path() does; any
  // other flag as given (a path in a macro's value may be in the outputs).
  std::string argument(const std::string& argument) const;

private:
  // Where `path` really is, or would be when it does not exist.
  std::string realOrAbsolute(const std::string& path) const;

  std::string Base;        // real path, no trailing '/'
  std::string Cwd;         // real path
  std::string Toolkit;     // absolute, as given; "" when none
  std::string ToolkitReal; // its real path

  // Real paths of the folders path() saw, shared by copies and threads: a build relocates each
  // of the few hundred headers it read several times, from a few dozen folders, and realpath(3)
  // reads every component of a path (some 9300 of the 11600 readlink calls of a build of a file
  // including CUB).
  struct RealFolders {
    std::mutex mutex;
    std::map<std::string, std::string> known;
  };
  std::shared_ptr<RealFolders> Folders = std::make_shared<RealFolders>();
};

// `to` relative to the folder `from`, both absolute and free of "." and "..".
std::string relativePath(llvm::StringRef from, llvm::StringRef to);
// Whether `path` is `folder` or inside it (both absolute and free of "." and "..").
bool isInsideFolder(llvm::StringRef path, llvm::StringRef folder);

} // namespace tlc
