// The staging folder of a build and its publication into OUTDIR.
#include "publish/Publish.h"

#include "builder/OutputPaths.h"
#include "publish/Depfile.h"
#include "publish/Manifest.h"
#include "support/Process.h"

#include "support/Error.h"
#include "support/Hashing.h"
#include "support/Interrupts.h"
#include "support/JsonFields.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tlc {

namespace {

bool sameContents(const std::string& a, const std::string& b) {
  auto left = readFileBuffer(a);
  auto right = readFileBuffer(b);
  bool same = left && right && (*left)->getBuffer() == (*right)->getBuffer();
  if (!left)
    llvm::consumeError(left.takeError());
  if (!right)
    llvm::consumeError(right.takeError());
  return same;
}

// The staging folders of one OUTDIR: hidden siblings named from a hash of its name, so that
// nothing of the user's spelling is in them and the next build finds the ones a killed build
// left.
std::string stagingPrefix(llvm::StringRef outputName) {
  return ".tlc-" + sha256Hex(outputName).substr(0, 12) + "-";
}

// Work folders under TMPDIR.
constexpr const char* kWorkPrefix = "tlc-build-";

// Whether rename(2) works from `a` to `b`: both on one mount. The mount's id, where the kernel
// tells it (a bind mount of a folder is another mount of the same device), else the device.
bool sameMount(const std::string& a, const std::string& b) {
  struct statx first{}, second{};
  if (::statx(AT_FDCWD, a.c_str(), 0, STATX_MNT_ID, &first) != 0 ||
      ::statx(AT_FDCWD, b.c_str(), 0, STATX_MNT_ID, &second) != 0)
    return true; // nothing known: the staging folder stays where it always was
  if ((first.stx_mask & STATX_MNT_ID) && (second.stx_mask & STATX_MNT_ID))
    return first.stx_mnt_id == second.stx_mnt_id;
  return first.stx_dev_major == second.stx_dev_major && first.stx_dev_minor == second.stx_dev_minor;
}

// The kernel's fs.protected_symlinks rule, checked whatever the sysctl says (it is off on some
// machines): a symbolic link in a sticky folder anyone may write to is followed only by its owner
// or when the folder's owner made it. Otherwise another user planted it (in /tmp, before tlc
// ran), and writing through it would put tlc's files, as root too, where that user chose. Each
// component of `absolute` is looked at, up to the first that does not exist yet.
llvm::Error refusePlantedLinks(llvm::StringRef absolute, const std::string& given) {
  llvm::SmallString<256> prefix;
  for (auto part = llvm::sys::path::begin(absolute), end = llvm::sys::path::end(absolute);
       part != end; ++part) {
    llvm::sys::path::append(prefix, *part);
    struct stat link{};
    if (::lstat(prefix.c_str(), &link) != 0)
      return llvm::Error::success();
    if (!S_ISLNK(link.st_mode))
      continue;
    std::string folder = llvm::sys::path::parent_path(prefix).str();
    struct stat shared{};
    if (::stat(folder.c_str(), &shared) != 0 || !(shared.st_mode & S_ISVTX) ||
        !(shared.st_mode & S_IWOTH) || link.st_uid == ::geteuid() || link.st_uid == shared.st_uid)
      continue;
    return inputError("-o '" + given + "': '" + prefix.str() + "' is a symbolic link of user " +
                      std::to_string(link.st_uid) + " in '" + folder +
                      "', a sticky folder anyone may write to; tlc does not follow it (as the "
                      "kernel's fs.protected_symlinks would not): remove it, or choose another "
                      "output folder");
  }
  return llvm::Error::success();
}

// Whether `dir`/`name` is a file of OUTDIR's own as it stands: no symbolic link on the way and a
// regular file at the end, so nothing found through it leaves the folder.
bool isRegularFileInside(const std::string& dir, llvm::StringRef name) {
  std::string path = dir;
  for (auto part = llvm::sys::path::begin(name), end = llvm::sys::path::end(name); part != end;
       ++part) {
    path += "/" + part->str();
    struct stat status{};
    if (::lstat(path.c_str(), &status) != 0)
      return false;
    bool last = std::next(part) == end;
    if (last ? !S_ISREG(status.st_mode) : !S_ISDIR(status.st_mode))
      return false;
  }
  return true;
}

// The files of the previous build in `dir` that the next one replaces by nothing: those its
// manifest `manifest` lists that are not in `next` and still hold what the manifest says (so
// they are tlc's, not files of the user's that took their names), and the manifest itself when
// the next build writes none. A manifest that is missing, damaged or not a plain file names none.
std::vector<std::string> staleOutputs(const std::string& dir, const std::string& manifest,
                                      const std::vector<std::string>& next) {
  if (!isRegularFileInside(dir, manifest))
    return {};
  auto text = readFile(dir + "/" + manifest);
  if (!text) {
    llvm::consumeError(text.takeError());
    return {};
  }
  nlohmann::json document = nlohmann::json::parse(*text, nullptr, false);
  if (!document.is_object() ||
      stringAt(document, "schema") != std::optional<std::string>("tlc.manifest"))
    return {};
  auto listed = manifestOutputs(document, manifest);
  if (!listed) {
    llvm::consumeError(listed.takeError());
    return {};
  }
  std::set<std::string> kept(next.begin(), next.end());
  std::vector<std::string> stale;
  for (const FileDigest& output : *listed) {
    if (kept.count(output.path) || !isRegularFileInside(dir, output.path))
      continue;
    auto digest = sha256OfFile(dir + "/" + output.path);
    if (digest && *digest == output.sha256)
      stale.push_back(output.path);
    else if (!digest)
      llvm::consumeError(digest.takeError());
  }
  if (!kept.count(manifest))
    stale.push_back(manifest);
  return stale;
}

// Whether the text file `path` begins as the sources tlc generates do ("generated by tlc" in the
// first line's comment): a header or launcher an earlier build wrote (--emit-only has no
// manifest to list them).
bool isGeneratedByTlc(const std::string& path) {
  auto file = ReadableFile::open(path);
  if (!file) {
    llvm::consumeError(file.takeError());
    return false;
  }
  char start[64];
  ssize_t read = ::pread(file->fd(), start, sizeof start, 0);
  llvm::StringRef first(start, read > 0 ? size_t(read) : 0);
  return first.starts_with("/* generated by tlc ") || first.starts_with("// generated by tlc ") ||
         first.starts_with("# generated by tlc ");
}

// The files of `files` that stand in `dir` (as anything: a file, a link, a folder) and that
// tlc did not make: not listed by the manifest of an earlier build there (nor that manifest,
// a tlc manifest, itself), not a source tlc generated, and not what `staged`/<file> holds now.
std::vector<std::string> filesInTheWay(const std::string& dir, const std::string& staged,
                                       const std::vector<std::string>& files,
                                       const std::string& manifest) {
  std::set<std::string> listed;
  if (isRegularFileInside(dir, manifest)) {
    auto text = readFile(dir + "/" + manifest);
    nlohmann::json document =
        text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!text)
      llvm::consumeError(text.takeError());
    // Every output the manifest names as a file of the folder counts, even where another of
    // its entries is damaged: it names what an earlier build wrote.
    if (document.is_object() &&
        stringAt(document, "schema") == std::optional<std::string>("tlc.manifest")) {
      listed.insert(manifest);
      if (auto outputs = document.find("outputs");
          outputs != document.end() && outputs->is_object())
        for (const auto& [role, output] : outputs->items())
          if (std::optional<std::string> name = stringAt(output, "file");
              name && isPlainOutputName(*name))
            listed.insert(*name);
    }
  }
  std::vector<std::string> inTheWay;
  for (const std::string& file : files) {
    std::string target = dir + "/" + file;
    struct stat status{};
    if (::lstat(target.c_str(), &status) != 0 || listed.count(file))
      continue;
    bool regular = isRegularFileInside(dir, file);
    if (regular && (isGeneratedByTlc(target) || sameContents(staged + "/" + file, target)))
      continue;
    inTheWay.push_back(file);
  }
  return inTheWay;
}

// Removes what Python compiled from the removed `file` (a module of the package, imported from
// OUTDIR): __pycache__/STEM.TAG.pyc beside it, and that folder once empty.
void removeCompiled(const std::string& dir, llvm::StringRef file) {
  if (llvm::sys::path::extension(file) != ".py")
    return;
  std::string cache = dir + "/" + llvm::sys::path::parent_path(file).str() + "/__pycache__";
  std::string prefix = llvm::sys::path::stem(file).str() + ".";
  std::error_code ec;
  std::vector<std::string> compiled;
  for (llvm::sys::fs::directory_iterator it(cache, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::sys::fs::file_status status;
    if (name.starts_with(prefix) && name.ends_with(".pyc") &&
        !llvm::sys::fs::status(it->path(), status, /*follow=*/false) &&
        status.type() == llvm::sys::fs::file_type::regular_file)
      compiled.push_back(it->path());
  }
  for (const std::string& path : compiled)
    ::unlink(path.c_str());
  ::rmdir(cache.c_str()); // fails, as it should, on one that is not empty
}

// Removes the folders of `dir` that held `files` and are empty now (the Python package's), the
// deepest first; a folder holding anything else stays.
void removeEmptyFolders(const std::string& dir, const std::vector<std::string>& files) {
  std::set<std::string, std::greater<std::string>> folders;
  for (const std::string& file : files) {
    removeCompiled(dir, file);
    for (llvm::StringRef folder = llvm::sys::path::parent_path(file); !folder.empty();
         folder = llvm::sys::path::parent_path(folder))
      folders.insert(folder.str());
  }
  for (const std::string& folder : folders)
    ::rmdir((dir + "/" + folder).c_str()); // fails, as it should, on one that is not empty
}

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
  if (llvm::Error error = refusePlantedLinks(absolute, outputDir))
    return error;
  if (llvm::sys::fs::exists(absolute) && !llvm::sys::fs::is_directory(absolute))
    return inputError("output path '" + outputDir + "' exists and is not a folder");
  std::string parent = llvm::sys::path::parent_path(absolute).str();
  if (auto ec = llvm::sys::fs::create_directories(parent, true, llvm::sys::fs::all_all))
    return inputError("cannot create '" + parent + "': " + ec.message());

  auto folder = createStagingFolder(absolute.str().str());
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

  auto workRoot = tlc::workRoot();
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

llvm::Expected<std::unique_ptr<LockedFolder>>
Staging::createStagingFolder(const std::string& outputDir) {
  std::string parent = llvm::sys::path::parent_path(outputDir).str();
  std::string prefix = stagingPrefix(llvm::sys::path::filename(outputDir));
  bool exists = llvm::sys::fs::is_directory(outputDir);
  // What killed builds left, beside OUTDIR or inside it.
  removeAbandoned(parent, prefix);
  if (exists)
    removeAbandoned(outputDir, prefix);
  if (exists && !sameMount(parent, outputDir))
    return LockedFolder::create(outputDir, prefix);
  auto beside = LockedFolder::create(parent, prefix);
  if (beside || !exists)
    return beside;
  // A folder of the user's in one they may not write to (/srv/out): inside it, then.
  llvm::consumeError(beside.takeError());
  return LockedFolder::create(outputDir, prefix);
}

llvm::Error Staging::publish(const std::vector<std::string>& files, const std::string& manifest,
                             bool force) {
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
  return publishInto(files, manifest, force);
}

llvm::Error Staging::publishInto(const std::vector<std::string>& files, const std::string& manifest,
                                 bool force) {
  // Under the lock, before anything moves: a file of the user's is never replaced.
  if (!force)
    if (std::vector<std::string> inTheWay = filesInTheWay(OutputDir, Outputs, files, manifest);
        !inTheWay.empty()) {
      std::string names;
      for (const std::string& file : inTheWay)
        names += (names.empty() ? "'" : ", '") + OutputDir + "/" + file + "'";
      return usageError(names + (inTheWay.size() == 1 ? " is" : " are") +
                        " in the way of this build's outputs, and no earlier tlc build there "
                        "made " +
                        (inTheWay.size() == 1 ? "it" : "them") + " (its manifest " + manifest +
                        " does not list them): tlc replaces only its own outputs. Move " +
                        (inTheWay.size() == 1 ? "it" : "them") +
                        " away, choose another -o, or pass --force to overwrite");
    }
  // Each file by rename(2), which replaces atomically; what was there is kept aside (hard
  // links) so a failed move can be undone. The previous build's files that this one does not
  // make are moved aside the same way, so a failure puts them back too.
  std::string backup = root() + "/previous";
  if (::mkdir(backup.c_str(), 0700) != 0)
    return inputError("cannot create '" + backup + "': " + std::strerror(errno));
  std::vector<std::string> stale = staleOutputs(OutputDir, manifest, files);
  std::vector<std::string> moved, removed;
  auto undo = [&] {
    for (const std::string& done : moved) {
      std::string previous = backup + "/" + done;
      if (llvm::sys::fs::exists(previous))
        llvm::sys::fs::rename(previous, OutputDir + "/" + done);
      else
        llvm::sys::fs::remove(OutputDir + "/" + done);
    }
    for (const std::string& done : removed)
      llvm::sys::fs::rename(backup + "/" + done, OutputDir + "/" + done);
  };
  for (const std::string& file : files) {
    std::string target = OutputDir + "/" + file;
    // An unchanged output keeps its timestamp, so nothing downstream rebuilds for nothing.
    if (isRegularFileInside(OutputDir, file) && sameContents(Outputs + "/" + file, target))
      continue;
    // A file in a subfolder (the Python package NAME/) gets its folders first.
    if (auto ec = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(target), true,
                                                    llvm::sys::fs::all_all)) {
      undo();
      return inputError("cannot create the folder of '" + target + "': " + ec.message());
    }
    // Kept aside: a file or a link, which the staging folder's removal can remove (a FIFO
    // named like an output is replaced for good).
    llvm::sys::fs::file_status previous;
    if (!llvm::sys::fs::status(target, previous, /*follow=*/false) &&
        (previous.type() == llvm::sys::fs::file_type::regular_file ||
         previous.type() == llvm::sys::fs::file_type::symlink_file)) {
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(backup + "/" + file));
      llvm::sys::fs::create_hard_link(target, backup + "/" + file);
    }
    if (auto ec = llvm::sys::fs::rename(Outputs + "/" + file, target)) {
      undo();
      return inputError("cannot write '" + target + "': " + ec.message());
    }
    moved.push_back(file);
  }
  for (const std::string& file : stale) {
    std::string aside = backup + "/" + file;
    std::error_code ec = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(aside),
                                                           true, llvm::sys::fs::owner_all);
    if (!ec)
      ec = llvm::sys::fs::rename(OutputDir + "/" + file, aside);
    if (ec) {
      undo();
      return inputError("cannot remove '" + OutputDir + "/" + file +
                        "', an output of the previous build: " + ec.message());
    }
    removed.push_back(file);
  }
  removeEmptyFolders(OutputDir, stale);
  return llvm::Error::success();
}

bool isStagingInUse(const std::string& path) {
  if (!llvm::sys::path::filename(path).starts_with(".tlc-"))
    return false;
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return false;
  bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
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

llvm::Error finishBuild(Staging& staging, const BuildOptions& options,
                        const std::vector<std::string>& files, const std::string& targetFile,
                        const std::string& manifest, const std::vector<std::string>& dependencies) {
  // The headers the build read are known now: none may be an output.
  if (llvm::Error error = OutputPaths(options, files).checkAgainst(dependencies))
    return error;
  if (!options.depfile.empty()) {
    std::string target = options.depfileTarget.empty() ? options.outputDir + "/" + targetFile
                                                       : options.depfileTarget;
    if (llvm::Error error = writeDepfile(options.depfile, target, dependencies))
      return error;
  }
  // The last moment a signal stops the build; once publishing starts it completes.
  if (interrupted())
    return interruptedError();
  return staging.publish(files, manifest, options.force);
}

} // namespace tlc
