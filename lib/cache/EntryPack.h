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
  std::string hash; // DependencyHashes::of() it when the entry was built
  bool operator==(const EntryDependency& other) const {
    return path == other.path && hash == other.hash;
  }
};

struct EntryDescription {
  std::vector<CachedFile> files;
  std::vector<EntryDependency> dependencies;
};

// The dependencies with their hashes.
std::vector<EntryDependency> hashDependencies(const std::vector<std::string>& paths,
                                              DependencyHashes& hashes);

// The entry's name under its first key: a digest of its dependency list, as the local cache
// names its entry folders.
std::string entryName(const std::vector<EntryDependency>& dependencies);

// Reads `entry.files` from `outputsDir`, each checked against its SHA-256.
llvm::Expected<std::string> packEntry(const EntryDescription& entry, const std::string& outputsDir);

// A packed entry read back: its description, and each file's bytes (in `files` order, inside
// the blob they were read from).
struct UnpackedEntry {
  EntryDescription description;
  std::vector<llvm::StringRef> contents;
};

// Reads `blob`, every file checked against its SHA-256 and every name and size against the
// rules: a blob that fails any check is an InputError saying which.
llvm::Expected<UnpackedEntry> unpackEntry(llvm::StringRef blob);

// An entry's file name: a relative path inside the entry, never absolute, never through "..".
bool isSafeEntryFileName(llvm::StringRef name);

} // namespace tlc
