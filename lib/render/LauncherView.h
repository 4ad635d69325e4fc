// The view the launcher templates render: the module as `inspect --json` prints it
// (model/ModelJson.h, derived facts included), a `build` section with what only the build knows
// (module name, targets, image, the module API, the text of tlc/launcher.h), and a few
// presentation helpers Mustache cannot compute (counts, padded arrays, filtered lists). Its strings
// are data: the renderer escapes each for the generated file's language (render/Literals.h). The
// view renames only what C reserves (cFieldName).
#pragma once

#include "model/Model.h"

#include "llvm/ADT/StringRef.h"

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

// A record field's name in the C mirror: `restrict` and C's other reserved words get a '_'.
std::string cFieldName(const std::string& name);

// A module's or launcher's name in namespace tlc::NAME of NAME.h's C++ launchers: a C++ keyword
// (`new`, `class`, `and`, and `int` for a module named so) gets a '_'.
std::string cxxIdentifier(const std::string& name);

// `module` must carry its derived facts (model/DerivedFacts.h), as buildModule and
// selectEntries leave it.
nlohmann::json launcherView(const Module& module, const LauncherFacts& facts);

} // namespace tlc
