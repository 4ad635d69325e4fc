// The launcher library's sources, rendered from a module (templates/*.mustache through
// render/LauncherView.h): NAME.h, an output that the launcher's compile reads beside the sources
// too; NAME_launcher.cpp; NAME_image.S, which embeds the image, unless it is external. A build
// renders them twice: from the parse's guess, so the launcher compiles while nvcc runs, and from
// the checked module; the launcher is written again only where the second differs.
#pragma once

#include "builder/BuildOptions.h"
#include "builder/DisplayPaths.h"
#include "builder/OutputNames.h"
#include "render/LauncherView.h"
#include "render/Templates.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tlc {

// What the launcher's templates are told of the build of `options` besides the module.
LauncherFacts launcherFacts(const BuildOptions& options, const OutputNames& names,
                            const DisplayPaths& paths, bool relocatable,
                            const std::string& launcherTypes);

class LauncherSources {
public:
  // NAME.h goes into `outputsDir`, the others into `sourceDir` (the same with --emit-only, where
  // the sources are what was asked for), with a copy of NAME.h when it is another.
  LauncherSources(const TemplateSet& templates, OutputNames names, std::string outputsDir,
                  std::string sourceDir, bool embedImage);

  // Renders the sources of `view` (launcherView); true when NAME_launcher.cpp differs from the
  // last written (it is written, and must be compiled, again).
  llvm::Expected<bool> write(const nlohmann::json& view);

private:
  const TemplateSet& Templates;
  OutputNames Names;
  std::string OutputsDir, SourceDir;
  bool EmbedImage;
  std::string Launcher; // NAME_launcher.cpp as last written
};

} // namespace tlc
