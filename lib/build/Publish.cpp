// The staging folder of a build and its atomic publication into OUTDIR.
#include "build/Publish.h"

#include "support/Error.h"
#include "support/Interrupts.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <cstdio>

namespace tlc {

namespace {

// The staging folder to remove if the build is interrupted (one build per process).
std::atomic<const char*> interruptedStaging{nullptr};

void removeStagingOnInterrupt() {
  if (const char* root = interruptedStaging.load())
    llvm::sys::fs::remove_directories(root);
}

bool sameContents(const std::string& a, const std::string& b) {
  auto left = llvm::MemoryBuffer::getFile(a, false, false);
  auto right = llvm::MemoryBuffer::getFile(b, false, false);
  return left && right && (*left)->getBuffer() == (*right)->getBuffer();
}

} // namespace

llvm::Expected<std::unique_ptr<Staging>> Staging::create(const std::string& outputDir) {
  llvm::SmallString<256> absolute(outputDir);
  if (auto ec = llvm::sys::fs::make_absolute(absolute))
    return inputError("cannot resolve output folder '" + outputDir + "': " + ec.message());
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  if (llvm::sys::fs::exists(absolute) && !llvm::sys::fs::is_directory(absolute))
    return inputError("output path '" + outputDir + "' exists and is not a folder");
  llvm::StringRef parent = llvm::sys::path::parent_path(absolute);
  if (auto ec = llvm::sys::fs::create_directories(parent))
    return inputError("cannot create '" + parent + "': " + ec.message());

  llvm::SmallString<256> root;
  // A hidden sibling of OUTDIR: same file system, so publishing is a rename.
  std::string prefix = (parent + "/." + llvm::sys::path::filename(absolute) + ".tlc").str();
  if (auto ec = llvm::sys::fs::createUniqueDirectory(prefix, root))
    return inputError("cannot create a staging folder in '" + parent + "': " + ec.message());
  std::unique_ptr<Staging> staging(new Staging());
  staging->OutputDir = absolute.str().str();
  staging->Root = root.str().str();
  staging->Outputs = staging->Root + "/out";
  staging->Work = staging->Root + "/work";
  for (const std::string& dir : {staging->Outputs, staging->Work})
    if (auto ec = llvm::sys::fs::create_directory(dir))
      return inputError("cannot create '" + dir + "': " + ec.message());
  interruptedStaging.store(staging->Root.c_str());
  onInterrupt(removeStagingOnInterrupt);
  return staging;
}

Staging::~Staging() {
  interruptedStaging.store(nullptr);
  if (!Kept)
    llvm::sys::fs::remove_directories(Root);
}

llvm::Error Staging::publish(const std::vector<std::string>& files) {
  // A new output folder appears whole, in one rename.
  if (!llvm::sys::fs::exists(OutputDir)) {
    if (auto ec = llvm::sys::fs::rename(Outputs, OutputDir))
      return inputError("cannot create '" + OutputDir + "': " + ec.message());
    return llvm::Error::success();
  }
  // An existing one gets each file by rename(2), which replaces atomically; what was there is
  // kept aside (hard links) so a failed move can be undone.
  std::string backup = Root + "/previous";
  if (auto ec = llvm::sys::fs::create_directory(backup))
    return inputError("cannot create '" + backup + "': " + ec.message());
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

} // namespace tlc
