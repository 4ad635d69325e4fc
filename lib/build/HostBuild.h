// The host half of a build: compile the rendered launcher (the module's tables and its extern
// "C" wrappers), and link lib<name>.so from it, the embedded image and the runtime archive,
// exporting only the module's API.
#pragma once

#include "build/Steps.h"

#include <optional>
#include <string>

namespace tlc {

struct HostBuildOptions {
  std::string name;
  std::string compiler;       // the host C++ compiler
  std::string cudaInclude;    // folder with cuda.h
  std::string tlcInclude;     // folder with tlc/runtime.h and tlc/launcher.h
  std::string runtimeLibrary; // libtlc_runtime.a
  std::string sourceDir;      // NAME_launcher.cpp and NAME_image.S
  std::string outputDir;      // NAME.h and the image, as they will be published
  std::string workDir;        // objects
  std::string library;        // the lib<name>.so to produce
  bool embedImage = true;    // the link assembles NAME_image.S, which includes the image
};

struct HostPlan {
  Step compileLauncher;
  Step link;
};

HostPlan planHostBuild(const HostBuildOptions& options);

} // namespace tlc
