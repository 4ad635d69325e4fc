// The build's steps over its cache (cache/TieredCache.h), which the conductor (commands/Build.cpp)
// takes in this order: the key, from everything known before building (builder/BuildKey.h); the
// lookup, whose hit restores the outputs and ends the build; after a build, the store of what it
// made with every file it read.
#pragma once

#include "builder/BuildOptions.h"
#include "builder/DisplayPaths.h"
#include "builder/ToolPaths.h"
#include "cache/Cache.h"
#include "cache/Relocation.h"
#include "cache/TieredCache.h"
#include "commands/BuildSetup.h"
#include "frontend/Frontend.h"
#include "support/Hashing.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

// The key of the build of `options` (buildCacheKey): the options, the tools, the inputs by
// content (`digests`, which the manifest shares) and by the names nvcc is told (`identities`),
// and the paths the tools are given as they are (`realPaths`, which the image may name), with
// --python what the package is made of.
llvm::Expected<std::string> cacheKeyOf(const BuildOptions& options, const BuildTools& tools,
                                       const std::vector<SourceIdentity>& identities,
                                       const std::vector<std::string>& realPaths,
                                       const DisplayPaths& paths, const PathRelocation& relocation,
                                       const TieredCache& cache, FileDigests& digests);

// The outputs of the entry under `key`, restored into `outputsDir` (TieredCache::restore) and
// shown as the build's one progress line, "cached NAME (ENTRY)", followed by what the tools
// printed when the entry was built (as ccache replays a compiler's messages); none on a miss.
// The hit's files are the outputs to publish.
std::optional<TieredCache::Hit> restoreFromCache(TieredCache& cache, const std::string& key,
                                                 const BuildOptions& options,
                                                 const PathRelocation& relocation,
                                                 const std::string& outputsDir);

// A build's `outputs` (in `outputsDir`) stored under `key` with the files it read
// (`dependencies`), which the entry records relocated as the key spells paths, and what its tools
// printed (`diagnostics`, as the build showed it). A failure warns.
void storeInCache(TieredCache& cache, const std::string& key, const std::string& outputsDir,
                  const std::vector<CachedFile>& outputs,
                  const std::vector<std::string>& dependencies, const PathRelocation& relocation,
                  const std::string& diagnostics);

// Each input's own nvcc compile in a relocatable build (several inputs: DeviceBuild.h) is cached
// by itself, as ccache caches a translation unit, so that editing one file of many compiles that
// file alone (and the device link): its key is compileStepCacheKey's (builder/BuildKey.h), its
// entry the one file the compile makes, its dependencies the files the input's parse read. A
// build's module entry is looked up first: a no-change rebuild stays one hit.
//
// The compile's output `output` (a name in `workDir`) restored from the entry under `key` that
// lists `inputs` among its dependencies (paths as the cache spells them), and what the compiler
// printed when it ran (replayed as ccache replays a compiler's messages); none on a miss. The
// launcher's compile is cached the same way (commands/Build.cpp).
std::optional<std::string> restoreCompile(TieredCache& cache, const std::string& key,
                                          const std::string& output,
                                          const std::vector<std::string>& inputs,
                                          const PathRelocation& relocation,
                                          const std::string& workDir);

// The compile's output stored under `key`, with the files the input's parse read
// (`dependencies`, the input among them) and what nvcc printed (`messages`, as it printed
// them). A failure warns.
void storeCompile(TieredCache& cache, const std::string& key, const std::string& output,
                  const std::string& workDir, const std::vector<std::string>& dependencies,
                  const PathRelocation& relocation, const std::string& messages);

// What an input's own entries (its compile's, its parse's) list as their dependencies: the files
// its parse read and the input, as the module's entry records them (buildDependencies): absolute,
// without "..", which Clang leaves in GCC's headers' paths (/usr/lib/gcc/.../../../../include/c++).
std::vector<std::string> inputDependencies(const std::vector<std::string>& filesRead,
                                           const std::string& input);

// The parses of a build kept in its cache (frontend/Frontend.h, ParseStore), as its compiles are:
// an entry each, under parseStepCacheKey, holding the parse's facts (frontend/UnitFactsJson.h),
// what it printed as the entry's messages, and every file it read as its dependencies. An edit of
// one input of several then parses that input alone. The entries pass through `workDir`; the
// build's lookups and stores take `mutex`, one at a time, as the tiers serve them.
//
// A parse is kept under the key its lookup took (the input's content hashed once, before the
// parse read it), and only when no file it read changed since that lookup (their modification
// and change times, as ccache refuses an include file "too new"): an input or header edited while
// the parse ran would otherwise be kept with the facts of its text before.
class CachedParses : public ParseStore {
public:
  CachedParses(TieredCache& cache, const PathRelocation& relocation, std::string workDir,
               std::mutex& mutex, bool verbose)
      : Cache(cache), Relocation(relocation), WorkDir(std::move(workDir)), Mutex(mutex),
        Verbose(verbose) {}

  std::optional<Kept> find(const std::string& input, const std::string& identity) override;
  void keep(const std::string& input, const std::string& identity, const Kept& parse) override;

private:
  // A lookup's key, the name of the entry's one file, and when it was made.
  struct Lookup {
    std::string key, name;
    std::chrono::system_clock::time_point at;
  };
  // The lookup of `input`'s entry; none when the input cannot be read (the parse says why).
  std::optional<Lookup> lookupOf(const std::string& input, const std::string& identity);

  TieredCache& Cache;
  const PathRelocation& Relocation;
  std::string WorkDir;
  std::mutex& Mutex;
  bool Verbose; // -v: each parse restored is noted, as each compile is
  std::map<std::pair<std::string, std::string>, Lookup> Lookups; // by input and identity; Mutex
};

// The files a host compile in `workDir` read besides `keyed` (names there that its key holds),
// by their real paths, from the depfile it wrote there (`depfile`, its -MD): the compile reaches
// tlc's and the toolkit's headers through links in the work folder. An error when the depfile
// cannot be read, or names a file that is not there or another of the work folder's.
llvm::Expected<std::vector<std::string>> compileHeaders(const std::string& workDir,
                                                        const std::string& depfile,
                                                        const std::vector<std::string>& keyed);

// The names of `files`, as published in OUTDIR.
std::vector<std::string> fileNames(const std::vector<CachedFile>& files);

} // namespace tlc
