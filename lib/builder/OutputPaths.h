// An output never overwrites an input. Every path a build writes that the user chose (the files
// it publishes into OUTDIR, --depfile, --compile-commands-out and the header written beside it)
// is compared, by device and inode after symbolic links are followed, with every file the build
// reads; a match is a usage error naming both. What is read is known in two steps: the inputs,
// the compilation database and the templates before anything is written, the headers only once
// the parse has read them (or a cache entry lists them), which is still before the depfile is
// written and anything is published.
//
// The compilation database --compile-commands-out writes is the exception: it is written before
// the parse, for editors to have it while the kernels do not build yet, so the headers the parse
// will read are not known then. It is checked against what is known, and it replaces only a file
// tlc could have written there (frontend/CompileCommands.h, checkCompileDatabaseOut): a header
// of the user's named by mistake is not a JSON list, and is refused by its content.
#pragma once

#include "builder/BuildOptions.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

// A file the build reads, and how a message names it ("the input 'vadd.cu'").
struct ReadPath {
  std::string path;
  std::string description;
};

// The files a build of `options` (resolved: its name and targets decided) publishes into OUTDIR,
// as Builder::run names them; the check after the parse is given the list it publishes.
std::vector<std::string> publishedFiles(const BuildOptions& options);

// What a build reads that is known before it starts: the inputs, the compilation database
// (-p, --compile-commands) and the templates.
std::vector<ReadPath> filesReadBeforeBuilding(const BuildOptions& options,
                                              const std::vector<std::string>& templates);

class OutputPaths {
public:
  // The paths a build of `options` writes: `published` (names in OUTDIR), --depfile,
  // --compile-commands-out and its header.
  OutputPaths(const BuildOptions& options, const std::vector<std::string>& published);

  // Before anything is written: the files tlc writes itself (the depfile, the database and its
  // header) are new or regular files (InputError otherwise, as the writer would say later), the
  // database replaces only a database (checkCompileDatabaseOut), no two outputs are one file,
  // and none is one of `read` (UsageError naming both).
  llvm::Error checkBeforeWriting(const std::vector<ReadPath>& read) const;

  // Once the build's dependencies are known (the parse's headers, or a cache entry's): none of
  // the outputs is one of them. Before the depfile is written and anything is published.
  llvm::Error checkAgainst(const std::vector<std::string>& dependencies) const;

private:
  struct Output {
    std::string path;
    std::string description; // "--depfile 'x.d'"
    bool writtenInPlace;     // by tlc's writer at `path` (not published by a rename into OUTDIR)
  };
  llvm::Error checkAgainst(const std::vector<ReadPath>& read) const;
  std::vector<Output> Outputs;
  std::string CompileCommandsOut;
};

} // namespace tlc
