// NAME.json, the manifest of a built launcher library: versions, the exact commands run, inputs
// and outputs with SHA-256, archs, and every kernel as `inspect` reports it plus its launcher
// function. docs/manifest-schema.md documents it; `tlc verify` checks a folder against it.
#pragma once

#include "model/Model.h"
#include "pipeline/GpuTargets.h"

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

} // namespace tlc
