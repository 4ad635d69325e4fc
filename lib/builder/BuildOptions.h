// `tlc build`'s options, as commands/CommandLine.h parses them: what the build stages (the cache
// key, the output names, the steps) read, so they need nothing from the commands above them.
#pragma once

#include "frontend/SourceOptions.h"
#include "toolchain/GpuTargets.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

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
  std::vector<std::string> entries; // --entry, repeatable
  bool externalImage = false;       // --external-image
  bool emitOnly = false;            // --emit-only
  bool keepTemps = false;           // --keep-temps
  // --force: replace files in OUTDIR that no earlier build there made (Staging::publish)
  bool force = false;
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
  unsigned toolTimeout = 3600; // --tool-timeout: seconds a tool may run; 0: no limit
  bool python = false;         // --python: also the package NAME/ (docs/python.md)
  bool wheel = false;          // --wheel: and its wheel, NAME-VERSION-TAG.whl (ModuleWheel.h)
  std::string wheelVersion = "0.1.0"; // --wheel-version
  std::string pythonLibrary;          // libtlc_python.a; default: the installed one
  std::string pythonHelpersDir;       // the helper submodule's files (share/tlc/python)
};

} // namespace tlc
