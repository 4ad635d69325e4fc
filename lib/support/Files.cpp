// Small file operations with tlc's error conventions; the one file writer; locked temporaries.
#include "support/Files.h"

#include "support/Error.h"
#include "support/Interrupts.h"
#include "support/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tlc {

namespace {

std::string errnoText(int error) {
  return std::strerror(error);
}

// 12 random letters and digits: names no other process picks.
std::string randomSuffix() {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  static thread_local std::mt19937_64 generator(std::random_device{}());
  std::string suffix;
  for (int i = 0; i < 12; ++i)
    suffix += alphabet[generator() % (sizeof alphabet - 1)];
  return suffix;
}

// Locks `fd`, then checks the file is still linked: a cleaner (removeAbandoned) may have taken
// the lock first, in the instant after the file was made, and removed it.
bool lockStillLinked(int fd) {
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR)
      return false;
  struct stat status{};
  return ::fstat(fd, &status) == 0 && status.st_nlink > 0;
}

struct LockedTemporary {
  std::string path;
  int fd = -1;
};

// A new file `dir`/.`name`.tlc-XXXXXXXXXXXX, open for writing and locked.
llvm::Expected<LockedTemporary> lockedTemporary(const std::string& target, unsigned mode) {
  std::string dir = llvm::sys::path::parent_path(target).str();
  std::string name = "." + llvm::sys::path::filename(target).str() + ".tlc-";
  if (dir.empty())
    dir = ".";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = dir + "/" + name + randomSuffix();
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) {
      if (errno == EEXIST || errno == EINTR)
        continue;
      return inputError("cannot write '" + target + "': " + errnoText(errno));
    }
    if (lockStillLinked(fd))
      return LockedTemporary{path, fd};
    ::close(fd);
  }
  return inputError("cannot write '" + target + "': no temporary name is free in '" + dir + "'");
}

std::error_code writeAll(int fd, const char* data, size_t size) {
  while (size) {
    ssize_t written = ::write(fd, data, std::min<size_t>(size, 1u << 30));
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return std::error_code(errno, std::generic_category());
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return {};
}

// What a file that is not a regular one is, for the message refusing it.
std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

// Where writing `path` must go: through a symbolic link to the file it names. A path that names
// something other than a file (a folder, /dev/null) is refused: a rename would replace it.
llvm::Expected<std::string> writablePath(const std::string& path) {
  struct stat status{};
  if (::lstat(path.c_str(), &status) != 0)
    return path; // a new file
  std::string resolved = path;
  if (S_ISLNK(status.st_mode)) {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real))
      return path; // a dangling link: replaced by the file
    resolved = real.str().str();
    if (::stat(resolved.c_str(), &status) != 0)
      return inputError("cannot write '" + path + "': " + errnoText(errno));
  }
  if (!S_ISREG(status.st_mode))
    return inputError("cannot write '" + path + "': it exists and is not a regular file (" +
                      kindOf(status.st_mode) + ")");
  return resolved;
}

// A write's failure in words; a file size limit (ulimit -f: tlc ignores SIGXFSZ, so write()
// fails with EFBIG instead of the signal ending tlc) is named as such.
std::string writeFailure(std::error_code ec) {
  if (ec == std::errc::file_too_large)
    return ec.message() + " (the file size limit, ulimit -f, is reached)";
  return ec.message();
}

// Fills a locked temporary beside `path` through `fill`, then renames it over `path`.
template <typename Fill>
llvm::Error writeThroughTemporary(const std::string& path, unsigned mode, Fill fill) {
  auto resolved = writablePath(path);
  if (!resolved)
    return resolved.takeError();
  const std::string& target = *resolved;
  auto temporary = lockedTemporary(target, mode);
  if (!temporary)
    return temporary.takeError();
  Temporary registered(temporary->path); // removed by a forced exit too
  auto fail = [&](const std::string& why) {
    ::unlink(temporary->path.c_str());
    ::close(temporary->fd);
    return inputError("cannot write '" + target + "': " + why);
  };
  if (std::optional<std::string> problem = fill(temporary->fd))
    return fail(*problem);
  // The open file's mode is what open(2) made of `mode` under the umask; keep it.
  if (::rename(temporary->path.c_str(), target.c_str()) != 0)
    return fail(errnoText(errno));
  // Renamed while still locked, so no cleaner could take it; close reports late write errors
  // (NFS), and then the file in place cannot be trusted.
  if (::close(temporary->fd) != 0) {
    int error = errno;
    ::unlink(target.c_str());
    return inputError("cannot write '" + target + "': " + errnoText(error));
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error writeFile(const std::string& path, llvm::StringRef contents, unsigned mode) {
  return writeThroughTemporary(path, mode, [&](int fd) -> std::optional<std::string> {
    if (std::error_code ec = writeAll(fd, contents.data(), contents.size()))
      return writeFailure(ec);
    return std::nullopt;
  });
}

llvm::Error checkWritable(const std::string& path) {
  auto resolved = writablePath(path);
  return resolved ? llvm::Error::success() : resolved.takeError();
}

llvm::Error copyFile(const std::string& from, const std::string& to, unsigned mode) {
  auto source = ReadableFile::open(from);
  if (!source)
    return source.takeError();
  return writeThroughTemporary(to, mode, [&](int fd) -> std::optional<std::string> {
    char buffer[1 << 16];
    while (true) {
      ssize_t got = ::read(source->fd(), buffer, sizeof buffer);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        return "cannot read '" + from + "': " + errnoText(errno);
      if (got == 0)
        return std::nullopt;
      if (std::error_code ec = writeAll(fd, buffer, static_cast<size_t>(got)))
        return writeFailure(ec);
    }
  });
}

llvm::Error checkInputFiles(const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (!llvm::sys::fs::exists(input))
      return inputError("no such file: " + input);
    if (llvm::sys::fs::is_directory(input))
      return inputError("'" + input + "' is a directory, expected a .cu file");
    if (!llvm::sys::fs::is_regular_file(input))
      return inputError("'" + input + "' is not a regular file, expected a .cu file");
  }
  return llvm::Error::success();
}

llvm::Expected<ReadableFile> ReadableFile::open(const std::string& path, uint64_t limit) {
  // O_NONBLOCK: opening a FIFO without a writer would wait for one; the file is looked at first.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return inputError("cannot read '" + path + "': " + std::strerror(errno));
  ReadableFile file(fd, 0);
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return inputError("cannot read '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return inputError("cannot read '" + path + "': " + kindOf(info.st_mode) +
                      ", not a regular file");
  file.Size = static_cast<uint64_t>(info.st_size);
  if (file.Size > limit)
    return inputError("cannot read '" + path + "': " + std::to_string(file.Size) +
                      " bytes, more than the " + std::to_string(limit) + " tlc reads");
  // Reads of a regular file never block; a blocking descriptor is what readers expect.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return file;
}

ReadableFile::~ReadableFile() {
  if (Fd >= 0)
    ::close(Fd);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readFileBuffer(const std::string& path,
                                                                   uint64_t limit) {
  auto file = ReadableFile::open(path, limit);
  if (!file)
    return file.takeError();
  // The size just checked is what is read: a file that grows meanwhile is read as it was. Read,
  // not mapped (IsVolatile): a file cut short under a mapping would end tlc with SIGBUS.
  auto buffer = llvm::MemoryBuffer::getOpenFileSlice(file->fd(), path, file->size(), 0,
                                                     /*IsVolatile=*/true);
  if (!buffer)
    return inputError("cannot read '" + path + "': " + buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<std::string> readFile(const std::string& path, uint64_t limit) {
  auto buffer = readFileBuffer(path, limit);
  if (!buffer)
    return buffer.takeError();
  return (*buffer)->getBuffer().str();
}

llvm::Error replaceFileIfChanged(const std::string& path, llvm::StringRef contents) {
  if (auto existing = readFile(path); existing && *existing == contents)
    return llvm::Error::success();
  else if (!existing)
    llvm::consumeError(existing.takeError());
  return writeFile(path, contents);
}

std::string absolutePath(const std::string& path) {
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  // "a/link/../b" is not "a/b" when `link` is a symbolic link (Clang names GCC's headers as
  // /usr/lib/gcc/.../../../../include/c++/12 and /lib links to usr/lib): ask the file system.
  bool hasDotDot = llvm::is_contained(
      llvm::make_range(llvm::sys::path::begin(absolute), llvm::sys::path::end(absolute)), "..");
  llvm::SmallString<256> real;
  if (hasDotDot && !llvm::sys::fs::real_path(absolute, real))
    return real.str().str();
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  return absolute.str().str();
}

llvm::Expected<std::unique_ptr<LockedFolder>> LockedFolder::create(const std::string& parent,
                                                                   const std::string& prefix) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = parent + "/" + prefix + randomSuffix();
    if (::mkdir(path.c_str(), 0700) != 0) {
      if (errno == EEXIST || errno == EINTR)
        continue;
      return inputError("cannot create a folder in '" + parent + "': " + errnoText(errno));
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
      continue; // a cleaner removed it already
    if (lockStillLinked(fd))
      return std::unique_ptr<LockedFolder>(new LockedFolder(path, fd));
    ::close(fd);
  }
  return inputError("cannot create a folder in '" + parent + "': no name is free");
}

void removeTree(const std::string& path) {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

llvm::Error LockedFolder::keep() {
  Kept = true;
  return writeFile(Path + "/" + kKeptMarker,
                   "tlc keeps this folder (--keep-temps) and never removes it: remove it when "
                   "done with it.\n");
}

LockedFolder::~LockedFolder() {
  if (!Kept)
    removeTree(Path);
  ::close(Fd); // the lock goes with it
}

namespace {

bool isKept(const std::string& path, const struct stat& status) {
  return S_ISDIR(status.st_mode) && llvm::sys::fs::exists(path + "/" + kKeptMarker);
}

} // namespace

void removeAbandoned(const std::string& parent, llvm::StringRef prefix) {
  std::error_code ec;
  std::vector<std::string> candidates;
  for (llvm::sys::fs::directory_iterator it(parent, ec), end; it != end && !ec; it.increment(ec)) {
    // Exactly what LockedFolder and the writer name: the prefix and 12 letters or digits.
    llvm::StringRef suffix = llvm::sys::path::filename(it->path());
    if (suffix.consume_front(prefix) && suffix.size() == 12 &&
        llvm::all_of(suffix, [](char c) { return llvm::isDigit(c) || llvm::isLower(c); }))
      candidates.push_back(it->path());
  }
  for (const std::string& path : candidates) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
      continue;
    struct stat status{};
    // Only what this user made: another user's leftovers are theirs to remove.
    bool ours = ::fstat(fd, &status) == 0 && status.st_uid == ::geteuid() &&
                (S_ISDIR(status.st_mode) || S_ISREG(status.st_mode));
    // A kept folder is marked while its build holds the lock: once this sweep holds it, the
    // marker is there or the folder was not kept.
    if (ours && ::flock(fd, LOCK_EX | LOCK_NB) == 0 && !isKept(path, status)) {
      if (S_ISDIR(status.st_mode))
        removeTree(path);
      else
        ::unlink(path.c_str());
    }
    ::close(fd);
  }
}

llvm::Expected<std::string> workRoot() {
  std::vector<std::string> tried;
  for (const char* candidate : {static_cast<const char*>(std::getenv("TMPDIR")), "/tmp"}) {
    if (!candidate || !*candidate)
      continue;
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(candidate, real) || !llvm::sys::fs::is_directory(real))
      continue;
    if (isShellSafe(real))
      return real.str().str();
    tried.push_back(candidate);
  }
  return toolchainError("no folder for the tools' temporary files has a plain path (TMPDIR, "
                        "/tmp): nvcc's shell steps would interpret characters of '" +
                        (tried.empty() ? std::string("/tmp") : tried.front()) +
                        "'; set TMPDIR to a folder named with letters, digits and _-./ only");
}

} // namespace tlc
