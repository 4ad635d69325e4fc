// The build cache: content-addressed, shared by concurrent builders, never trusted blindly.
//
// A build's key has two parts. The first covers what is known before any work: every input's
// content, every flag, arch and entry, the templates, and the identity of tlc, Clang, nvcc and
// the host compiler. Under it, each entry records the files the build read (headers included)
// with their content hashes; an entry is a hit when all of them still hash the same, which is
// the second part of the key. Outputs are stored with their SHA-256 and checked on every use: a
// corrupt or partial entry is removed and rebuilt, never used. Entries are published by
// renaming a finished staging folder, so a reader never sees half of one.
//
// Trust: a cache is used only when the current user owns its folder, nobody else can write to
// it, and no folder above it can be renamed by another user (openBuildCache); entries must be
// files of the current user's too. An entry's name is the hash of the files the build read with
// their contents, and it is recomputed from those files on every lookup: an entry whose list
// does not hash to its name, that leaves out an input, or holds other files than the outputs
// asked for is not used. Every field of entry.json is checked, so a damaged one is a miss.
//
//   <cache>/v1/<first key>/<second key>/{entry.json, outputs...}
//   <cache>/v1-tools/<digest of a tool's path, inode and times>: the tool's content hash
#pragma once

#include "cache/Relocation.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

// TLC_CACHE_DIR, else $XDG_CACHE_HOME/tlc, else ~/.cache/tlc (the home folder from the user
// database when HOME is unset); "" when there is none.
std::string defaultCacheDir();
// TLC_DISABLE_CACHE: unset, "", 0, false, no, off: enabled; 1, true, yes, on: disabled;
// anything else is a UsageError.
llvm::Expected<bool> cacheEnabledByEnvironment();

// Accumulates the first part of a key.
class CacheKey {
public:
  void add(llvm::StringRef label, llvm::StringRef value);
  llvm::Error addFile(llvm::StringRef label, const std::string& path); // by content
  // Tools by their content, not their files' times or inodes: the same tool on another machine,
  // or rewritten with the same bytes, keys the same (callers key where it is separately). Each
  // hash is remembered in `memoDir` (none: "") under the file's identity on this machine (real
  // path, device, inode, size, times), so each tool is read once per change, not once per
  // build; tools not yet remembered (a new machine: some 200 MiB of toolkit) are read in
  // parallel. `tools`: (label, path), keyed in this order.
  void addToolIdentities(const std::vector<std::pair<std::string, std::string>>& tools,
                         const std::string& memoDir);
  std::string digest() const;

private:
  std::string Material;
};

// The content hashes of the files entries list (remote entries too: RemoteCache.h), by their
// paths as a PathRelocation spells them, each file read once: one lookup checks the same
// headers in every entry under its key, in both tiers. A hash is taken when first asked for,
// so an instance serves one lookup, or one store after a build, not both.
class DependencyHashes {
public:
  explicit DependencyHashes(const PathRelocation& paths) : Paths(paths) {}
  const std::string& of(const std::string& spelled);
  const PathRelocation& paths() const { return Paths; }

private:
  const PathRelocation& Paths;
  llvm::StringMap<std::string> Known;
};

// Why `spelled`, a dependency an entry lists (as a PathRelocation spells paths), is no file tlc
// hashes ("" when it is one; else "not a regular file", say): it must be in a form tlc writes
// (absolute and plain, "<cuda>/..." in the toolkit, relative under a base folder) and name a
// regular file, or nothing. An entry from elsewhere (a remote) listing a device (/dev/zero), a
// FIFO, a folder or a kernel's pseudo-file (/proc, /sys) is refused before anything reads it.
std::string unhashableDependency(const std::string& spelled, const PathRelocation& paths);

struct CachedFile {
  std::string name; // as published in OUTDIR
  std::string sha256;
};

struct CacheHit {
  std::string entryDir;
  std::vector<CachedFile> files;
  std::vector<std::string> dependencies; // what the original build read, as paths here (--depfile)
};

struct CacheStats {
  uint64_t entries = 0, bytes = 0, hits = 0, misses = 0;
  // The parse's precompiled preambles (frontend/Preamble.h), and their bytes: `bytes` counts them
  // too.
  uint64_t preambles = 0, preambleBytes = 0;
};

class BuildCache {
public:
  // A cache in `dir`, created (0700) if missing; InputError saying why it cannot be trusted
  // (owned by another user, writable by others, under a folder others can rename in).
  static llvm::Expected<BuildCache> open(const std::string& dir);

  const std::string& dir() const { return Dir; }
  // Where CacheKey::addToolIdentity remembers the tools' hashes.
  std::string toolMemoDir() const { return Dir + "/v1-tools"; }
  // Where the parse keeps its precompiled preambles (frontend/Preamble.h).
  std::string preambleDir() const { return Dir + "/v1-preamble"; }

  // An entry under `key` holding exactly `outputs` whose dependencies, `inputs` among them
  // (spelled as `hashes` spells paths), still hash to its name.
  std::optional<CacheHit> find(const std::string& key, const std::vector<std::string>& outputs,
                               const std::vector<std::string>& inputs, DependencyHashes& hashes);

  // Copies the entry's files into `dir` and checks each against its SHA-256. On any mismatch
  // or read failure the entry is removed and false returned: the caller builds instead.
  bool restore(const CacheHit& hit, const std::string& dir);

  // Counts a hit or a miss for `tlc cache stats`.
  void count(bool hit);

  // Copies `files` (names inside `outputsDir`, with the SHA-256 the build computed for its
  // manifest) into a new entry under `key`, with the files the build read (spelled as
  // `hashes` spells paths). Losing a race with another builder storing the same entry is not
  // an error; an entry of that name that can never be used (other files than these, a list
  // that does not hash to its name, not the user's) is replaced; a failed store leaves nothing.
  llvm::Error store(const std::string& key, const std::string& outputsDir,
                    const std::vector<CachedFile>& files,
                    const std::vector<std::string>& dependencies, DependencyHashes& hashes);
  // As store(), the files' bytes given (`contents`, in `files` order): a remote entry's.
  llvm::Error store(const std::string& key, const std::vector<CachedFile>& files,
                    const std::vector<llvm::StringRef>& contents,
                    const std::vector<std::string>& dependencies, DependencyHashes& hashes);

  llvm::Expected<CacheStats> stats() const;
  llvm::Error clear();
  // Removes the least recently used entries and preambles until the cache holds at most
  // `maxBytes`.
  llvm::Expected<uint64_t> prune(uint64_t maxBytes); // returns the bytes removed

private:
  explicit BuildCache(std::string dir) : Dir(std::move(dir)) {}
  std::string versionDir() const { return Dir + "/v1"; }
  std::string tmpDir() const { return versionDir() + "/tmp"; }
  void discard(const std::string& entryDir);
  // store()'s work, `place` writing file `index` of `files` to the path it is given.
  llvm::Error storeEntry(const std::string& key, const std::vector<CachedFile>& files,
                         llvm::function_ref<llvm::Error(size_t, const std::string&)> place,
                         const std::vector<std::string>& dependencies, DependencyHashes& hashes);
  std::optional<CacheHit> readEntry(const std::string& entryDir,
                                    const std::vector<std::string>& outputs,
                                    const std::vector<std::string>& inputs,
                                    DependencyHashes& hashes);
  std::string Dir;
};

// The build's cache: the one in `dir` if it can be trusted, else none, with a warning saying
// why (the build then runs without a cache).
std::optional<BuildCache> openBuildCache(const std::string& dir);

// "500M", "10G", "1024K", "4096" (bytes) -> bytes; UsageError otherwise, or when it does not
// fit in 64 bits.
llvm::Expected<uint64_t> parseSize(llvm::StringRef text);

} // namespace tlc
