// `tlc cache stats|clear|prune`.
#include "cache/Cache.h"
#include "cache/RemoteCache.h"
#include "commands/Commands.h"
#include "support/Error.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"

namespace tlc {

static std::string humanBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit ? "%.1f %s" : "%.0f %s", value, units[unit]);
  return text;
}

// What of the size the parse's precompiled preambles take, which are no entries but count
// against `prune --max-size` as entries do: " (12.1 MiB of it 2 preambles of the parse)".
static std::string preamblesShare(const CacheStats& stats) {
  if (!stats.preambleBytes)
    return "";
  return " (" + humanBytes(stats.preambleBytes) + " of it " + std::to_string(stats.preambles) +
         (stats.preambles == 1 ? " preamble" : " preambles") + " of the parse)";
}

static llvm::Error printStats(const BuildCache& cache, llvm::raw_ostream& out) {
  auto stats = cache.stats();
  if (!stats)
    return stats.takeError();
  auto enabled = cacheEnabledByEnvironment();
  if (!enabled)
    return enabled.takeError();
  std::string remote = remoteStorageFromEnvironment();
  out << "cache:   " << cache.dir() << (*enabled ? "" : " (disabled)")
      << "\nremote:  " << (remote.empty() ? "none" : maskRemotePassword(remote))
      << "\nentries: " << stats->entries << "\nsize:    " << humanBytes(stats->bytes)
      << preamblesShare(*stats) << "\nhits:    " << stats->hits << "\nmisses:  " << stats->misses
      << "\n";
  return llvm::Error::success();
}

static llvm::Error clear(BuildCache& cache, llvm::raw_ostream& out) {
  if (llvm::Error error = cache.clear())
    return error;
  out << "cleared " << cache.dir() << "\n";
  return llvm::Error::success();
}

static llvm::Error prune(BuildCache& cache, uint64_t limit, llvm::raw_ostream& out) {
  auto removed = cache.prune(limit);
  if (!removed)
    return removed.takeError();
  out << "removed " << humanBytes(*removed) << " from " << cache.dir() << "\n";
  return llvm::Error::success();
}

llvm::Error runCache(const CacheOptions& options, llvm::raw_ostream& out) {
  uint64_t limit = 0;
  if (options.action == CacheAction::Prune) { // a usage error before anything else
    auto size = parseSize(options.maxSize);
    if (!size)
      return size.takeError();
    limit = *size;
  }
  auto opened = BuildCache::open(defaultCacheDir());
  if (!opened)
    return opened.takeError();
  BuildCache& cache = *opened;
  switch (options.action) {
  case CacheAction::Stats:
    return printStats(cache, out);
  case CacheAction::Clear:
    return clear(cache, out);
  case CacheAction::Prune:
    return prune(cache, limit, out);
  }
  llvm_unreachable("unknown cache action");
}

} // namespace tlc
