// NAME.json, the manifest of a built launcher library: versions, the exact commands run, inputs
// and outputs with SHA-256, archs, and every kernel as `inspect` reports it plus its launcher
// function. docs/manifest-schema.md documents it; `tlc verify` checks a folder against it.
#pragma once

#include "model/Model.h"
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
