// Small file operations with tlc's error conventions, and the one way tlc writes files: through
// a locked temporary beside the target and a rename, every I/O error checked (a full disk is an
// error message, never a half-written file), nothing left behind on failure. Temporaries and
// working folders hold an flock(2) while they live, so the next tlc can tell what a killed one
// left from what a running one is using, and remove only the former (removeAbandoned).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tlc {

// Every input exists and is a regular file; otherwise an InputError naming the first that is not.
llvm::Error checkInputFiles(const std::vector<std::string>& inputs);

// Replaces `path` with `contents` atomically: readers see the old file or the new one. `mode` is
// narrowed by the umask, as open(2) does.
llvm::Error writeFile(const std::string& path, llvm::StringRef contents, unsigned mode = 0666);

// As writeFile, but leaves the file (and its timestamp) alone when it already holds `contents`.
llvm::Error replaceFileIfChanged(const std::string& path, llvm::StringRef contents);

// Copies `from` to `to` the same way (a temporary and a rename).
llvm::Error copyFile(const std::string& from, const std::string& to, unsigned mode = 0666);

// The check writeFile makes before it writes anything, for callers that must know before they
// start: `path` is new, or (through symbolic links) a regular file. Anything else (a folder, a
// FIFO, /dev/null, /dev/full) is an InputError naming it: a rename would replace it, and tlc
// never writes into one.
llvm::Error checkWritable(const std::string& path);

// The one way tlc reads a file it was given, found or made itself (compile databases, templates,
// manifests, cache entries, old depfiles, images): opened without blocking, so a FIFO or a
// device named in its place never stalls tlc; refused unless it is a regular file; at most
// `limit` bytes. Each refusal is an InputError naming the file and saying why.
constexpr uint64_t kDefaultReadLimit = uint64_t(2) << 30; // 2 GiB: larger than any real output
llvm::Expected<std::string> readFile(const std::string& path, uint64_t limit = kDefaultReadLimit);
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFileBuffer(const std::string& path, uint64_t limit = kDefaultReadLimit);

// A file open for reading as readFile opens it (without blocking, a regular file, at most
// `limit` bytes), for readers that stream it (hashing). Closed with the object.
class ReadableFile {
public:
  static llvm::Expected<ReadableFile> open(const std::string& path,
                                           uint64_t limit = kDefaultReadLimit);
  ReadableFile(ReadableFile&& other) : Fd(other.Fd), Size(other.Size) { other.Fd = -1; }
  ReadableFile& operator=(ReadableFile&&) = delete;
  ~ReadableFile();

  int fd() const { return Fd; }
  uint64_t size() const { return Size; } // when it was opened

private:
  ReadableFile(int fd, uint64_t size) : Fd(fd), Size(size) {}
  int Fd;
  uint64_t Size;
};

// Removes `path` and, when it is a folder, everything in it, links not followed. FIFOs and
// devices a tool left go too (llvm::sys::fs::remove refuses them, and a folder holding one
// stayed). Errors are ignored: what cannot be removed stays.
void removeTree(const std::string& path);

// An absolute path without "." or ".." (resolved through the file system where ".." follows a
// symbolic link), as depfiles need them.
std::string absolutePath(const std::string& path);

// A new folder `parent`/`prefix`XXXXXXXX, private to this user (0700), locked while the object
// lives. Removed with its contents on destruction unless keep() or forget() was called.
class LockedFolder {
public:
  static llvm::Expected<std::unique_ptr<LockedFolder>> create(const std::string& parent,
                                                              const std::string& prefix);
  ~LockedFolder();
  LockedFolder(const LockedFolder&) = delete;
  LockedFolder& operator=(const LockedFolder&) = delete;

  const std::string& path() const { return Path; }
  // Kept for the user (--keep-temps): left in place on destruction, and marked (kKeptMarker) so
  // that no later removeAbandoned takes it for what a killed tlc left once its lock is gone.
  llvm::Error keep();
  // The folder was renamed away (published): nothing to remove any more.
  void forget() { Kept = true; }

private:
  LockedFolder(std::string path, int fd) : Path(std::move(path)), Fd(fd) {}
  std::string Path;
  int Fd;
  bool Kept = false;
};

// The file LockedFolder::keep() puts in a folder it keeps.
inline constexpr const char* kKeptMarker = ".tlc-kept";

// Removes the entries of `parent` named `prefix` and 12 letters or digits (as LockedFolder and
// writeFile name them) that no live process holds locked: what a killed tlc left. Entries it
// cannot lock, that are not this user's, or folders kept on request (holding kKeptMarker) are
// left alone.
void removeAbandoned(const std::string& parent, llvm::StringRef prefix);

// Where the tools' work folders go: $TMPDIR if its real path is made of safe characters
// (isShellSafe: nvcc pastes it into shell commands), else /tmp; ToolchainError if neither.
llvm::Expected<std::string> workRoot();

} // namespace tlc
