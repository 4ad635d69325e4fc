// The build's cache steps: its key, the lookup and the store (commands/BuildCaching.h).
#include "commands/BuildCaching.h"

#include "builder/BuildKey.h"
#include "builder/OutputPaths.h"
#include "builder/PythonPackage.h"
#include "builder/Steps.h"
#include "support/Files.h"

#include "llvm/Support/Path.h"

namespace tlc {

llvm::Expected<std::string> cacheKeyOf(const BuildOptions& options, const BuildTools& tools,
                                       const std::vector<SourceIdentity>& identities,
                                       const std::vector<std::string>& realPaths,
                                       const DisplayPaths& paths, const PathRelocation& relocation,
                                       const TieredCache& cache, FileDigests& digests) {
  KeyInputs inputs{options,
                   tools.toolkit,
                   tools.compiler.path,
                   tools.templates.files(),
                   tools.launcherTypes,
                   identities,
                   realPaths,
                   options.python ? pythonPackageInputs(options.pythonHelpersDir,
                                                        options.sources.frontend.tlcIncludeDir)
                                  : std::vector<std::string>(),
                   cache.toolMemoDir()};
  return buildCacheKey(inputs, paths, relocation,
                       [&digests](const std::string& input) { return digests.of(input); });
}

std::optional<TieredCache::Hit> restoreFromCache(TieredCache& cache, const std::string& key,
                                                 const BuildOptions& options,
                                                 const PathRelocation& relocation,
                                                 const std::string& outputsDir) {
  std::vector<std::string> inputs;
  for (const std::string& input : options.sources.inputs)
    inputs.push_back(relocation.path(absolutePath(input)));
  std::optional<TieredCache::Hit> hit =
      cache.restore(key, publishedFiles(options), inputs, relocation, outputsDir);
  if (hit) {
    Progress progress(1, options.quiet);
    progress.start("cached " + options.name + " (" + (hit->remote ? "remote " : "") +
                   llvm::sys::path::filename(hit->entry.entryDir).str() + ")");
  }
  return hit;
}

void storeInCache(TieredCache& cache, const std::string& key, const std::string& outputsDir,
                  const std::vector<CachedFile>& outputs,
                  const std::vector<std::string>& dependencies, const PathRelocation& relocation) {
  std::vector<std::string> recorded;
  for (const std::string& dependency : dependencies)
    recorded.push_back(relocation.path(dependency));
  cache.store(key, outputsDir, outputs, recorded, relocation);
}

std::vector<std::string> fileNames(const std::vector<CachedFile>& files) {
  std::vector<std::string> names;
  for (const CachedFile& file : files)
    names.push_back(file.name);
  return names;
}

} // namespace tlc
