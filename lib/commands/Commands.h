// tlc's commands as library functions. commands/CommandLine.h turns the command line into these
// option structs; tests call the same functions.
#pragma once

#include "builder/BuildOptions.h"
#include "frontend/SourceOptions.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include "frontend/CompileCommands.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

// Reads the compilation database, if any, into the frontend's per-input flags; returns the nvcc
// flags and archs it gives each input.
llvm::Expected<std::map<std::string, InputFlags>> applyCompileCommands(SourceOptions& options);

struct InspectOptions {
  SourceOptions sources;
  bool json = false;
};

// `tlc inspect`: a table of every kernel (or the JSON model with --json) on `out`.
llvm::Error runInspect(const InspectOptions& options, llvm::raw_ostream& out);

// `tlc check`: module-wide symbol and launcher-name checks; a one-line summary on `out`.
llvm::Error runCheck(const SourceOptions& options, llvm::raw_ostream& out);

// `tlc build`: a device image, lib<name>.so, <name>.h and <name>.json in the output folder (and
// with --python the package <name>/), published only when every step succeeded.
llvm::Error runBuild(const BuildOptions& options);

// `tlc verify OUTDIR`: each output's SHA-256 against the manifest; InputError on a mismatch.
struct VerifyOptions {
  std::string outputDir;
  // --allow-extra: files the manifest does not list are allowed (CI artifacts carry logs beside
  // the outputs), except those the library or the Python package could load in place of another
  // (a shared library, a Python module) and any inside the folders the manifest lists.
  bool allowExtra = false;
};

llvm::Error runVerify(const VerifyOptions& options, llvm::raw_ostream& out);

enum class CacheAction { Stats, Clear, Prune };

struct CacheOptions {
  CacheAction action = CacheAction::Stats;
  std::string maxSize; // prune: --max-size
};

// `tlc cache stats|clear|prune --max-size SIZE`.
llvm::Error runCache(const CacheOptions& options, llvm::raw_ostream& out);

// `tlc --version`: tlc's, Clang's and the CUDA toolkit's versions.
void printVersion(const std::string& cudaPath, llvm::raw_ostream& out);

} // namespace tlc
