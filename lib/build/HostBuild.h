// The host half of a build: compile the rendered launcher, assemble the embedded image, link
// lib<name>.so with -fPIC -shared -fvisibility=hidden -O2, exporting only the launcher API.
#pragma once

#include "build/Steps.h"

#include <optional>
#include <string>

namespace tlc {

struct HostBuildOptions {
  std::string name;
  std::string compiler;    // the host C++ compiler
  std::string cudaInclude; // folder with cuda.h and cudaTypedefs.h
  std::string sourceDir;   // NAME_runtime.{h,cpp}, NAME_launcher.cpp and NAME_image.S
  std::string outputDir;   // NAME.h and the image, as they will be published
  std::string workDir;     // objects
  std::string library;     // the lib<name>.so to produce
  bool embedImage = true;
};

struct HostPlan {
  Step compileRuntime; // NAME_runtime.cpp: needs nothing from the parse
  Step compileLauncher;
  std::optional<Step> assembleImage;
  Step link;
};

HostPlan planHostBuild(const HostBuildOptions& options);

} // namespace tlc
