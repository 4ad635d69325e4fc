// The staging folder of a build and its publication into OUTDIR.
#include "pipeline/Publish.h"

#include "pipeline/ToolPaths.h"

#include "support/Error.h"
#include "support/Hashing.h"
#include "support/Interrupts.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tlc {

namespace {

bool sameContents(const std::string& a, const std::string& b) {
  auto left = llvm::MemoryBuffer::getFile(a, false, false);
  auto right = llvm::MemoryBuffer::getFile(b, false, false);
  return left && right && (*left)->getBuffer() == (*right)->getBuffer();
}

// The staging folders of one OUTDIR: hidden siblings named from a hash of its name, so that
// nothing of the user's spelling is in them and the next build finds the ones a killed build
// left.
std::string stagingPrefix(llvm::StringRef outputName) {
  return ".tlc-" + sha256Hex(outputName).substr(0, 12) + "-";
}

// Work folders under TMPDIR.
constexpr const char* kWorkPrefix = "tlc-build-";

} // namespace

llvm::Expected<std::unique_ptr<Staging>> Staging::create(const std::string& outputDir) {
  if (outputDir.empty())
    return usageError("-o '' names no folder");
  llvm::SmallString<256> absolute(outputDir);
  if (auto ec = llvm::sys::fs::make_absolute(absolute))
    return inputError("cannot resolve output folder '" + outputDir + "': " + ec.message());
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  llvm::StringRef name = llvm::sys::path::filename(absolute);
  if (name.empty() || name == "/" || name == "." || name == "..")
    return usageError("-o '" + outputDir +
                      "': the output folder must be a folder of its own, "
                      "not the file system's root");
  if (llvm::sys::fs::exists(absolute) && !llvm::sys::fs::is_directory(absolute))
    return inputError("output path '" + outputDir + "' exists and is not a folder");
  std::string parent = llvm::sys::path::parent_path(absolute).str();
  if (auto ec = llvm::sys::fs::create_directories(parent, true, llvm::sys::fs::all_all))
    return inputError("cannot create '" + parent + "': " + ec.message());

  std::string prefix = stagingPrefix(name);
  removeAbandoned(parent, prefix);
  auto folder = LockedFolder::create(parent, prefix);
  if (!folder)
    return folder.takeError();
  std::unique_ptr<Staging> staging(new Staging());
  staging->Folder = std::move(*folder);
  staging->Registration = std::make_unique<Temporary>(staging->root());
  staging->OutputDir = absolute.str().str();
  staging->Outputs = staging->root() + "/out";
  // The outputs' folder may become OUTDIR itself: the umask decides its mode, as for mkdir(1).
  if (::mkdir(staging->Outputs.c_str(), 0777) != 0)
    return inputError("cannot create '" + staging->Outputs + "': " + std::strerror(errno));

  auto workRoot = Staging::workRoot();
  if (!workRoot)
    return workRoot.takeError();
  removeAbandoned(*workRoot, kWorkPrefix);
  auto work = LockedFolder::create(*workRoot, kWorkPrefix);
  if (!work)
    return work.takeError();
  staging->WorkFolder = std::move(*work);
  staging->WorkRegistration = std::make_unique<Temporary>(staging->workDir());
  return staging;
}

llvm::Expected<std::string> Staging::workRoot() {
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

llvm::Error Staging::publish(const std::vector<std::string>& files) {
  // A new output folder appears whole, in one rename. Another build may make it first; then
  // this one publishes into it as into any existing folder.
  if (!llvm::sys::fs::exists(OutputDir)) {
    if (::rename(Outputs.c_str(), OutputDir.c_str()) == 0)
      return llvm::Error::success();
    if (errno != EEXIST && errno != ENOTEMPTY)
      return inputError("cannot create '" + OutputDir + "': " + std::strerror(errno));
  }
  auto lock = PublishedFolderLock::take(OutputDir, /*exclusive=*/true);
  if (!lock)
    return lock.takeError();
  return publishInto(files);
}

llvm::Error Staging::publishInto(const std::vector<std::string>& files) {
  // Each file by rename(2), which replaces atomically; what was there is kept aside (hard
  // links) so a failed move can be undone.
  std::string backup = root() + "/previous";
  if (::mkdir(backup.c_str(), 0700) != 0)
    return inputError("cannot create '" + backup + "': " + std::strerror(errno));
  std::vector<std::string> moved;
  for (const std::string& file : files) {
    std::string target = OutputDir + "/" + file;
    // An unchanged output keeps its timestamp, so nothing downstream rebuilds for nothing.
    if (sameContents(Outputs + "/" + file, target))
      continue;
    // A file in a subfolder (the Python package NAME/) gets its folders first.
    if (auto ec = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(target)))
      return inputError("cannot create the folder of '" + target + "': " + ec.message());
    if (llvm::sys::fs::exists(target)) {
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(backup + "/" + file));
      llvm::sys::fs::create_hard_link(target, backup + "/" + file);
    }
    if (auto ec = llvm::sys::fs::rename(Outputs + "/" + file, target)) {
      for (const std::string& done : moved) {
        std::string previous = backup + "/" + done;
        if (llvm::sys::fs::exists(previous))
          llvm::sys::fs::rename(previous, OutputDir + "/" + done);
        else
          llvm::sys::fs::remove(OutputDir + "/" + done);
      }
      return inputError("cannot write '" + target + "': " + ec.message());
    }
    moved.push_back(file);
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<PublishedFolderLock>>
PublishedFolderLock::take(const std::string& dir, bool exclusive) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return inputError("cannot open '" + dir + "': " + std::strerror(errno));
  while (::flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0) {
    if (errno == EINTR)
      continue;
    int error = errno;
    ::close(fd);
    return inputError("cannot lock '" + dir + "': " + std::strerror(error));
  }
  return std::unique_ptr<PublishedFolderLock>(new PublishedFolderLock(fd));
}

PublishedFolderLock::~PublishedFolderLock() {
  ::close(Fd);
}

} // namespace tlc
