// The content-addressed build cache: keys, entries, verified restore, atomic store, pruning.
#include "cache/Cache.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace tlc {

std::string defaultCacheDir() {
  if (const char* dir = std::getenv("TLC_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tlc";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/tlc";
}

bool cacheEnabledByEnvironment() {
  const char* disabled = std::getenv("TLC_DISABLE_CACHE");
  return !disabled || !*disabled || llvm::StringRef(disabled) == "0";
}

void CacheKey::add(llvm::StringRef label, llvm::StringRef value) {
  Material += label.str() + "=" + std::to_string(value.size()) + ":" + value.str() + "\n";
}

llvm::Error CacheKey::addFile(llvm::StringRef label, const std::string& path) {
  auto digest = sha256OfFile(path);
  if (!digest)
    return digest.takeError();
  add(label, *digest);
  return llvm::Error::success();
}

void CacheKey::addFileIdentity(llvm::StringRef label, const std::string& path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status)) {
    add(label, path + " (missing)");
    return;
  }
  add(label, path + " " + std::to_string(status.getSize()) + " " +
                 std::to_string(llvm::sys::toTimeT(status.getLastModificationTime())));
}

std::string CacheKey::digest() const { return sha256Hex(Material).substr(0, 40); }

namespace {

// A fast content hash for dependencies: hundreds of headers are checked on every lookup.
std::string contentHash(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, false, false);
  if (!buffer)
    return "missing";
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(llvm::arrayRefFromStringRef((*buffer)->getBuffer()));
  return llvm::utohexstr(hash.high64, true, 16) + llvm::utohexstr(hash.low64, true, 16);
}

std::vector<std::string> subfolders(const std::string& dir) {
  std::vector<std::string> folders;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (it->type() == llvm::sys::fs::file_type::directory_file)
      folders.push_back(it->path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

uint64_t folderBytes(const std::string& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(it->path(), status) &&
        status.type() == llvm::sys::fs::file_type::regular_file)
      bytes += status.getSize();
  }
  return bytes;
}

llvm::Expected<std::string> uniqueFolder(const std::string& parent, llvm::StringRef prefix) {
  if (auto ec = llvm::sys::fs::create_directories(parent))
    return inputError("cannot create '" + parent + "': " + ec.message());
  llvm::SmallString<256> path;
  if (auto ec = llvm::sys::fs::createUniqueDirectory(parent + "/" + prefix, path))
    return inputError("cannot create a folder in '" + parent + "': " + ec.message());
  return path.str().str();
}

// An entry's file name is a relative path inside the entry (the Python package's files are in
// subfolders), never absolute and never through "..".
bool safeEntryName(llvm::StringRef name) {
  if (name.empty() || name.starts_with("/"))
    return false;
  for (auto part = llvm::sys::path::begin(name), end = llvm::sys::path::end(name); part != end;
       ++part)
    if (*part == "..")
      return false;
  return true;
}

// Entries are pruned least recently used first, by the time of entry.json.
void markUsed(const std::string& entryDir) {
  int fd = -1;
  if (llvm::sys::fs::openFileForRead(entryDir + "/entry.json", fd))
    return;
  llvm::sys::fs::setLastAccessAndModificationTime(fd, std::chrono::system_clock::now());
  ::close(fd);
}

llvm::sys::TimePoint<> lastUsed(const std::string& entryDir) {
  llvm::sys::fs::file_status status;
  llvm::sys::fs::status(entryDir + "/entry.json", status);
  return status.getLastModificationTime();
}

} // namespace

std::string dependencyHash(const std::string& path) { return contentHash(path); }

void BuildCache::discard(const std::string& entryDir) {
  // Renamed away first, so no reader can find a half-removed entry.
  auto trash = uniqueFolder(versionDir() + "/tmp", "trash");
  if (!trash) {
    llvm::consumeError(trash.takeError());
    return;
  }
  std::string target = *trash + "/entry";
  if (!llvm::sys::fs::rename(entryDir, target))
    llvm::sys::fs::remove_directories(target);
  llvm::sys::fs::remove_directories(*trash);
}

std::optional<CacheHit> BuildCache::find(const std::string& key) {
  llvm::StringMap<std::string> hashes; // each dependency hashed once across entries
  for (const std::string& entryDir : subfolders(versionDir() + "/" + key)) {
    auto text = readFile(entryDir + "/entry.json");
    nlohmann::json entry = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!text)
      llvm::consumeError(text.takeError());
    if (!entry.is_object() || !entry["files"].is_array() || !entry["dependencies"].is_array()) {
      discard(entryDir); // partial or corrupt
      continue;
    }
    CacheHit hit;
    hit.entryDir = entryDir;
    bool current = true;
    for (const nlohmann::json& dependency : entry["dependencies"]) {
      std::string path = dependency.value("path", "");
      auto [it, inserted] = hashes.try_emplace(path);
      if (inserted)
        it->second = contentHash(path);
      if (it->second != dependency.value("hash", "")) {
        current = false;
        break;
      }
      hit.dependencies.push_back(path);
    }
    if (!current)
      continue;
    for (const nlohmann::json& file : entry["files"])
      hit.files.push_back({file.value("name", ""), file.value("sha256", "")});
    return hit;
  }
  return std::nullopt;
}

bool BuildCache::restore(const CacheHit& hit, const std::string& dir) {
  for (const CachedFile& file : hit.files) {
    std::string target = dir + "/" + file.name;
    if (!safeEntryName(file.name) ||
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(target)) ||
        llvm::sys::fs::copy_file(hit.entryDir + "/" + file.name, target)) {
      discard(hit.entryDir);
      return false;
    }
    auto digest = sha256OfFile(target);
    if (!digest || *digest != file.sha256) {
      if (!digest)
        llvm::consumeError(digest.takeError());
      discard(hit.entryDir);
      return false;
    }
  }
  markUsed(hit.entryDir);
  return true;
}

llvm::Error BuildCache::store(const std::string& key, const std::string& outputsDir,
                              const std::vector<CachedFile>& files,
                              const std::vector<std::string>& dependencies) {
  auto staging = uniqueFolder(versionDir() + "/tmp", "entry");
  if (!staging)
    return staging.takeError();
  // Gone after the rename below; removed here on every other way out.
  llvm::scope_exit cleanUp([&] { llvm::sys::fs::remove_directories(*staging); });
  nlohmann::json entry = {{"files", nlohmann::json::array()},
                          {"dependencies", nlohmann::json::array()}};
  for (const CachedFile& file : files) {
    std::string stored = *staging + "/" + file.name;
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(stored)); // the Python package
    if (auto ec = llvm::sys::fs::copy_file(outputsDir + "/" + file.name, stored))
      return inputError("cannot write to the cache '" + Dir + "': " + ec.message());
    entry["files"].push_back({{"name", file.name}, {"sha256", file.sha256}});
  }
  std::string depsText;
  for (const std::string& dependency : dependencies) {
    std::string hash = contentHash(dependency);
    entry["dependencies"].push_back({{"path", dependency}, {"hash", hash}});
    depsText += dependency + " " + hash + "\n";
  }
  if (llvm::Error error = writeFile(*staging + "/entry.json", entry.dump(1)))
    return error;
  std::string parent = versionDir() + "/" + key;
  if (auto ec = llvm::sys::fs::create_directories(parent))
    return inputError("cannot write to the cache '" + Dir + "': " + ec.message());
  std::string target = parent + "/" + sha256Hex(depsText).substr(0, 24);
  (void)llvm::sys::fs::rename(*staging, target); // failing: another builder stored it first
  return llvm::Error::success();
}

void BuildCache::count(bool hit) {
  std::string path = versionDir() + "/stats";
  if (llvm::sys::fs::create_directories(versionDir()))
    return;
  int fd = -1;
  if (llvm::sys::fs::openFileForReadWrite(path, fd, llvm::sys::fs::CD_OpenAlways,
                                          llvm::sys::fs::OF_None))
    return;
  if (!llvm::sys::fs::tryLockFile(fd, std::chrono::milliseconds(2000))) {
    uint64_t counts[2] = {0, 0};
    char text[64] = {};
    ssize_t length = ::pread(fd, text, sizeof text - 1, 0);
    if (length > 0)
      std::sscanf(text, "%lu %lu", &counts[0], &counts[1]);
    ++counts[hit ? 0 : 1];
    int written = std::snprintf(text, sizeof text, "%lu %lu\n", counts[0], counts[1]);
    // Counters are a convenience: a failed write loses one count, nothing more.
    if (::ftruncate(fd, 0) == 0)
      (void)!::pwrite(fd, text, written, 0);
    llvm::sys::fs::unlockFile(fd);
  }
  ::close(fd);
}

llvm::Expected<CacheStats> BuildCache::stats() const {
  CacheStats stats;
  for (const std::string& keyDir : subfolders(versionDir())) {
    if (llvm::sys::path::filename(keyDir) == "tmp")
      continue;
    for (const std::string& entryDir : subfolders(keyDir)) {
      ++stats.entries;
      stats.bytes += folderBytes(entryDir);
    }
  }
  if (auto text = readFile(versionDir() + "/stats")) {
    unsigned long hits = 0, misses = 0;
    if (std::sscanf(text->c_str(), "%lu %lu", &hits, &misses) == 2) {
      stats.hits = hits;
      stats.misses = misses;
    }
  } else {
    llvm::consumeError(text.takeError());
  }
  return stats;
}

llvm::Error BuildCache::clear() {
  if (!llvm::sys::fs::exists(versionDir()))
    return llvm::Error::success();
  auto trash = uniqueFolder(Dir, "trash");
  if (!trash)
    return trash.takeError();
  if (auto ec = llvm::sys::fs::rename(versionDir(), *trash + "/v1"))
    return inputError("cannot clear the cache '" + Dir + "': " + ec.message());
  llvm::sys::fs::remove_directories(*trash);
  return llvm::Error::success();
}

llvm::Expected<uint64_t> BuildCache::prune(uint64_t maxBytes) {
  struct Entry {
    std::string dir;
    uint64_t bytes;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  for (const std::string& keyDir : subfolders(versionDir())) {
    if (llvm::sys::path::filename(keyDir) == "tmp")
      continue;
    for (const std::string& entryDir : subfolders(keyDir)) {
      entries.push_back({entryDir, folderBytes(entryDir), lastUsed(entryDir)});
      total += entries.back().bytes;
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  uint64_t removed = 0;
  for (const Entry& entry : entries) {
    if (total - removed <= maxBytes)
      break;
    discard(entry.dir);
    removed += entry.bytes;
  }
  return removed;
}

llvm::Expected<uint64_t> parseSize(llvm::StringRef text) {
  llvm::StringRef number = text.trim();
  uint64_t scale = 1;
  if (!number.empty()) {
    switch (llvm::toUpper(number.back())) {
    case 'K':
      scale = 1ull << 10;
      break;
    case 'M':
      scale = 1ull << 20;
      break;
    case 'G':
      scale = 1ull << 30;
      break;
    case 'T':
      scale = 1ull << 40;
      break;
    }
    if (scale != 1)
      number = number.drop_back();
  }
  uint64_t value = 0;
  if (number.getAsInteger(10, value))
    return usageError("'" + text + "' is not a size (a number of bytes, or with K, M, G, T)");
  return value * scale;
}

} // namespace tlc
