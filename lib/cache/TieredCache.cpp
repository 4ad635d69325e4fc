// The local cache and its remote tier behind one lookup and one store (TieredCache.h).
#include "cache/TieredCache.h"

#include "support/Error.h"
#include "support/Terminal.h"

namespace tlc {

std::optional<TieredCache::Hit> TieredCache::restore(const std::string& key,
                                                     const std::vector<std::string>& outputs,
                                                     const std::vector<std::string>& inputs,
                                                     const PathRelocation& relocation,
                                                     const std::string& dir) {
  DependencyHashes lookup(relocation);
  std::optional<CacheHit> hit = Local.find(key, outputs, inputs, lookup);
  bool fromRemote = false;
  if (!hit && Remote && Remote->fetch(key, outputs, inputs, Local, lookup)) { // now local
    hit = Local.find(key, outputs, inputs, lookup);
    fromRemote = true;
  }
  if (hit && Local.restore(*hit, dir)) {
    Local.count(true);
    return Hit{std::move(*hit), fromRemote};
  }
  Local.count(false);
  return std::nullopt;
}

void TieredCache::store(const std::string& key, const std::string& outputsDir,
                        const std::vector<CachedFile>& files,
                        const std::vector<std::string>& dependencies,
                        const PathRelocation& relocation) {
  DependencyHashes built(relocation);
  if (llvm::Error error = Local.store(key, outputsDir, files, dependencies, built))
    printToolMessage(MessageKind::Warning,
                     "cannot store the build in the cache: " + summarize(std::move(error)).message);
  if (Remote)
    Remote->store(key, outputsDir, files, dependencies, built);
}

} // namespace tlc
