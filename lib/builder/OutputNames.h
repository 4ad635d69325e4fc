// The names of the files one module's build makes, spelled here only: what OUTDIR gets (the image,
// libNAME.so, NAME.h, NAME.json, the Python package NAME/), the sources rendered beside them
// (NAME_launcher.cpp, NAME_image.S, NAME_python.c) and the extension as linked in the work folder.
// Every stage names these files through one record, so that a renamed output is renamed
// everywhere: the plans, the renderer, the manifest, the cache and the overwrite checks.
#pragma once

#include "toolchain/GpuTargets.h"

#include <string>
#include <vector>

namespace tlc {

// The package's files, relative to OUTDIR, in the order the manifest lists them; the last is
// the extension.
struct PythonPackageFiles {
  std::string folder; // NAME: the package
  std::string init, stubs, marker, helpers, helperStubs, extension;

  std::vector<std::string> all() const {
    return {init, stubs, marker, helpers, helperStubs, extension};
  }
  // NAME/tlc: the helper submodule's folder.
  std::string helpersFolder() const { return folder + "/tlc"; }
};
PythonPackageFiles pythonPackageFiles(const std::string& name);

// The extension's name in the work folder (PythonPlan::linkExtension), copied into the package
// (PythonPackageFiles::extension).
std::string pythonExtensionWorkName(const std::string& name);

struct OutputNames {
  // The names that follow from the module's name; `image` stays empty, as the targets decide it
  // (for the plans, which do not need it).
  explicit OutputNames(const std::string& name);
  // ...and the image's, which holds one cubin or a fatbin of `targets`.
  OutputNames(const std::string& name, const std::vector<GpuTarget>& targets);

  std::string module;              // NAME: prefixes every file and the generated API
  std::string image;               // NAME.cubin (one SASS target) or NAME.fatbin
  std::string library;             // libNAME.so
  std::string header;              // NAME.h
  std::string manifest;            // NAME.json
  std::string launcherSource;      // NAME_launcher.cpp
  std::string imageAssembly;       // NAME_image.S: embeds the image into the library
  std::string pythonSource;        // NAME_python.c: the extension's source
  std::string pythonExtensionWork; // NAME_ext.abi3.so: the extension as the work folder has it
  PythonPackageFiles python;       // the package NAME/
};

} // namespace tlc
