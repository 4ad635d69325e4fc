// NAME.json, the manifest of a built launcher library: versions, the exact commands run, inputs
// and outputs with SHA-256, archs, and every kernel as `inspect` reports it plus its launcher
// function. docs/manifest-schema.md documents it; `tlc verify` checks a folder against it. The
// writer (writeManifest) records a build's outputs as they are in its staging folder.
#pragma once

#include "builder/BuildOptions.h"
#include "builder/DeviceBuild.h"
#include "builder/DisplayPaths.h"
#include "builder/HostBuild.h"
#include "builder/OutputNames.h"
#include "builder/PythonBuild.h"
#include "builder/Steps.h"
#include "cache/Cache.h"
#include "model/Model.h"
#include "support/Hashing.h"
#include "toolchain/GpuTargets.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace tlc {

inline constexpr int kManifestSchemaVersion = 1;

struct FileDigest {
  std::string path; // as the manifest names it
  std::string sha256;
};

struct ManifestFacts {
  std::string name;
  std::string tlcVersion, clangVersion, nvccVersion, hostCompilerVersion;
  std::vector<GpuTarget> targets;    // every entry of the image, SASS and PTX
  std::vector<std::string> commands; // in the order of the build plan
  std::vector<FileDigest> inputs;
  FileDigest image; // NAME.cubin or NAME.fatbin
  bool embeddedImage = true;
  FileDigest library; // libNAME.so
  FileDigest header;  // NAME.h
  // With --python, the package's files by role (python_init, ..., python_extension).
  std::vector<std::pair<std::string, FileDigest>> python;
};

nlohmann::json buildManifest(const Module& module, const ManifestFacts& facts);

// The versions of the tools a build ran, as NAME.json records them.
struct ToolReleases {
  std::string tlc, clang, nvcc, hostCompiler;
};

// The commands a build ran, in the order of its plan (ManifestFacts::commands), each as `runner`
// records it: the device build's, the host build's, then the Python extension's (`python`: with
// --python, else null).
std::vector<std::string> planCommands(const StepRunner& runner, const DevicePlan& device,
                                      const HostPlan& host, const PythonPlan* python);

// What NAME.json says of a build that the files it lists do not: the tools, the options
// (targets, whether the image is embedded, --python), the commands, the inputs with SHA-256.
struct ManifestSources {
  ToolReleases versions;
  const BuildOptions* options = nullptr; // resolved: the targets decided
  std::vector<std::string> commands;     // planCommands
  std::vector<FileDigest> inputs;        // as outputs name them
};

// The inputs as the manifest lists them: each named as outputs name it (`paths`), with its
// SHA-256 (`digests`, which hashes each file once for the cache key and the manifest).
llvm::Expected<std::vector<FileDigest>> inputDigests(const std::vector<std::string>& inputs,
                                                     const DisplayPaths& paths,
                                                     FileDigests& digests);

// The manifest of a build: the linked library (and with --python the extension) copied from
// `workDir` into `outputsDir`, every output of `names` there recorded with its SHA-256, then
// OUTDIR's NAME.json written, last. Returns what is published, with SHA-256: the image, library,
// header and manifest, then the Python package's files (what the cache stores).
llvm::Expected<std::vector<CachedFile>>
writeManifest(const Module& module, const ManifestSources& sources, const OutputNames& names,
              const std::string& workDir, const std::string& outputsDir);

// The outputs a manifest (a document whose "schema" is tlc.manifest, read from the file `file`
// of its folder) lists, as file names inside the folder with their SHA-256: the image, library
// and header, and the Python package's files, all or none. An InputError saying how the manifest
// is damaged when any is missing, malformed or not a plain name inside the folder.
llvm::Expected<std::vector<FileDigest>> manifestOutputs(const nlohmann::json& manifest,
                                                        const std::string& file);

// A file name inside an output folder: a relative path (the Python package's files are in
// subfolders), with nothing hidden behind "." or "..".
bool isPlainOutputName(llvm::StringRef name);

} // namespace tlc
