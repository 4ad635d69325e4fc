// One build-cache entry as one blob, for remote storage: its description (files with their
// SHA-256 and sizes, the dependencies with their content hashes) and the files' bytes.
//
//   "tlc-entry 1\n" <header length> "\n" <header JSON> <file bytes, in the header's order>
//
// Unpacking checks every file against its SHA-256 before writing it anywhere: a blob that was
// cut short, damaged or does not match its own description is refused whole.
#pragma once

#include "cache/Cache.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

struct EntryDependency {
  std::string path;
  std::string hash; // dependencyHash() of its content when the entry was built
  bool operator==(const EntryDependency& other) const {
    return path == other.path && hash == other.hash;
  }
};

struct EntryDescription {
  std::vector<CachedFile> files;
  std::vector<EntryDependency> dependencies;
};

// The dependencies (as `relocation` spells them) with their hashes now.
std::vector<EntryDependency> hashDependencies(const std::vector<std::string>& paths,
                                              const PathRelocation& relocation);

// The entry's name under its first key: a digest of its dependency list, as the local cache
// names its entry folders.
std::string entryName(const std::vector<EntryDependency>& dependencies);

// Reads `entry.files` from `outputsDir`, each checked against its SHA-256.
llvm::Expected<std::string> packEntry(const EntryDescription& entry, const std::string& outputsDir);

// Checks every file of `blob` and only then writes them into `dir` (which must exist).
llvm::Expected<EntryDescription> unpackEntry(llvm::StringRef blob, const std::string& dir);

// An entry's file name: a relative path inside the entry, never absolute, never through "..".
bool isSafeEntryFileName(llvm::StringRef name);

} // namespace tlc
