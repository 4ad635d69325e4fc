// Publishing: a build works in a folder of its own under TMPDIR (or /tmp) whose path is made of
// safe characters, so the tools can be handed names inside it (builder/ToolPaths.h); it collects
// its outputs in a staging folder on OUTDIR's own file system and only moves them into OUTDIR
// when every step succeeded. On failure, or when interrupted, both are removed and OUTDIR is as
// it was; the folders a killed build left (SIGKILL) are removed by the next build (into the same
// OUTDIR, for staging folders).
//
// The staging folder is beside OUTDIR, so that a new OUTDIR appears whole, in one rename. An
// existing OUTDIR on another mount than the folder it is in (a mount point, a Docker volume, a
// bind mount, a link to another file system), or one whose parent tlc may not write to, gets it
// inside, as a hidden folder that `tlc verify` passes over while its build runs: rename(2)
// works only within one mount.
//
// Into an existing OUTDIR each output is renamed in (so no file is ever seen half-written), and
// the set is published under an exclusive flock(2) on OUTDIR itself: two builds never interleave
// their files, and a reader that takes the shared lock (publishedFolderLock; `tlc verify` does)
// sees one build's outputs, never a mix. The files of the previous build that this one does not
// make (another image format, a Python package no longer asked for) are removed in the same
// step: those the previous manifest (NAME.json) lists and that still hold what it says (and
// what Python compiled from them), never a file it does not list, one that was changed since,
// or one outside OUTDIR. Nor does a build replace a file of the user's: a file named like one
// of its outputs must be tlc's (listed by the previous manifest, a source tlc generated, or
// byte-identical to the new output), else the build stops, naming it, and changes nothing
// (--force replaces it). OUTDIR stays a plain
// folder of regular files, so install rules, `cp -r` and CI artifacts see exactly what was
// built, and files of the user's beside the outputs are left alone.
//
// An OUTDIR reached through a symbolic link that another user made in a sticky folder anyone may
// write to (/tmp) is refused, as the kernel's fs.protected_symlinks refuses to follow one: such
// a link would send every output where that user chose.
#pragma once

#include "builder/BuildOptions.h"
#include "support/Files.h"
#include "support/Interrupts.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tlc {

class Staging {
public:
  // Creates the staging folder for `outputDir` (whose parent folders are created if needed),
  // after removing what killed builds into the same OUTDIR left. Its name is tlc's own
  // (`.tlc-<hash of OUTDIR's name>-<random>`), whatever OUTDIR is called. An InputError when
  // OUTDIR is reached through a link another user planted (above).
  static llvm::Expected<std::unique_ptr<Staging>> create(const std::string& outputDir);

  const std::string& outputsDir() const { return Outputs; }         // what publish() moves
  const std::string& workDir() const { return WorkFolder->path(); } // the tools', never published
  const std::string& root() const { return Folder->path(); }
  const std::string& outputDir() const { return OutputDir; } // absolute

  // Moves each of `files` (paths inside outputsDir(), subfolders created as needed) into the
  // output folder, replacing files of the same name unless their contents are equal (their
  // timestamps then stay), then removes the previous build's outputs that are not among them:
  // the files the manifest of that name (`manifest`, NAME.json) lists, each only while it still
  // holds what the manifest says, and the manifest itself. If any step fails, the ones already
  // made are undone. A UsageError naming every file in the way that tlc did not make (above),
  // before anything is moved, unless `force`.
  llvm::Error publish(const std::vector<std::string>& files, const std::string& manifest,
                      bool force = false);

  // Keeps the work folder (--keep-temps) instead of removing it, marked so that no later build's
  // sweep of abandoned folders (removeAbandoned) takes it.
  llvm::Error keep() { return WorkFolder->keep(); }

private:
  Staging() = default;
  // The staging folder: beside `outputDir` (absolute), else inside it (above).
  static llvm::Expected<std::unique_ptr<LockedFolder>>
  createStagingFolder(const std::string& outputDir);
  llvm::Error publishInto(const std::vector<std::string>& files, const std::string& manifest,
                          bool force);
  std::unique_ptr<LockedFolder> Folder, WorkFolder;
  // Removed by a forced exit too (support/Interrupts.h).
  std::unique_ptr<Temporary> Registration, WorkRegistration;
  std::string OutputDir, Outputs;
};

// The end of a build of `options`, from its outputs or the cache's: none of `files` (names in
// OUTDIR) may be one of `dependencies`, every file the build read (builder/OutputPaths.h); then
// --depfile is written, its target `targetFile` in OUTDIR unless --depfile-target names one; then
// `files` are published from `staging` (NAME.json: `manifest`). The depfile comes first: a build
// that cannot write it fails before anything is published.
llvm::Error finishBuild(Staging& staging, const BuildOptions& options,
                        const std::vector<std::string>& files, const std::string& targetFile,
                        const std::string& manifest, const std::vector<std::string>& dependencies);

// Whether `path` is the staging folder of a build running now (inside an OUTDIR that is a mount
// point, see above): a folder named as tlc names them that a live process holds locked.
bool isStagingInUse(const std::string& path);

// A lock on a published folder: exclusive while a build publishes into it, shared for readers
// that want one build's files. Released on destruction.
class PublishedFolderLock {
public:
  static llvm::Expected<std::unique_ptr<PublishedFolderLock>> take(const std::string& dir,
                                                                   bool exclusive);
  ~PublishedFolderLock();
  PublishedFolderLock(const PublishedFolderLock&) = delete;
  PublishedFolderLock& operator=(const PublishedFolderLock&) = delete;

private:
  explicit PublishedFolderLock(int fd) : Fd(fd) {}
  int Fd;
};

} // namespace tlc
