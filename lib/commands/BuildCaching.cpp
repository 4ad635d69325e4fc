// The build's cache steps: its key, the lookup and the store (commands/BuildCaching.h).
#include "commands/BuildCaching.h"

#include "builder/BuildKey.h"
#include "builder/OutputPaths.h"
#include "builder/PythonPackage.h"
#include "builder/Steps.h"
#include "frontend/UnitFactsJson.h"
#include "publish/Depfile.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/Terminal.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <sys/stat.h>

namespace tlc {

// What the tools printed, as the build showed it: a file of every entry that no build publishes
// (no output's name starts with '.').
static const char* const kToolMessages = ".tool-messages";

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

// The tool messages a restore wrote into `dir`, read (checked against their SHA-256 by the
// restore) and removed: they are shown, never published.
static std::string takeToolMessages(const std::string& dir) {
  std::string path = dir + "/" + kToolMessages;
  auto messages = readFile(path);
  llvm::sys::fs::remove(path);
  if (!messages) {
    llvm::consumeError(messages.takeError());
    return "";
  }
  return std::move(*messages);
}

std::optional<TieredCache::Hit> restoreFromCache(TieredCache& cache, const std::string& key,
                                                 const BuildOptions& options,
                                                 const PathRelocation& relocation,
                                                 const std::string& outputsDir) {
  std::vector<std::string> inputs;
  for (const std::string& input : options.sources.inputs)
    inputs.push_back(relocation.path(absolutePath(input)));
  std::vector<std::string> outputs = publishedFiles(options);
  outputs.push_back(kToolMessages);
  std::optional<TieredCache::Hit> hit = cache.restore(key, outputs, inputs, relocation, outputsDir);
  if (!hit)
    return hit;
  std::vector<CachedFile>& files = hit->entry.files;
  files.erase(std::remove_if(files.begin(), files.end(),
                             [](const CachedFile& file) { return file.name == kToolMessages; }),
              files.end());
  std::string messages = takeToolMessages(outputsDir);
  {
    Progress progress(1, options.quiet);
    progress.start("cached " + options.name + " (" + (hit->remote ? "remote " : "") +
                   llvm::sys::path::filename(hit->entry.entryDir).str() + ")");
  }
  if (!messages.empty()) {
    StderrSection section;
    llvm::errs() << messages;
  }
  return hit;
}

void storeInCache(TieredCache& cache, const std::string& key, const std::string& outputsDir,
                  const std::vector<CachedFile>& outputs,
                  const std::vector<std::string>& dependencies, const PathRelocation& relocation,
                  const std::string& diagnostics) {
  std::vector<std::string> recorded;
  for (const std::string& dependency : dependencies)
    recorded.push_back(relocation.path(dependency));
  std::string messagesPath = outputsDir + "/" + kToolMessages;
  if (llvm::Error error = writeFile(messagesPath, diagnostics)) {
    printToolMessage(MessageKind::Warning,
                     "cannot store the build in the cache: " + summarize(std::move(error)).message);
    return;
  }
  std::vector<CachedFile> files = outputs;
  files.push_back({kToolMessages, sha256Hex(diagnostics)});
  cache.store(key, outputsDir, files, recorded, relocation);
  llvm::sys::fs::remove(messagesPath);
}

std::optional<std::string> restoreCompile(TieredCache& cache, const std::string& key,
                                          const std::string& output,
                                          const std::vector<std::string>& inputs,
                                          const PathRelocation& relocation,
                                          const std::string& workDir) {
  if (!cache.restore(key, {output, kToolMessages}, inputs, relocation, workDir))
    return std::nullopt;
  return takeToolMessages(workDir);
}

void storeCompile(TieredCache& cache, const std::string& key, const std::string& output,
                  const std::string& workDir, const std::vector<std::string>& dependencies,
                  const PathRelocation& relocation, const std::string& messages) {
  auto sha = sha256OfFile(workDir + "/" + output);
  if (!sha) {
    llvm::consumeError(sha.takeError()); // nothing to store; the build itself went well
    return;
  }
  storeInCache(cache, key, workDir, {{output, *sha}}, dependencies, relocation, messages);
}

std::vector<std::string> inputDependencies(const std::vector<std::string>& filesRead,
                                           const std::string& input) {
  std::vector<std::string> dependencies;
  for (const std::string& file : filesRead)
    dependencies.push_back(absolutePath(file));
  dependencies.push_back(absolutePath(input));
  return dependencies;
}

std::optional<CachedParses::Lookup> CachedParses::lookupOf(const std::string& input,
                                                           const std::string& identity) {
  auto at = std::chrono::system_clock::now();
  auto digest = sha256OfFile(input);
  if (!digest) {
    llvm::consumeError(digest.takeError());
    return std::nullopt;
  }
  std::string key = parseStepCacheKey(identity, *digest, Cache.toolMemoDir());
  return Lookup{key, "parse-" + key.substr(0, 16) + ".json", at};
}

// Whether `file` was written or changed at `since` or after, or cannot be told.
static bool changedSince(const std::string& file, std::chrono::system_clock::time_point since) {
  struct stat status{};
  if (::stat(file.c_str(), &status) != 0)
    return true;
  auto time = [](const timespec& spec) {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::seconds(spec.tv_sec) + std::chrono::nanoseconds(spec.tv_nsec)));
  };
  return time(status.st_mtim) >= since || time(status.st_ctim) >= since;
}

std::optional<ParseStore::Kept> CachedParses::find(const std::string& input,
                                                   const std::string& identity) {
  auto lookup = lookupOf(input, identity);
  if (!lookup)
    return std::nullopt;
  std::string file = WorkDir + "/" + lookup->name;
  std::optional<std::string> messages;
  {
    std::lock_guard<std::mutex> lock(Mutex);
    Lookups[{input, identity}] = *lookup;
    messages = restoreCompile(Cache, lookup->key, lookup->name,
                              {Relocation.path(absolutePath(input))}, Relocation, WorkDir);
  }
  if (!messages)
    return std::nullopt;
  auto text = readFile(file);
  llvm::sys::fs::remove(file);
  if (!text) {
    llvm::consumeError(text.takeError());
    return std::nullopt;
  }
  auto facts = readUnitFacts(*text);
  if (!facts || facts->input != input) // not tlc's, or not this input's: parse
    return std::nullopt;
  if (Verbose)
    printToolMessage(MessageKind::Note, "cached: parse " + input);
  return Kept{std::move(*facts), std::move(*messages)};
}

void CachedParses::keep(const std::string& input, const std::string& identity, const Kept& parse) {
  std::optional<Lookup> lookup;
  {
    std::lock_guard<std::mutex> lock(Mutex);
    auto found = Lookups.find({input, identity});
    if (found == Lookups.end())
      return;
    lookup = found->second;
  }
  std::vector<std::string> dependencies = inputDependencies(parse.facts.filesRead, input);
  // Timestamps lag the clock by up to a scheduler tick: a margin keeps an edit made just after
  // the lookup from passing for one made before it.
  auto since = lookup->at - std::chrono::milliseconds(20);
  for (const std::string& file : dependencies)
    if (changedSince(file, since))
      return; // not kept: the parse may have read it before or after the change
  auto text = writeUnitFacts(parse.facts);
  if (!text)
    return;
  std::string file = WorkDir + "/" + lookup->name;
  if (llvm::Error error = writeFile(file, *text, 0600)) {
    llvm::consumeError(std::move(error)); // not kept; the build goes on
    return;
  }
  {
    std::lock_guard<std::mutex> lock(Mutex);
    storeCompile(Cache, lookup->key, lookup->name, WorkDir, dependencies, Relocation,
                 parse.diagnostics);
  }
  llvm::sys::fs::remove(file);
}

llvm::Expected<std::vector<std::string>> compileHeaders(const std::string& workDir,
                                                        const std::string& depfile,
                                                        const std::vector<std::string>& keyed) {
  auto text = readFile(workDir + "/" + depfile);
  if (!text)
    return text.takeError();
  auto prerequisites = depfilePrerequisites(*text);
  if (!prerequisites)
    return prerequisites.takeError();
  llvm::SmallString<256> realWorkDir;
  if (std::error_code error = llvm::sys::fs::real_path(workDir, realWorkDir))
    return llvm::errorCodeToError(error);
  std::string inWorkDir = (realWorkDir + "/").str();
  std::vector<std::string> headers;
  for (const std::string& spelled : *prerequisites) {
    std::string path = llvm::sys::path::is_absolute(spelled) ? spelled : workDir + "/" + spelled;
    llvm::SmallString<256> real;
    if (std::error_code error = llvm::sys::fs::real_path(path, real))
      return llvm::errorCodeToError(error);
    if (!llvm::StringRef(real).starts_with(inWorkDir)) {
      headers.push_back(real.str().str());
      continue;
    }
    llvm::StringRef name = llvm::StringRef(real).drop_front(inWorkDir.size());
    if (std::find(keyed.begin(), keyed.end(), name) == keyed.end())
      return internalError("a compile read " + real.str().str() +
                           ", which is none of the files its cache key holds");
  }
  return headers;
}

std::vector<std::string> fileNames(const std::vector<CachedFile>& files) {
  std::vector<std::string> names;
  for (const CachedFile& file : files)
    names.push_back(file.name);
  return names;
}

} // namespace tlc
