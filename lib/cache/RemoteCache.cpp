// The remote tier: index and entries on a remote store, fetched into the local cache verified.
#include "cache/RemoteCache.h"

#include "cache/EntryPack.h"
#include "support/Error.h"
#include "support/JsonFields.h"
#include "support/Terminal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>

namespace tlc {
namespace {

// An index keeps the newest entries of a key: a key sees few dependency lists (a header edited
// back and forth), and the index is read whole on every lookup.
constexpr size_t MaxIndexEntries = 16;

// Where the newest of an index's entries (the last ones, as store() appends) begin.
size_t newest(const nlohmann::json& entries) {
  return entries.size() - std::min(entries.size(), MaxIndexEntries);
}

std::string indexKey(const std::string& key) {
  return "tlc/v1/" + key + "/index";
}
std::string entryKey(const std::string& key, const std::string& name) {
  return "tlc/v1/" + key + "/" + name;
}

// Whether `name` is one entryName() gives: 24 lowercase hex digits, so that it names a key of
// the index's own and can be shown as it is.
bool isEntryName(llvm::StringRef name) {
  return name.size() == 24 &&
         llvm::all_of(name, [](char c) { return llvm::isDigit(c) || (c >= 'a' && c <= 'f'); });
}

// Text the remote sent, for a message: anything but printable ASCII escaped (\1B), so that it
// cannot write to the terminal.
std::string shown(llvm::StringRef text) {
  std::string escaped;
  llvm::raw_string_ostream stream(escaped);
  llvm::printEscapedString(text, stream);
  return escaped;
}

// One index entry, read; nullopt when it is malformed.
std::optional<std::pair<std::string, EntryDescription>> readIndexEntry(const nlohmann::json& item) {
  if (!item.is_object() || !hasString(item, "name") || !hasArray(item, "dependencies") ||
      !hasArray(item, "files") || !isEntryName(item.at("name").get<std::string>()))
    return std::nullopt;
  EntryDescription entry;
  for (const nlohmann::json& dependency : item.at("dependencies")) {
    if (!dependency.is_object() || !hasString(dependency, "path") || !hasString(dependency, "hash"))
      return std::nullopt;
    entry.dependencies.push_back({dependency.at("path"), dependency.at("hash")});
  }
  for (const nlohmann::json& file : item.at("files")) {
    if (!file.is_object() || !hasString(file, "name") || !hasString(file, "sha256"))
      return std::nullopt;
    entry.files.push_back({file.at("name"), file.at("sha256")});
  }
  return std::make_pair(item.at("name").get<std::string>(), std::move(entry));
}

nlohmann::json indexEntry(const std::string& name, const EntryDescription& entry) {
  nlohmann::json item = {{"name", name},
                         {"dependencies", nlohmann::json::array()},
                         {"files", nlohmann::json::array()}};
  for (const EntryDependency& dependency : entry.dependencies)
    item["dependencies"].push_back({{"path", dependency.path}, {"hash", dependency.hash}});
  for (const CachedFile& file : entry.files)
    item["files"].push_back({{"name", file.name}, {"sha256", file.sha256}});
  return item;
}

bool sameFiles(const std::vector<CachedFile>& a, const std::vector<CachedFile>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const CachedFile& x, const CachedFile& y) {
                      return x.name == y.name && x.sha256 == y.sha256;
                    });
}

// Why `entry` can never be a hit for a build of `outputs` from `inputs` ("" when it can): the
// local cache's own rules (BuildCache::find), checked before its dependencies are hashed.
std::string unusable(const EntryDescription& entry, const std::vector<std::string>& outputs,
                     const std::vector<std::string>& inputs, const PathRelocation& paths) {
  for (const EntryDependency& dependency : entry.dependencies)
    if (std::string why = unhashableDependency(dependency.path, paths); !why.empty())
      return "it lists '" + shown(dependency.path) + "', " + why;
  std::vector<std::string> names, wanted = outputs;
  for (const CachedFile& file : entry.files)
    names.push_back(file.name);
  std::sort(names.begin(), names.end());
  std::sort(wanted.begin(), wanted.end());
  if (names != wanted)
    return "it holds other files than the outputs asked for (" + shown(llvm::join(names, ", ")) +
           ")";
  for (const std::string& input : inputs)
    if (llvm::none_of(entry.dependencies,
                      [&](const EntryDependency& dependency) { return dependency.path == input; }))
      return "it does not list the input '" + input + "'";
  return "";
}

// Whether every dependency still hashes as recorded.
bool current(const EntryDescription& entry, DependencyHashes& hashes) {
  return llvm::all_of(entry.dependencies, [&](const EntryDependency& dependency) {
    return hashes.of(dependency.path) == dependency.hash;
  });
}

} // namespace

std::string remoteStorageFromEnvironment() {
  const char* url = std::getenv("TLC_REMOTE_STORAGE");
  return url ? url : "";
}

void RemoteCache::fail(const std::string& reason, bool unreachable) {
  Unreachable = Unreachable || unreachable;
  if (Warned)
    return;
  Warned = true;
  printToolMessage(MessageKind::Warning,
                   "remote storage " + Storage->url().display + ": " + reason);
}

bool RemoteCache::fetch(const std::string& key, const std::vector<std::string>& outputs,
                        const std::vector<std::string>& inputs, BuildCache& local,
                        DependencyHashes& hashes) {
  if (Unreachable || Warned)
    return false;
  auto indexText = Storage->get(indexKey(key));
  if (!indexText) {
    fail(llvm::toString(indexText.takeError()), true);
    return false;
  }
  if (!*indexText)
    return false; // a miss
  nlohmann::json index = nlohmann::json::parse(**indexText, nullptr, false);
  if (!index.is_object() || !hasArray(index, "entries")) {
    fail("the index " + indexKey(key) + " is malformed; building without it", false);
    return false;
  }
  // An index lists at most as many entries as tlc keeps; older ones are not looked at.
  const nlohmann::json& items = index.at("entries");
  for (size_t i = newest(items); i < items.size(); ++i) {
    auto listed = readIndexEntry(items[i]);
    if (!listed)
      continue;
    const auto& [name, expected] = *listed;
    if (std::string why = unusable(expected, outputs, inputs, hashes.paths()); !why.empty()) {
      fail(entryKey(key, name) + ": " + why + "; not used, building instead", false);
      continue;
    }
    if (!current(expected, hashes))
      continue;
    auto blob = Storage->get(entryKey(key, name));
    if (!blob) {
      fail(llvm::toString(blob.takeError()), true);
      return false;
    }
    if (!*blob)
      continue; // listed but gone (evicted, or its writer failed halfway)

    // Checked whole before the local cache writes any of it.
    auto unpacked = unpackEntry(**blob);
    if (unpacked && (!sameFiles(unpacked->description.files, expected.files) ||
                     unpacked->description.dependencies != expected.dependencies))
      unpacked = inputError("bad entry: it does not match its index");
    if (!unpacked) {
      fail(entryKey(key, name) + ": " + llvm::toString(unpacked.takeError()) +
               "; not used, building instead",
           false);
      return false;
    }
    const EntryDescription& entry = unpacked->description;
    std::vector<std::string> dependencies;
    for (const EntryDependency& dependency : entry.dependencies)
      dependencies.push_back(dependency.path);
    if (llvm::Error error =
            local.store(key, entry.files, unpacked->contents, dependencies, hashes)) {
      printToolMessage(MessageKind::Warning, "cannot store the remote entry in the cache: " +
                                                 summarize(std::move(error)).message);
      return false;
    }
    return true;
  }
  return false;
}

void RemoteCache::store(const std::string& key, const std::string& outputsDir,
                        const std::vector<CachedFile>& files,
                        const std::vector<std::string>& dependencies, DependencyHashes& hashes) {
  if (Unreachable || Storage->url().readOnly)
    return;
  EntryDescription entry{files, hashDependencies(dependencies, hashes)};
  std::string name = entryName(entry.dependencies);
  auto blob = packEntry(entry, outputsDir);
  if (!blob) {
    fail("cannot pack the build: " + llvm::toString(blob.takeError()), true);
    return;
  }
  // The entry first: an index never lists an entry that was not stored completely.
  if (llvm::Error error = Storage->put(entryKey(key, name), *blob)) {
    fail(llvm::toString(std::move(error)), true);
    return;
  }
  auto indexText = Storage->get(indexKey(key));
  if (!indexText) {
    fail(llvm::toString(indexText.takeError()), true);
    return;
  }
  nlohmann::json entries = nlohmann::json::array();
  if (*indexText) { // kept: the other entries that still read well and could be used (the
                    // same outputs, files tlc hashes), this one's name replaced
    std::vector<std::string> outputs;
    for (const CachedFile& file : files)
      outputs.push_back(file.name);
    nlohmann::json index = nlohmann::json::parse(**indexText, nullptr, false);
    const nlohmann::json none = nlohmann::json::array();
    const nlohmann::json& items =
        index.is_object() && hasArray(index, "entries") ? index.at("entries") : none;
    for (size_t i = newest(items); i < items.size(); ++i) // only they are kept
      if (auto listed = readIndexEntry(items[i]);
          listed && listed->first != name &&
          unusable(listed->second, outputs, {}, hashes.paths()).empty())
        entries.push_back(items[i]);
  }
  entries.push_back(indexEntry(name, entry));
  if (entries.size() > MaxIndexEntries)
    entries.erase(entries.begin(), entries.end() - MaxIndexEntries);
  nlohmann::json index = {{"entries", std::move(entries)}};
  if (llvm::Error error = Storage->put(indexKey(key), index.dump()))
    fail(llvm::toString(std::move(error)), true);
}

} // namespace tlc
