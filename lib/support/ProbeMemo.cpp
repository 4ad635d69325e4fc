// Tools' answers about themselves, remembered per tool identity (ProbeMemo.h).
#include "support/ProbeMemo.h"

#include "support/Files.h"
#include "support/Hashing.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tlc {

namespace {

// The build cache's folder, as lib/cache finds it (Cache.cpp: defaultCacheDir).
std::string cacheRoot() {
  if (const char* dir = std::getenv("TLC_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tlc";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tlc";
  if (const passwd* user = ::getpwuid(::geteuid()); user && user->pw_dir && *user->pw_dir)
    return std::string(user->pw_dir) + "/.cache/tlc";
  return "";
}

bool disabled() {
  const char* value = std::getenv("TLC_DISABLE_CACHE");
  return value && *value && std::string(value) != "0" && std::string(value) != "no" &&
         std::string(value) != "false";
}

// A folder this user owns and no one else may write to, made so if missing.
bool privateFolder(const std::string& dir) {
  if (llvm::sys::fs::create_directories(dir, true, llvm::sys::fs::owner_all))
    return false;
  struct stat status{};
  return ::lstat(dir.c_str(), &status) == 0 && S_ISDIR(status.st_mode) &&
         status.st_uid == ::geteuid() && !(status.st_mode & (S_IWGRP | S_IWOTH));
}

} // namespace

std::string toolIdentity(const std::string& tool) {
  llvm::SmallString<256> real;
  struct stat status{};
  if (llvm::sys::fs::real_path(tool, real) || ::stat(real.c_str(), &status) != 0)
    return "";
  return real.str().str() + "\n" + std::to_string(status.st_dev) + " " +
         std::to_string(status.st_ino) + " " + std::to_string(status.st_size) + " " +
         std::to_string(status.st_mtim.tv_sec) + "." + std::to_string(status.st_mtim.tv_nsec);
}

std::string probeMemoDir() {
  if (disabled())
    return "";
  std::string root = cacheRoot();
  return root.empty() ? "" : root + "/probes";
}

std::string probeMemoFile(llvm::ArrayRef<std::string> argv,
                          llvm::ArrayRef<std::string> alsoDependsOn) {
  std::string dir = probeMemoDir();
  std::string identity = argv.empty() ? "" : toolIdentity(argv.front());
  bool unknowable = llvm::is_contained(alsoDependsOn, std::string());
  if (dir.empty() || identity.empty() || unknowable || !privateFolder(dir))
    return "";
  std::string key = identity;
  for (const std::string& arg : argv)
    key += '\0' + arg;
  key += '\1';
  for (const std::string& dependency : alsoDependsOn)
    key += '\0' + dependency;
  return dir + "/" + sha256Hex(key).substr(0, 32);
}

std::optional<std::string> recallProbe(const std::string& memoFile) {
  if (memoFile.empty())
    return std::nullopt;
  auto remembered = readFile(memoFile, 1 << 20);
  if (!remembered) {
    llvm::consumeError(remembered.takeError());
    return std::nullopt;
  }
  return std::move(*remembered);
}

void rememberProbe(const std::string& memoFile, const CommandResult& result) {
  if (!memoFile.empty() && result.succeeded())
    llvm::consumeError(writeFile(memoFile, result.output)); // a memo that fails to write is no loss
}

static std::atomic<unsigned> probeSeconds{kDefaultProbeSeconds};

void setProbeTimeout(unsigned seconds) {
  probeSeconds = seconds ? std::min(seconds, kDefaultProbeSeconds) : kDefaultProbeSeconds;
}

unsigned probeTimeout() {
  return probeSeconds;
}

llvm::Expected<CommandResult> runProbe(llvm::ArrayRef<std::string> argv, const RunOptions& options,
                                       llvm::ArrayRef<std::string> alsoDependsOn) {
  std::string memo = probeMemoFile(argv, alsoDependsOn);
  if (auto remembered = recallProbe(memo)) {
    CommandResult result;
    result.output = std::move(*remembered);
    return result;
  }
  RunOptions bounded = options;
  if (!bounded.timeoutSeconds)
    bounded.timeoutSeconds = probeSeconds;
  auto result = runCommand(argv, bounded);
  if (result)
    rememberProbe(memo, *result);
  return result;
}

} // namespace tlc
