// The content-addressed build cache: keys, entries, verified restore, atomic store, pruning.
#include "cache/Cache.h"
#include "frontend/Preamble.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/Interrupts.h"
#include "support/JsonFields.h"
#include "support/Terminal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <grp.h>
#include <limits>
#include <linux/magic.h>
#include <map>
#include <mutex>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace tlc {

std::string defaultCacheDir() {
  if (const char* dir = std::getenv("TLC_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tlc";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tlc";
  // Not a shared folder such as /tmp, where another user could prepare it.
  if (const passwd* user = ::getpwuid(::geteuid()); user && user->pw_dir && *user->pw_dir)
    return std::string(user->pw_dir) + "/.cache/tlc";
  return "";
}

llvm::Expected<bool> cacheEnabledByEnvironment() {
  const char* value = std::getenv("TLC_DISABLE_CACHE");
  if (!value)
    return true;
  std::string setting = llvm::StringRef(value).trim().lower();
  if (setting.empty() || setting == "0" || setting == "false" || setting == "no" ||
      setting == "off")
    return true;
  if (setting == "1" || setting == "true" || setting == "yes" || setting == "on")
    return false;
  return usageError("TLC_DISABLE_CACHE='" + std::string(value) +
                    "' is not a yes or no (1, true, yes, on; 0, false, no, off)");
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

std::string CacheKey::digest() const {
  return sha256Hex(Material).substr(0, 40);
}

namespace {

// A fast content hash for dependencies: hundreds of headers are checked on every lookup. Only a
// regular file has one: a dependency that is now a FIFO or a device (an entry naming
// /dev/stdin) is read as every file tlc reads (support/Files.h), refused at once, and matches
// no entry, where reading it would wait for a writer or never end.
std::string contentHash(const std::string& path) {
  auto buffer = readFileBuffer(path);
  if (!buffer) {
    llvm::consumeError(buffer.takeError());
    return "missing";
  }
  llvm::XXH128_hash_t hash =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef((*buffer)->getBuffer()));
  return llvm::utohexstr(hash.high64, true, 16) + llvm::utohexstr(hash.low64, true, 16);
}

// An entry's name: the files the build read, with their contents' hashes.
std::string entryName(const std::vector<std::pair<std::string, std::string>>& dependencies) {
  std::string text;
  for (const auto& [path, hash] : dependencies)
    text += path + " " + hash + "\n";
  return sha256Hex(text).substr(0, 24);
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

// TLC_CACHE_SHARED_GROUP: the group whose members share the cache (docs/team-cache.md), as
// ccache's shared caches are (a folder of mode 2775 of that group). `problem` says why the
// setting cannot be used: then no group is trusted.
struct SharedGroup {
  gid_t gid = 0;
  std::string name;
  std::string problem;
};

const std::optional<SharedGroup>& sharedGroup() {
  static const std::optional<SharedGroup> group = []() -> std::optional<SharedGroup> {
    const char* name = std::getenv("TLC_CACHE_SHARED_GROUP");
    if (!name || !*name)
      return std::nullopt;
    SharedGroup shared;
    shared.name = name;
    struct group entry{};
    struct group* found = nullptr;
    std::vector<char> buffer(16384);
    if (::getgrnam_r(name, &entry, buffer.data(), buffer.size(), &found) != 0 || !found) {
      shared.problem = "TLC_CACHE_SHARED_GROUP names no group '" + shared.name + "'";
      return shared;
    }
    shared.gid = found->gr_gid;
    std::vector<gid_t> mine(static_cast<size_t>(std::max(::getgroups(0, nullptr), 0)));
    mine.resize(static_cast<size_t>(std::max(::getgroups(mine.size(), mine.data()), 0)));
    if (::getegid() != shared.gid && !llvm::is_contained(mine, shared.gid))
      shared.problem =
          "TLC_CACHE_SHARED_GROUP names group '" + shared.name + "', which you are not a member of";
    return shared;
  }();
  return group;
}

// The trusted group's id, where TLC_CACHE_SHARED_GROUP names one that can be used.
std::optional<gid_t> trustedGroup() {
  const std::optional<SharedGroup>& group = sharedGroup();
  if (!group || !group->problem.empty())
    return std::nullopt;
  return group->gid;
}

// Whether user `uid` is a member of group `gid` (its primary group or a supplementary one).
bool isMember(uid_t uid, gid_t gid) {
  static std::mutex mutex;
  static std::map<uid_t, bool> known; // one group per process
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(uid); it != known.end())
    return it->second;
  bool member = false;
  struct passwd entry{};
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
    int count = 64;
    std::vector<gid_t> groups(count);
    if (::getgrouplist(found->pw_name, found->pw_gid, groups.data(), &count) < 0) {
      groups.resize(static_cast<size_t>(count));
      ::getgrouplist(found->pw_name, found->pw_gid, groups.data(), &count);
    }
    groups.resize(static_cast<size_t>(std::max(count, 0)));
    member = found->pw_gid == gid || llvm::is_contained(groups, gid);
  }
  known[uid] = member;
  return member;
}

// Owned by this user, or (TLC_CACHE_SHARED_GROUP) by a member of the trusted group and of it.
bool trustedOwner(const struct stat& status) {
  if (status.st_uid == ::geteuid())
    return true;
  std::optional<gid_t> group = trustedGroup();
  return group && status.st_gid == *group && isMember(status.st_uid, *group);
}

// Writable by nobody else, or by the trusted group only.
bool trustedMode(const struct stat& status) {
  if (status.st_mode & S_IWOTH)
    return false;
  std::optional<gid_t> group = trustedGroup();
  return !(status.st_mode & S_IWGRP) || (group && status.st_gid == *group);
}

// Why `path` cannot be trusted as a part of the cache ("" if it can): it must be this user's,
// of the kind expected, and writable by nobody else; with TLC_CACHE_SHARED_GROUP, a member's of
// that group, writable by the group but never by the world.
std::string distrust(const std::string& path, bool folder) {
  struct stat status{};
  if (::lstat(path.c_str(), &status) != 0)
    return "'" + path + "': " + std::strerror(errno);
  if (folder ? !S_ISDIR(status.st_mode) : !S_ISREG(status.st_mode))
    return "'" + path + "' is not a " + (folder ? "folder" : "regular file");
  if (!trustedOwner(status))
    return "'" + path + "' belongs to user " + std::to_string(status.st_uid) + ", not to you" +
           (trustedGroup() ? " nor to a member of group '" + sharedGroup()->name + "' in it" : "");
  if (!trustedMode(status)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(status.st_mode & 07777));
    bool groupOnly = !(status.st_mode & S_IWOTH) && !trustedGroup();
    return "'" + path + "' is writable by other users (mode " + mode + ")" +
           (groupOnly ? "; for a cache its group shares, set TLC_CACHE_SHARED_GROUP to that "
                        "group (docs/team-cache.md)"
                      : "");
  }
  return "";
}

// The modes of what the cache holds: the user's own, or readable (files) and writable
// (folders, setgid: what is made in them is the group's) by the trusted group.
mode_t fileMode() {
  return trustedGroup() ? 0640 : 0600;
}

// Makes the folders from `path` up to `top` (created by the caller) the trusted group's, where
// one is set and they are this user's: the group's, which may read and write them (setgid, so
// that what is made in them is the group's too: tlc's own are 2770).
void shareFolders(llvm::StringRef path, llvm::StringRef top) {
  std::optional<gid_t> group = trustedGroup();
  if (!group)
    return;
  for (llvm::StringRef folder = path; folder.size() >= top.size() && !folder.empty();
       folder = llvm::sys::path::parent_path(folder)) {
    struct stat status{};
    std::string name = folder.str();
    if (::lstat(name.c_str(), &status) != 0 || !S_ISDIR(status.st_mode) ||
        status.st_uid != ::geteuid())
      continue;
    if (status.st_gid != *group && ::chown(name.c_str(), static_cast<uid_t>(-1), *group) != 0)
      continue;
    if ((status.st_mode & 02070) != 02070) // what else the owner allowed stays
      ::chmod(name.c_str(), (status.st_mode & 07777) | 02070);
  }
}

// Why the folders above the cache would let another user replace it ("" if none would): each
// belongs to this user or to root, and one others may write to is sticky (as /tmp is), so that
// nobody renames what is not theirs.
std::string distrustAncestors(const std::string& dir) {
  for (llvm::StringRef path = llvm::sys::path::parent_path(dir); !path.empty();
       path = llvm::sys::path::parent_path(path)) {
    struct stat status{};
    if (::stat(path.str().c_str(), &status) != 0)
      return "'" + path.str() + "': " + std::strerror(errno);
    if (status.st_uid != 0 && !trustedOwner(status))
      return "'" + path.str() + "' belongs to user " + std::to_string(status.st_uid);
    if (!trustedMode(status) && !(status.st_mode & S_ISVTX))
      return "'" + path.str() + "' is writable by other users";
    if (path == "/")
      break;
  }
  return "";
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

// "hits misses\n" as count() writes it; zeros for anything else.
std::pair<uint64_t, uint64_t> parseCounters(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 3> fields;
  text.trim().split(fields, ' ', -1, false);
  uint64_t hits = 0, misses = 0;
  if (fields.size() != 2 || fields[0].getAsInteger(10, hits) || fields[1].getAsInteger(10, misses))
    return {0, 0};
  return {hits, misses};
}

// A file's identity on this machine: where it really is, which file it is, and when it last
// changed ("" when it cannot be read). A file rewritten in place changes its times.
std::string fileIdentity(const std::string& path) {
  llvm::SmallString<256> real;
  struct stat status{};
  if (llvm::sys::fs::real_path(path, real) || ::stat(real.c_str(), &status) != 0 ||
      !S_ISREG(status.st_mode))
    return "";
  auto nanoseconds = [](const timespec& time) {
    return std::to_string(time.tv_sec) + "." + std::to_string(time.tv_nsec);
  };
  return real.str().str() + "\n" + std::to_string(status.st_dev) + " " +
         std::to_string(status.st_ino) + " " + std::to_string(status.st_size) + " " +
         nanoseconds(status.st_mtim) + " " + nanoseconds(status.st_ctim);
}

// As contentHash() writes it: 32 lower-case hex digits.
bool isContentHash(llvm::StringRef text) {
  return text.size() == 32 &&
         llvm::all_of(text, [](char c) { return llvm::isDigit(c) || (c >= 'a' && c <= 'f'); });
}

// A tool's content hash, from the memo when one holds it for the tool as it is now.
std::string toolContentHash(const std::string& path, const std::string& memoDir) {
  std::string identity = fileIdentity(path);
  if (identity.empty())
    return "missing";
  std::string memo = memoDir.empty() ? "" : memoDir + "/" + sha256Hex(identity).substr(0, 40);
  if (!memo.empty() && distrust(memo, false).empty()) {
    if (auto text = readFile(memo); text && isContentHash(*text))
      return *text;
    else if (!text)
      llvm::consumeError(text.takeError());
  }
  std::string hash = contentHash(path);
  // Remembered only when the tool did not change while it was read; a memo that cannot be
  // written costs the next build another read, nothing more.
  if (!memo.empty() && hash != "missing" && fileIdentity(path) == identity &&
      !llvm::sys::fs::create_directories(memoDir, true, llvm::sys::fs::owner_all)) {
    shareFolders(memoDir, llvm::sys::path::parent_path(memoDir));
    llvm::consumeError(writeFile(memo, hash, fileMode()));
  }
  return hash;
}

} // namespace

void CacheKey::addToolIdentities(const std::vector<std::pair<std::string, std::string>>& tools,
                                 const std::string& memoDir) {
  std::vector<std::string> hashes(tools.size());
  llvm::parallelFor(0, tools.size(),
                    [&](size_t i) { hashes[i] = toolContentHash(tools[i].second, memoDir); });
  for (size_t i = 0; i < tools.size(); ++i)
    add(tools[i].first, hashes[i]);
}

namespace {

// Whether `path` has no "." or ".." in it.
bool isPlainPath(llvm::StringRef path) {
  return llvm::none_of(llvm::make_range(llvm::sys::path::begin(path), llvm::sys::path::end(path)),
                       [](llvm::StringRef part) { return part == "." || part == ".."; });
}

// Whether `path` is in a form PathRelocation::path() writes: absolute, in the toolkit, or
// relative under a base folder (only where there is one). A line break would forge the entry's
// name, which is made of lines.
bool isSpelledAsTlcWrites(llvm::StringRef path, const PathRelocation& paths) {
  if (path.empty() || path.contains('\0') || path.contains('\n'))
    return false;
  if (llvm::sys::path::is_absolute(path))
    return isPlainPath(path);
  if (path.consume_front("<cuda>/"))
    return isPlainPath(path);
  return path.front() != '<' && !paths.base().empty();
}

} // namespace

std::string unhashableDependency(const std::string& spelled, const PathRelocation& paths) {
  if (!isSpelledAsTlcWrites(spelled, paths))
    return "not a path tlc writes";
  std::string resolved = paths.resolve(spelled);
  struct stat status{};
  if (::stat(resolved.c_str(), &status) != 0)
    return ""; // missing here: the entry does not match, nothing is read
  if (!S_ISREG(status.st_mode))
    return "not a regular file";
  // Files of the kernel's own file systems say they are regular and empty, and are not.
  struct statfs system{};
  if (::statfs(resolved.c_str(), &system) == 0 &&
      llvm::is_contained({PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC,
                          SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC},
                         static_cast<long>(system.f_type)))
    return "a file of the kernel's, not one a build reads";
  return "";
}

const std::string& DependencyHashes::of(const std::string& spelled) {
  auto [it, inserted] = Known.try_emplace(spelled);
  if (inserted)
    it->second = contentHash(Paths.resolve(spelled));
  return it->second;
}

llvm::Expected<BuildCache> BuildCache::open(const std::string& dir) {
  if (dir.empty())
    return inputError("no folder for the build cache (set TLC_CACHE_DIR or HOME)");
  llvm::SmallString<256> absolute(dir);
  llvm::sys::fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute, true);
  std::string parent = llvm::sys::path::parent_path(absolute).str();
  if (!llvm::sys::fs::exists(absolute)) {
    if (auto ec = llvm::sys::fs::create_directories(parent, true, llvm::sys::fs::all_all))
      return inputError("cannot create '" + parent + "': " + ec.message());
    if (::mkdir(absolute.c_str(), 0700) != 0 && errno != EEXIST)
      return inputError("cannot create '" + absolute + "': " + std::strerror(errno));
    shareFolders(absolute, absolute); // made for the trusted group, if one is set
  }
  if (const std::optional<SharedGroup>& group = sharedGroup(); group && !group->problem.empty())
    return inputError(group->problem);
  llvm::SmallString<256> real;
  if (auto ec = llvm::sys::fs::real_path(absolute, real))
    return inputError("cannot read '" + absolute + "': " + ec.message());
  std::string why = distrust(real.str().str(), true);
  if (why.empty())
    why = distrustAncestors(real.str().str());
  if (!why.empty())
    return inputError("the build cache '" + dir + "' cannot be trusted: " + why);
  return BuildCache(real.str().str());
}

std::optional<BuildCache> openBuildCache(const std::string& dir) {
  auto cache = BuildCache::open(dir);
  if (cache)
    return std::move(*cache);
  printToolMessage(MessageKind::Warning,
                   summarize(cache.takeError()).message + "; building without it");
  return std::nullopt;
}

void BuildCache::discard(const std::string& entryDir) {
  // Renamed away first, so no reader can find a half-removed entry.
  if (llvm::sys::fs::create_directories(tmpDir(), true, llvm::sys::fs::owner_all))
    return;
  auto trash = LockedFolder::create(tmpDir(), "trash-");
  if (!trash) {
    llvm::consumeError(trash.takeError());
    return;
  }
  llvm::sys::fs::rename(entryDir, (*trash)->path() + "/entry"); // removed with the folder
}

std::optional<CacheHit> BuildCache::readEntry(const std::string& entryDir,
                                              const std::vector<std::string>& outputs,
                                              const std::vector<std::string>& inputs,
                                              DependencyHashes& hashes) {
  if (!distrust(entryDir, true).empty() || !distrust(entryDir + "/entry.json", false).empty())
    return std::nullopt;
  auto text = readFile(entryDir + "/entry.json");
  if (!text) {
    llvm::consumeError(text.takeError());
    return std::nullopt;
  }
  nlohmann::json entry = nlohmann::json::parse(*text, nullptr, false);
  if (!entry.is_object() || !entry.contains("files") || !entry["files"].is_array() ||
      !entry.contains("dependencies") || !entry["dependencies"].is_array())
    return std::nullopt;

  // The name is recomputed from the files as they are now: a dependency that changed, or a list
  // that is not the one the entry was stored under, does not match.
  CacheHit hit;
  hit.entryDir = entryDir;
  std::vector<std::pair<std::string, std::string>> current;
  for (const nlohmann::json& dependency : entry["dependencies"]) {
    std::optional<std::string> path = stringAt(dependency, "path");
    if (!path)
      return std::nullopt;
    current.push_back({*path, hashes.of(*path)});
    hit.dependencies.push_back(hashes.paths().resolve(*path));
  }
  if (entryName(current) != llvm::sys::path::filename(entryDir))
    return std::nullopt;
  for (const std::string& input : inputs)
    if (std::none_of(current.begin(), current.end(),
                     [&](const auto& dependency) { return dependency.first == input; }))
      return std::nullopt;

  // Exactly the outputs asked for, each a file of this user's with a well-formed digest.
  std::vector<std::string> names;
  for (const nlohmann::json& file : entry["files"]) {
    std::optional<std::string> name = stringAt(file, "name"), sha = stringAt(file, "sha256");
    if (!name || !sha || !isSha256Hex(*sha) || !distrust(entryDir + "/" + *name, false).empty())
      return std::nullopt;
    names.push_back(*name);
    hit.files.push_back({*name, *sha});
  }
  std::vector<std::string> wanted = outputs;
  std::sort(names.begin(), names.end());
  std::sort(wanted.begin(), wanted.end());
  if (names != wanted)
    return std::nullopt;
  return hit;
}

std::optional<CacheHit> BuildCache::find(const std::string& key,
                                         const std::vector<std::string>& outputs,
                                         const std::vector<std::string>& inputs,
                                         DependencyHashes& hashes) {
  for (const std::string& entryDir : subfolders(versionDir() + "/" + key))
    if (std::optional<CacheHit> hit = readEntry(entryDir, outputs, inputs, hashes))
      return hit;
  return std::nullopt;
}

bool BuildCache::restore(const CacheHit& hit, const std::string& dir) {
  for (const CachedFile& file : hit.files) {
    std::string target = dir + "/" + file.name;
    bool library = llvm::StringRef(file.name).ends_with(".so");
    if (!safeEntryName(file.name) ||
        // The package's folders, as a build makes them: the umask decides their mode.
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(target), true,
                                          llvm::sys::fs::all_all)) {
      discard(hit.entryDir);
      return false;
    }
    // Read once (into memory, not mapped: a file cut short under a mapping would be a crash):
    // checked there, then written.
    auto bytes = readFileBuffer(hit.entryDir + "/" + file.name);
    if (!bytes || sha256Hex((*bytes)->getBuffer()) != file.sha256) {
      if (!bytes)
        llvm::consumeError(bytes.takeError());
      discard(hit.entryDir);
      return false;
    }
    // A write that fails (a full disk, a file size limit) says nothing against the entry: it
    // stays, and the build that follows meets the same failure and reports it.
    if (llvm::Error error = writeFile(target, (*bytes)->getBuffer(), library ? 0777 : 0666)) {
      llvm::consumeError(std::move(error));
      return false;
    }
  }
  markUsed(hit.entryDir);
  return true;
}

llvm::Error BuildCache::store(const std::string& key, const std::string& outputsDir,
                              const std::vector<CachedFile>& files,
                              const std::vector<std::string>& dependencies,
                              DependencyHashes& hashes) {
  auto copy = [&](size_t index, const std::string& target) {
    return copyFile(outputsDir + "/" + files[index].name, target, fileMode());
  };
  return storeEntry(key, files, copy, dependencies, hashes);
}

llvm::Error BuildCache::store(const std::string& key, const std::vector<CachedFile>& files,
                              const std::vector<llvm::StringRef>& contents,
                              const std::vector<std::string>& dependencies,
                              DependencyHashes& hashes) {
  if (contents.size() != files.size())
    return internalError("an entry to store has " + std::to_string(files.size()) +
                         " files but the contents of " + std::to_string(contents.size()));
  auto write = [&](size_t index, const std::string& target) {
    return writeFile(target, contents[index], fileMode());
  };
  return storeEntry(key, files, write, dependencies, hashes);
}

llvm::Error
BuildCache::storeEntry(const std::string& key, const std::vector<CachedFile>& files,
                       llvm::function_ref<llvm::Error(size_t, const std::string&)> place,
                       const std::vector<std::string>& dependencies, DependencyHashes& hashes) {
  if (auto ec = llvm::sys::fs::create_directories(tmpDir(), true, llvm::sys::fs::owner_all))
    return inputError("cannot write to the cache '" + Dir + "': " + ec.message());
  shareFolders(tmpDir(), Dir);
  removeAbandoned(tmpDir(), "entry-");
  removeAbandoned(tmpDir(), "trash-");
  auto staging = LockedFolder::create(tmpDir(), "entry-");
  if (!staging)
    return staging.takeError();
  Temporary registered((*staging)->path()); // removed by a forced exit too
  const std::string& folder = (*staging)->path();
  nlohmann::json entry = {{"files", nlohmann::json::array()},
                          {"dependencies", nlohmann::json::array()}};
  for (size_t i = 0; i < files.size(); ++i) {
    std::string stored = folder + "/" + files[i].name;
    // The Python package's files are in subfolders.
    if (auto ec = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(stored), true,
                                                    llvm::sys::fs::owner_all))
      return inputError("cannot write to the cache '" + Dir + "': " + ec.message());
    shareFolders(llvm::sys::path::parent_path(stored), folder);
    if (llvm::Error error = place(i, stored))
      return error;
    entry["files"].push_back({{"name", files[i].name}, {"sha256", files[i].sha256}});
  }
  std::vector<std::pair<std::string, std::string>> hashed;
  for (const std::string& dependency : dependencies) {
    hashed.push_back({dependency, hashes.of(dependency)});
    entry["dependencies"].push_back({{"path", dependency}, {"hash", hashed.back().second}});
  }
  // A path that is not UTF-8 is written with replacement characters: that entry never matches.
  std::string json = entry.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (llvm::Error error = writeFile(folder + "/entry.json", json, fileMode()))
    return error;
  std::string parent = versionDir() + "/" + key;
  if (auto ec = llvm::sys::fs::create_directories(parent, true, llvm::sys::fs::owner_all))
    return inputError("cannot write to the cache '" + Dir + "': " + ec.message());
  shareFolders(parent, Dir);
  shareFolders(folder, folder); // the entry itself
  // Failing: another builder stored it first, or an entry that can never be used holds its
  // name (one with an extra file, fetched from a remote before tlc checked), which would make
  // every later build miss: that one is replaced. Either way the staging folder is gone after.
  std::string target = parent + "/" + entryName(hashed);
  if (llvm::sys::fs::rename(folder, target)) {
    std::vector<std::string> names;
    for (const CachedFile& file : files)
      names.push_back(file.name);
    if (readEntry(target, names, {}, hashes))
      return llvm::Error::success();
    discard(target);
    if (llvm::sys::fs::rename(folder, target))
      return llvm::Error::success(); // another builder's came in between
  }
  (*staging)->forget();
  return llvm::Error::success();
}

void BuildCache::count(bool hit) {
  std::string path = versionDir() + "/stats";
  if (llvm::sys::fs::create_directories(versionDir(), true, llvm::sys::fs::owner_all))
    return;
  shareFolders(versionDir(), Dir);
  int fd = -1;
  if (llvm::sys::fs::openFileForReadWrite(path, fd, llvm::sys::fs::CD_OpenAlways,
                                          llvm::sys::fs::OF_None, trustedGroup() ? 0660 : 0600))
    return;
  if (trustedGroup())
    ::fchmod(fd, 0660); // past the umask: every member counts
  if (!llvm::sys::fs::tryLockFile(fd, std::chrono::milliseconds(2000))) {
    char text[64] = {};
    ssize_t length = ::pread(fd, text, sizeof text - 1, 0);
    auto [hits, misses] = parseCounters(length > 0 ? llvm::StringRef(text, length) : "");
    ++(hit ? hits : misses);
    std::string line = std::to_string(hits) + " " + std::to_string(misses) + "\n";
    // Counters are a convenience: a failed write loses one count, nothing more.
    if (::ftruncate(fd, 0) == 0)
      (void)!::pwrite(fd, line.data(), line.size(), 0);
    llvm::sys::fs::unlockFile(fd);
  }
  ::close(fd);
}

// What the cache's folder holds, as stats() and prune() count it: its entries and the parse's
// preambles (frontend/Preamble.h), each with its bytes and when it was last used.
namespace {
struct StoredItem {
  enum Kind { Entry, Preamble, PreambleMarks } kind; // marks: a preamble's stem without its .pch
  std::string path;                                  // an entry's folder, a preamble's stem
  uint64_t bytes;
  llvm::sys::TimePoint<> used;
};

std::vector<StoredItem> storedItems(const std::string& versionDir, const std::string& preambleDir) {
  std::vector<StoredItem> items;
  for (const std::string& keyDir : subfolders(versionDir)) {
    if (llvm::sys::path::filename(keyDir) == "tmp")
      continue;
    for (const std::string& entryDir : subfolders(keyDir))
      items.push_back({StoredItem::Entry, entryDir, folderBytes(entryDir), lastUsed(entryDir)});
  }
  for (const KeptPreamble& preamble : keptPreambles(preambleDir))
    items.push_back({preamble.precompiled ? StoredItem::Preamble : StoredItem::PreambleMarks,
                     preamble.stem, preamble.bytes, preamble.used});
  return items;
}

} // namespace

llvm::Expected<CacheStats> BuildCache::stats() const {
  CacheStats stats;
  for (const StoredItem& item : storedItems(versionDir(), preambleDir())) {
    stats.bytes += item.bytes;
    if (item.kind == StoredItem::Entry) {
      ++stats.entries;
      continue;
    }
    stats.preambles += item.kind == StoredItem::Preamble;
    stats.preambleBytes += item.bytes;
  }
  if (auto text = readFile(versionDir() + "/stats"))
    std::tie(stats.hits, stats.misses) = parseCounters(*text);
  else
    llvm::consumeError(text.takeError());
  return stats;
}

// The first entry of `folder` (a cache folder's v1, v1-tools or v1-preamble) whose name tlc
// never gives one there: its keys (40 hex digits, with a suffix in the preamble folder), `stats`,
// `tmp`, and their temporaries (`.NAME.tlc-XXXX`, and earlier tlc's `NAME.tmp-XXXX`), or an NFS
// client's `.nfsXXXX` of a file removed while open. "" when there is none.
static std::string strangerIn(const std::string& folder) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(folder, ec, /*follow_symlinks=*/false), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::StringRef stem = name;
    if (name.starts_with(".nfs"))
      continue;
    if (size_t temporary = stem.find(".tlc-");
        stem.starts_with(".") && temporary != llvm::StringRef::npos)
      stem = stem.slice(1, temporary);
    else if (size_t earlier = stem.find(".tmp-"); earlier != llvm::StringRef::npos)
      stem = stem.take_front(earlier);
    bool key = stem.size() >= 40 && llvm::all_of(stem.take_front(40), llvm::isHexDigit) &&
               (stem.size() == 40 || stem[40] == '.');
    if (!key && stem != "stats" && stem != "tmp")
      return name.str();
  }
  return "";
}

llvm::Error BuildCache::clear() {
  std::vector<std::string> folders;
  for (const std::string& folder : {versionDir(), toolMemoDir(), preambleDir()})
    if (llvm::sys::fs::exists(folder))
      folders.push_back(folder);
  // TLC_CACHE_DIR may name any folder, a project's own with a v1/ in it among them: only a
  // folder that holds nothing but what tlc writes there is taken for the cache's.
  for (const std::string& folder : folders)
    if (std::string stranger = strangerIn(folder); !stranger.empty())
      return inputError("not clearing '" + Dir + "': '" + folder + "' holds '" + stranger +
                        "', which tlc never writes there, so it is no tlc cache; remove it by "
                        "hand if it is");
  if (folders.empty())
    return llvm::Error::success();
  auto trash = LockedFolder::create(Dir, "trash-");
  if (!trash)
    return trash.takeError();
  for (const std::string& folder : folders)
    if (auto ec = llvm::sys::fs::rename(folder, (*trash)->path() + "/" +
                                                    llvm::sys::path::filename(folder).str()))
      return inputError("cannot clear the cache '" + Dir + "': " + ec.message());
  return llvm::Error::success(); // the trash folder goes with `trash`
}

llvm::Expected<uint64_t> BuildCache::prune(uint64_t maxBytes) {
  std::vector<StoredItem> items = storedItems(versionDir(), preambleDir());
  uint64_t total = 0;
  for (const StoredItem& item : items)
    total += item.bytes;
  std::sort(items.begin(), items.end(),
            [](const StoredItem& a, const StoredItem& b) { return a.used < b.used; });
  uint64_t removed = 0;
  for (const StoredItem& item : items) {
    if (total - removed <= maxBytes)
      break;
    if (item.kind == StoredItem::Entry)
      discard(item.path);
    else
      removeKeptPreamble(item.path);
    removed += item.bytes;
  }
  removeAbandoned(tmpDir(), "entry-");
  removeAbandoned(tmpDir(), "trash-");
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
  if (value > std::numeric_limits<uint64_t>::max() / scale)
    return usageError("'" + text + "' is too large a size (at most 16777215T)");
  return value * scale;
}

} // namespace tlc
