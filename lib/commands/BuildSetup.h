// What `tlc build` settles before it builds (commands/Build.cpp conducts the build itself): the
// request checked, the options resolved (the compilation database's flags and targets, the targets,
// the parse arch, the module's name), the tools found, and what the tools are given (every path a
// name in the work folder, every flag checked); then what the build reads, for the depfile and the
// cache, and how its outputs name files.
#pragma once

#include "builder/BuildOptions.h"
#include "builder/DeviceBuild.h"
#include "builder/DisplayPaths.h"
#include "builder/HostBuild.h"
#include "builder/ImageInputs.h"
#include "builder/PythonBuild.h"
#include "builder/Steps.h"
#include "builder/ToolPaths.h"
#include "cache/Relocation.h"
#include "cache/RemoteCache.h"
#include "frontend/Extractor.h"
#include "publish/Manifest.h"
#include "render/Templates.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

// Several inputs make one module, whose name prefixes the whole API: no one input's name is the
// module's, so the user names it (a three-file build named after its first file reads wrong).
llvm::Error checkNameGiven(const BuildOptions& options);
// -o is the output folder: named like one of the files a build writes, it is refused.
llvm::Error checkOutputIsFolder(const BuildOptions& options);

// UsageError for --wheel without --python, with --emit-only, or with a --wheel-version no wheel
// may carry.
llvm::Error checkWheelOptions(const BuildOptions& options);
// Each input once: the same file twice would define every kernel twice.
llvm::Error checkDistinctInputs(const std::vector<std::string>& inputs);
// Every mistake of the request itself, each independent of the others, at once (one run says
// all of them): -o '', inputs that are no files, -o naming a file (checkOutputIsFolder), an
// input given twice, several inputs without --name, --wheel without what it needs.
llvm::Error checkRequest(const BuildOptions& options);

// What a build reads besides its inputs: found once, before the build.
struct BuildTools {
  CudaToolkit toolkit;
  HostCompiler compiler; // unset with --emit-only
  TemplateSet templates;
  std::string launcherTypes; // tlc/launcher.h, copied into NAME.h
  std::string launcherTypesPath;
};

// What the tools get (ToolPaths.h): names in the work folder for every path, checked flags.
struct ToolView {
  ToolPaths names;
  std::vector<SourceIdentity> identities; // per input: what nvcc is told of it
  DeviceBuildOptions device;
  HostBuildOptions host;
  std::optional<PythonBuildOptions> python; // with --python
  // A build of device images (builder/ImageInputs.h): what they hold, each target's source.
  std::optional<ImageSet> images;
  std::vector<TargetSource> imageSources;
  ImageBuildOptions imageOptions;
  bool compilesReachLinks = false; // nvcc is given a link in the work folder

  void setWorkDir(const std::string& dir) {
    names.setWorkDir(dir);
    device.workDir = host.workDir = imageOptions.workDir = dir;
    if (python)
      python->workDir = dir;
  }
};

// The options as the build uses them: the compile database's flags and targets applied, the
// targets resolved, the parse arch and the module's name decided.
llvm::Expected<BuildOptions> resolveOptions(const BuildOptions& requested,
                                            const CudaToolkit& toolkit, const ImageSet* images);

// The host compiler, the runtime, the Python support, the templates and tlc/launcher.h: found, or
// a ToolchainError saying what to install.
llvm::Expected<BuildTools> findTools(const BuildOptions& options, CudaToolkit toolkit);

// --remote-storage, else TLC_REMOTE_STORAGE; none when that is empty.
llvm::Expected<std::unique_ptr<RemoteCache>> remoteCacheFor(const BuildOptions& options);

// The options the tools get: the inputs copied into the work folder and every other path a
// link there (ToolPaths.h); every flag that reaches nvcc checked. Fails before anything is made.
llvm::Expected<ToolView> prepareTools(const BuildOptions& options, const BuildTools& tools,
                                      const PathRelocation& relocation);

// The plans of the build's stages, from what the tools get: nvcc's (for a build of device images,
// ptxas' and fatbinary's), the host compiler's and, with --python, the extension's.
struct StagePlans {
  DeviceBuildOptions deviceOptions; // relocatable when the parse finds a device-side launch
  DevicePlan device;
  HostPlan host;                    // none with --emit-only
  std::optional<PythonPlan> python; // with --python
  std::optional<ImageSet> images;   // a build of device images: what they hold
  std::vector<StagedFile> staged;   // ...and the files of theirs the tools read

  // The device build planned again as relocatable device code (a device-side launch).
  void makeRelocatable(const CudaToolkit& toolkit);
  const PythonPlan* pythonPlan() const { return python ? &*python : nullptr; }
  const ImageSet* imageSet() const { return images ? &*images : nullptr; }
};
StagePlans planStages(ToolView& view, const CudaToolkit& toolkit);

// What Clang parses: the sources, or the headers declaring the kernels of device images.
std::vector<std::string> parsedInputs(const BuildOptions& options, const StagePlans& plans);

// Says once, as a note, which host functions with external linkage the inputs define (Analysis):
// nvcc's -shared library would export them, libNAME.so holds the kernels' launchers only
// (docs/cli.md, "Host code in the inputs"). Nothing when there are none.
void noteHostFunctions(const std::vector<TranslationUnitFacts::HostFunction>& functions,
                       const std::string& module);

// --compile-commands-out, from the options the build parses with (its sources, or the headers
// declaring its images' kernels), and the user's headers the parse found (`headers`, header ->
// input; nullptr before the parse: those the database lists already); nothing without it.
llvm::Error writeCompileCommands(const BuildOptions& options, const StagePlans& plans,
                                 const CudaToolkit& toolkit,
                                 const std::map<std::string, std::string>* headers = nullptr);

// The versions of the tools, as NAME.json records them (nvcc's was read when the toolkit was
// found).
ToolReleases toolReleases(const BuildTools& tools);

// How the outputs of a build in `workDir` name files: the toolkit, tlc's own folders, the host
// compiler and the Python headers by placeholders (builder/DisplayPaths.h).
DisplayPaths displayPathsFor(const BuildOptions& options, const BuildTools& tools,
                             const std::string& workDir);

// How the build runs its tools (builder/Steps.h): -v and --tool-timeout, stopped by `cancel`, the
// commands shown as outputs name files (`paths`) and the tools' messages naming the user's files
// as the user named them (`names`); both must outlive the runner.
StepRunner stepRunnerFor(const BuildOptions& options, const ToolPaths& names,
                         const DisplayPaths& paths, const std::atomic<bool>* cancel);

// Every file the build read: its inputs, `filesRead` (the headers the parse opened), the
// templates, the runtime's header and library, and with --python what the package is made of.
std::vector<std::string> buildDependencies(const BuildOptions& options, const BuildTools& tools,
                                           const std::vector<std::string>& filesRead);

} // namespace tlc
