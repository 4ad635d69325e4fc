// Outputs against inputs: by device and inode, before anything is written and again once the
// build's headers are known.
#include "builder/OutputPaths.h"

#include "builder/OutputNames.h"
#include "frontend/CompileCommands.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/Support/FileSystem.h"

#include <map>
#include <optional>

namespace tlc {

namespace {

// Which file `path` is, links followed; none when it does not exist (or cannot be looked at:
// then nothing is known to be at risk either).
std::optional<llvm::sys::fs::UniqueID> identity(const std::string& path) {
  llvm::sys::fs::UniqueID id;
  if (llvm::sys::fs::getUniqueID(path, id))
    return std::nullopt;
  return id;
}

llvm::Error overwrites(const std::string& output, const std::string& read) {
  return usageError(output + " would overwrite " + read +
                    ": tlc never writes over a file it reads; name another path");
}

} // namespace

std::vector<std::string> publishedFiles(const BuildOptions& options) {
  OutputNames names(options.name, options.targets);
  std::vector<std::string> files;
  if (options.emitOnly) {
    files = {names.header, names.launcherSource, names.image};
    if (!options.externalImage)
      files.push_back(names.imageAssembly);
    if (options.python)
      files.push_back(names.pythonSource);
  } else {
    files = {names.image, names.library, names.header, names.manifest};
  }
  if (options.python)
    for (const std::string& file : names.python.all())
      if (!options.emitOnly || file != names.python.extension)
        files.push_back(file);
  return files;
}

std::vector<ReadPath> filesReadBeforeBuilding(const BuildOptions& options,
                                              const std::vector<std::string>& templates) {
  std::vector<ReadPath> read;
  for (const std::string& input : options.sources.inputs)
    read.push_back({input, "the input '" + input + "'"});
  const std::string& database = options.sources.compileCommands;
  if (!database.empty())
    read.push_back({database, "the compilation database '" + database + "'"});
  for (const std::string& file : templates)
    read.push_back({file, "the template '" + file + "'"});
  return read;
}

OutputPaths::OutputPaths(const BuildOptions& options, const std::vector<std::string>& published)
    : CompileCommandsOut(options.compileCommandsOut) {
  for (const std::string& file : published) {
    std::string path = options.outputDir + "/" + file;
    Outputs.push_back({path, "the output '" + path + "' (-o)", false});
  }
  if (!options.depfile.empty())
    Outputs.push_back({options.depfile, "--depfile '" + options.depfile + "'", true});
  if (!CompileCommandsOut.empty()) {
    Outputs.push_back(
        {CompileCommandsOut, "--compile-commands-out '" + CompileCommandsOut + "'", true});
    std::string header = compileDatabaseCompatHeader(CompileCommandsOut);
    Outputs.push_back({header,
                       "the header --compile-commands-out writes beside '" + CompileCommandsOut +
                           "' ('" + header + "')",
                       true});
  }
}

llvm::Error OutputPaths::checkBeforeWriting(const std::vector<ReadPath>& read) const {
  for (const Output& output : Outputs)
    if (output.writtenInPlace)
      if (llvm::Error error = checkWritable(output.path))
        return error;
  // Two outputs in one place: whichever is written last replaces the other (--depfile naming
  // OUTDIR/NAME.h). Existing files by identity, new ones by their absolute path.
  std::map<std::string, const Output*> places;
  for (const Output& output : Outputs) {
    std::optional<llvm::sys::fs::UniqueID> id = identity(output.path);
    std::string place =
        id ? "file " + std::to_string(id->getDevice()) + ":" + std::to_string(id->getFile())
           : "path " + absolutePath(output.path);
    auto [it, inserted] = places.insert({place, &output});
    if (!inserted)
      return usageError(it->second->description + " and " + output.description +
                        " are the same file: name different paths");
  }
  if (llvm::Error error = checkAgainst(read))
    return error;
  // Last: it reads what is there, which the checks above may have refused to read.
  if (!CompileCommandsOut.empty())
    return checkCompileDatabaseOut(CompileCommandsOut);
  return llvm::Error::success();
}

llvm::Error OutputPaths::checkAgainst(const std::vector<std::string>& dependencies) const {
  std::vector<ReadPath> read;
  for (const std::string& file : dependencies)
    read.push_back({file, "'" + file + "', which the build read"});
  return checkAgainst(read);
}

llvm::Error OutputPaths::checkAgainst(const std::vector<ReadPath>& read) const {
  // Only outputs that exist can be a file read; a build into a new folder stats nothing more.
  std::vector<std::pair<llvm::sys::fs::UniqueID, const Output*>> existing;
  for (const Output& output : Outputs)
    if (std::optional<llvm::sys::fs::UniqueID> id = identity(output.path))
      existing.push_back({*id, &output});
  if (existing.empty())
    return llvm::Error::success();
  for (const ReadPath& file : read) {
    std::optional<llvm::sys::fs::UniqueID> id = identity(file.path);
    if (!id)
      continue;
    for (const auto& [outputId, output] : existing)
      if (outputId == *id)
        return overwrites(output->description, file.description);
  }
  return llvm::Error::success();
}

} // namespace tlc
