// tlc's commands as library functions. commands/CommandLine.h turns the command line into these
// option structs; tests call the same functions.
#pragma once

#include "frontend/Frontend.h"
#include "pipeline/GpuTargets.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include "frontend/CompileCommands.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

// Options every command that reads sources takes.
struct SourceOptions {
  std::vector<std::string> inputs;
  FrontendOptions frontend;
  std::string cudaPath;        // --cuda-path; else CUDA_PATH, CUDA_HOME, /usr/local/cuda
  std::string compileCommands; // -p BUILD_DIR or --compile-commands FILE: compile_commands.json
  bool verbose = false;
};

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

struct BuildOptions {
  SourceOptions sources;
  std::string outputDir;              // -o
  std::string name;                   // --name; default: the only input's stem
  std::vector<std::string> archs;     // --arch, repeatable: sm_XX, compute_XX, native, all...
  std::vector<std::string> gencodes;  // --gencode arch=compute_XX,code=..., repeatable
  std::vector<GpuTarget> targets;     // resolved from archs and gencodes (nvcc's default if none)
  std::vector<std::string> nvccFlags; // nvcc's options for nvcc alone, and -Xnvcc's (CommandLine.h)
  // Per input (as named on the command line): nvcc flags from a compilation database.
  std::map<std::string, std::vector<std::string>> inputNvccFlags;
  std::vector<std::string> entries;  // --entry, repeatable
  bool externalImage = false;        // --external-image
  bool emitOnly = false;             // --emit-only
  bool keepTemps = false;            // --keep-temps
  std::string templateDir;           // --template-dir; default: <prefix>/share/tlc/templates
  std::string runtimeLibrary;        // libtlc_runtime.a; default: the installed one
  bool quiet = false;                // -q: no progress lines
  std::string depfile;               // --depfile: Make-style list of every file read
  std::string depfileTarget;         // --depfile-target; default: OUTDIR/NAME.json
  std::string compileCommandsOut;    // --compile-commands-out: the parse's flags, for clangd
  std::vector<std::string> launcher; // --launcher: run nvcc under this (ccache, sccache)
  bool noCache = false;              // --no-cache (or TLC_DISABLE_CACHE=1)
  // --remote-storage URL: the cache's remote tier (RemoteStorage.h); "" turns it off. Unset:
  // TLC_REMOTE_STORAGE.
  std::optional<std::string> remoteStorage;
  // --base-dir DIR: paths under it enter the cache relative to the working folder, so that
  // checkouts under it share entries (cache/Relocation.h); "" turns it off. Unset: TLC_BASE_DIR.
  std::optional<std::string> baseDir;
  unsigned toolTimeout = 3600;  // --tool-timeout: seconds a tool may run; 0: no limit
  bool python = false;          // --python: also the package NAME/ (docs/python.md)
  std::string pythonLibrary;    // libtlc_python.a; default: the installed one
  std::string pythonHelpersDir; // the helper submodule's files (share/tlc/python)
};

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
