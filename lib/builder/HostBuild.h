// The host half of a build: compile the rendered launcher (the module's tables and its extern
// "C" wrappers), and link lib<name>.so from it, the embedded image and the runtime archive,
// exporting only the module's API. The commands run in the work folder with relative names only
// (builder/ToolPaths.h): NAME.h, NAME_launcher.cpp, NAME_image.S and the device image are there,
// the folders and the archive below are links to them.
#pragma once

#include "builder/Steps.h"

#include <string>
#include <vector>

namespace tlc {

struct HostBuildOptions {
  std::string name;
  std::string compiler;       // the host C++ compiler
  std::string cudaInclude;    // folder with cuda.h
  std::string tlcInclude;     // folder with tlc/runtime.h and tlc/launcher.h
  std::string runtimeLibrary; // libtlc_runtime.a
  // What the runtime archive was built with that its users must link with too (a sanitizer).
  std::vector<std::string> runtimeFlags;
  std::string workDir;    // absolute: where the commands run
  bool embedImage = true; // the link assembles NAME_image.S, which includes the image
};

struct HostPlan {
  Step compileLauncher;
  Step link;                             // lib<name>.so, in the work folder
  std::string launcherDependencies = {}; // compileLauncher's depfile: what it read (in workDir)
};

HostPlan planHostBuild(const HostBuildOptions& options);

} // namespace tlc
