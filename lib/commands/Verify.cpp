// `tlc verify OUTDIR`: every output the manifest lists against its SHA-256, and nothing else in
// the folder or its subfolders. Read under the folder's shared lock (publish/Publish.h), so a
// build publishing into it at the same time is seen whole or not at all. Every field of the
// manifest is checked: a damaged manifest is a failed verification, never a crash. tlc publishes
// regular files only: a listed output that is a symbolic link, or is reached through one, fails
// (it would vouch for a file outside the folder), and so does one that is no regular file.
#include "commands/Commands.h"
#include "publish/Manifest.h"
#include "publish/Publish.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/JsonFields.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <set>

namespace tlc {

namespace {

struct FoundManifest {
  std::string file; // its name in the folder
  nlohmann::json document;
};

// The manifest in `dir`: the one *.json whose schema is tlc.manifest.
llvm::Expected<FoundManifest> findManifest(const std::string& dir) {
  std::error_code ec;
  std::vector<FoundManifest> found;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::sys::fs::file_status status; // a link is not a manifest, nor a FIFO
    if (llvm::sys::path::extension(it->path()) != ".json" ||
        llvm::sys::fs::status(it->path(), status, /*follow=*/false) ||
        status.type() != llvm::sys::fs::file_type::regular_file)
      continue;
    auto text = readFile(it->path());
    if (!text) {
      llvm::consumeError(text.takeError());
      continue;
    }
    nlohmann::json document = nlohmann::json::parse(*text, nullptr, false);
    if (stringAt(document, "schema") == std::optional<std::string>("tlc.manifest"))
      found.push_back({llvm::sys::path::filename(it->path()).str(), std::move(document)});
  }
  if (ec)
    return inputError("cannot read '" + dir + "': " + ec.message());
  if (found.size() != 1)
    return inputError("'" + dir + "' holds " + std::to_string(found.size()) +
                      " tlc manifests; expected one");
  return std::move(found.front());
}

// Every file and folder in `dir` and its subfolders, as paths relative to it, but the staging
// folder of a build running now. Python's caches (__pycache__) are among them: Python runs a
// compiled module there in place of its source, whatever the source says (an unchecked-hash
// .pyc), so verify cannot vouch for one.
std::set<std::string> filesIn(const std::string& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec, /*follow_symlinks=*/false), end;
       it != end && !ec; it.increment(ec)) {
    if (it.level() == 0 && isStagingInUse(it->path())) { // a build's, inside a mount point
      it.no_push();
      continue;
    }
    names.insert(llvm::StringRef(it->path()).drop_front(dir.size() + 1).str());
  }
  return names;
}

// Whether an unlisted `file` (relative to the folder) may stay under --allow-extra: not one the
// library or the Python package could load in its folder (libNAME.so's RUNPATH is $ORIGIN: a
// libcuda.so.1 beside it would be loaded), and not inside a folder the manifest lists (the
// package).
bool harmlessExtra(llvm::StringRef file, const std::set<std::string>& listedFolders) {
  for (llvm::StringRef folder = llvm::sys::path::parent_path(file); !folder.empty();
       folder = llvm::sys::path::parent_path(folder))
    if (listedFolders.count(folder.str()))
      return false;
  llvm::StringRef name = llvm::sys::path::filename(file);
  bool sharedLibrary = name.ends_with(".so") || name.contains(".so.");
  bool pythonModule = name.ends_with(".py") || name.ends_with(".pyc");
  return !sharedLibrary && !pythonModule;
}

// Why the listed output `name` in `dir` is not a file of the folder's own ("" when it is): a
// symbolic link on its way, or something other than a regular file at its end.
std::string notOwnFile(const std::string& dir, llvm::StringRef name) {
  std::string path = dir;
  for (auto part = llvm::sys::path::begin(name), end = llvm::sys::path::end(name); part != end;
       ++part) {
    path += "/" + part->str();
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(path, status, /*follow=*/false))
      return ""; // missing: said as such
    bool last = std::next(part) == end;
    std::string which =
        last ? ""
             : " (its folder '" + llvm::StringRef(path).drop_front(dir.size() + 1).str() + "')";
    if (status.type() == llvm::sys::fs::file_type::symlink_file)
      return "a symbolic link" + which + ", which tlc never publishes";
    if (last && status.type() != llvm::sys::fs::file_type::regular_file)
      return "not a regular file";
  }
  return "";
}

} // namespace

llvm::Error runVerify(const VerifyOptions& options, llvm::raw_ostream& out) {
  const std::string& outputDir = options.outputDir;
  if (!llvm::sys::fs::is_directory(outputDir))
    return inputError("'" + outputDir + "' is not a folder");
  auto lock = PublishedFolderLock::take(outputDir, /*exclusive=*/false);
  if (!lock)
    return lock.takeError();
  auto manifest = findManifest(outputDir);
  if (!manifest)
    return manifest.takeError();
  const nlohmann::json& document = manifest->document;
  auto version = document.find("schema_version");
  if (version == document.end() || !version->is_number_integer())
    return inputError("the manifest '" + manifest->file + "' is damaged: no \"schema_version\"");
  if (version->get<int64_t>() > kManifestSchemaVersion)
    return inputError("the manifest in '" + outputDir + "' has schema version " +
                      std::to_string(version->get<int64_t>()) +
                      ", newer than this tlc understands");
  auto listed = manifestOutputs(document, manifest->file);
  if (!listed)
    return listed.takeError();

  std::string mismatches;
  std::set<std::string> unlisted = filesIn(outputDir);
  std::set<std::string> listedFolders;
  unlisted.erase(manifest->file);
  for (const FileDigest& output : *listed) {
    const std::string& file = output.path;
    const std::string& sha = output.sha256;
    unlisted.erase(file);
    // The folders the file is in (the Python package's) are listed with it.
    for (llvm::StringRef folder = llvm::sys::path::parent_path(file); !folder.empty();
         folder = llvm::sys::path::parent_path(folder)) {
      unlisted.erase(folder.str());
      listedFolders.insert(folder.str());
    }
    if (std::string why = notOwnFile(outputDir, file); !why.empty()) {
      mismatches += "\n  " + file + ": " + why;
      continue;
    }
    auto digest = sha256OfFile(outputDir + "/" + file);
    if (!digest) {
      mismatches += "\n  " + file + ": missing or unreadable";
      llvm::consumeError(digest.takeError());
    } else if (*digest != sha) {
      mismatches += "\n  " + file + ": SHA-256 " + *digest + ", manifest says " + sha;
    }
  }
  unsigned extra = 0;
  std::vector<std::string> refused;
  for (const std::string& file : unlisted) {
    if (options.allowExtra && harmlessExtra(file, listedFolders)) {
      ++extra;
      continue;
    }
    refused.push_back(file);
    mismatches += "\n  " + file + ": not in the manifest" +
                  (options.allowExtra ? " (and not allowed by --allow-extra: " +
                                            std::string(harmlessExtra(file, {})
                                                            ? "inside a folder of the build's"
                                                            : "a file the library could load") +
                                            ")"
                                      : "");
  }
  bool compiledPython = llvm::any_of(refused, [](llvm::StringRef file) {
    return llvm::is_contained(
        llvm::make_range(llvm::sys::path::begin(file), llvm::sys::path::end(file)), "__pycache__");
  });
  if (compiledPython)
    mismatches += "\n(__pycache__ holds what Python runs in place of the package's sources, "
                  "which verify cannot check: remove it before verifying, or import with "
                  "PYTHONDONTWRITEBYTECODE=1)";
  else if (!mismatches.empty() && !options.allowExtra && !unlisted.empty())
    mismatches += "\n(tlc verify --allow-extra allows files the manifest does not list)";
  if (!mismatches.empty())
    return inputError("'" + outputDir + "' does not match its manifest:" + mismatches);
  out << "ok: " << listed->size() << " files of " << stringAt(document, "name").value_or("?")
      << " match the manifest";
  if (extra)
    out << " (" << extra << " other " << (extra == 1 ? "entry" : "entries") << " allowed)";
  out << "\n";
  return llvm::Error::success();
}

} // namespace tlc
