// The build's cache as one object, as ccache's Storage is: the local cache and, when one is
// configured, the remote tier behind it. The build asks it for its outputs once and hands it the
// outputs once; which tier answered, and that a remote entry enters through the local cache, stay
// in here.
#pragma once

#include "cache/Cache.h"
#include "cache/RemoteCache.h"

#include <optional>
#include <string>
#include <vector>

namespace tlc {

class TieredCache {
public:
  // `remote` may be null (no --remote-storage); both outlive this.
  TieredCache(BuildCache& local, RemoteCache* remote) : Local(local), Remote(remote) {}

  // Where CacheKey::addToolIdentity remembers the tools' hashes.
  std::string toolMemoDir() const { return Local.toolMemoDir(); }

  struct Hit {
    CacheHit entry;
    bool remote = false; // fetched from the remote tier (into the local cache) first
  };

  // An entry under `key` holding exactly `outputs` (BuildCache::find), from the local cache, else
  // from the remote tier, copied into `dir` and checked there; none when neither has one or the
  // copy failed its checks (the caller builds). Counts the hit or the miss.
  std::optional<Hit> restore(const std::string& key, const std::vector<std::string>& outputs,
                             const std::vector<std::string>& inputs,
                             const PathRelocation& relocation, const std::string& dir);

  // Stores a build's `files` (in `outputsDir`) under `key` in both tiers, with `dependencies`
  // (spelled as `relocation` spells paths), hashed as they are now. A failure only warns.
  void store(const std::string& key, const std::string& outputsDir,
             const std::vector<CachedFile>& files, const std::vector<std::string>& dependencies,
             const PathRelocation& relocation);

private:
  BuildCache& Local;
  RemoteCache* Remote;
};

} // namespace tlc
