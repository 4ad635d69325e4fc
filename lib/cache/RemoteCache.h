// The build cache's second tier: a remote store (RemoteStorage.h) shared by many machines.
//
// The local cache stays the first tier. On a local miss the remote is asked; a remote entry is
// checked file by file against its SHA-256 (EntryPack.h), written into the local cache (so the
// next lookup is local) and restored from there like any local entry. A build is also put to
// the remote. The remote mirrors the local cache's two-part key:
//
//   tlc/v1/<first key>/index          the entries under that key: for each, its name, its
//                                     dependencies with their hashes and its files' SHA-256
//   tlc/v1/<first key>/<entry name>   one entry, packed
//
// A remote that fails (down, refusing, timing out, answering garbage) costs only a miss: tlc
// warns once per run and asks it nothing more. An entry that fails its checks is not used;
// the rebuilt entry is put in its place.
#pragma once

#include "cache/Cache.h"
#include "cache/RemoteStorage.h"

#include <memory>
#include <string>
#include <vector>

namespace tlc {

// TLC_REMOTE_STORAGE, or "" when it is unset.
std::string remoteStorageFromEnvironment();

class RemoteCache {
public:
  explicit RemoteCache(std::unique_ptr<RemoteStorage> storage) : Storage(std::move(storage)) {}

  // Looks for a remote entry under `key` whose dependencies all hash the same here (`hashes`,
  // the lookup's, which the local cache then checks the entry with); when one is found and
  // passes every check, stores it into `local` and returns true. The checks, as the local
  // cache's lookup makes them (BuildCache::find): the entry holds exactly `outputs`, lists
  // `inputs` among its dependencies, and lists only files tlc hashes (unhashableDependency),
  // checked before any is read. An entry that fails them never enters the local cache.
  bool fetch(const std::string& key, const std::vector<std::string>& outputs,
             const std::vector<std::string>& inputs, BuildCache& local, DependencyHashes& hashes);

  // Puts a build's entry (as BuildCache::store takes it) to the remote and lists it in the
  // key's index. Failures only warn.
  void store(const std::string& key, const std::string& outputsDir,
             const std::vector<CachedFile>& files, const std::vector<std::string>& dependencies,
             DependencyHashes& hashes);

private:
  // Warns (once per run) and, unless the remote only sent bad data, stops using it.
  void fail(const std::string& reason, bool unreachable);

  std::unique_ptr<RemoteStorage> Storage;
  bool Unreachable = false;
  bool Warned = false;
};

} // namespace tlc
