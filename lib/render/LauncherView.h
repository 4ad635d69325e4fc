// The view the launcher templates render: the module model (as `inspect --json` prints it) plus
// the build facts the generated code needs (module name, kernel indices, image).
#pragma once

#include "model/Model.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tlc {

struct LauncherFacts {
  std::string name;                 // module name: prefix of every API symbol
  std::vector<std::string> inputs;  // as the generated files' first line names them
  std::vector<std::string> targets; // the image's entries: sm_90a (SASS), compute_80 (PTX)
  bool relocatable = false;         // PTX targets hold one relocatable entry per input
  std::string imageFile;            // NAME.cubin or NAME.fatbin
  bool embedImage = true;
  std::string launcherTypes; // the text of tlc/launcher.h, copied into NAME.h
};

nlohmann::json launcherView(const Module& module, const LauncherFacts& facts);

// The parameter name used in generated C code: the kernel's, unless C or the launcher itself
// reserves it ("restrict", "config", ...), then with a trailing underscore.
std::string cParameterName(const std::string& name);

} // namespace tlc
