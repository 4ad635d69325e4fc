// The files of the Python package `tlc build --python` makes besides its extension (which
// builder/PythonBuild.h compiles): NAME/__init__.py, its stubs and py.typed rendered from the
// checked module, the helper submodule NAME/tlc/ copied from tlc's installation, and the
// extension's source NAME_python.c beside the launcher's. docs/python.md describes the package.
#pragma once

#include "builder/OutputNames.h"
#include "model/Model.h"
#include "render/Templates.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tlc {

// What the package is made from besides the templates and the binding library: the helper
// submodule's files (in `helpersDir`), the binding's header (in tlc's `includeDir`) and the
// Python headers' version.
std::vector<std::string> pythonPackageInputs(const std::string& helpersDir,
                                             const std::string& includeDir);

struct PythonPackageDirs {
  std::string helpers; // tlc's python folder: tlc/__init__.py and its stubs
  std::string outputs; // OUTDIR's staging folder: the package goes into NAME/
  std::string sources; // where NAME_python.c goes, beside NAME_launcher.cpp
};

// Writes the package's files of `names` for `module` (checked: its launchers named), whose launcher
// view is `view` (render/LauncherView.h). InputError where a launcher cannot be the package's
// attribute (render/PythonView.h, checkPythonNames); ToolchainError where a helper is missing.
llvm::Error writePythonPackage(const Module& module, nlohmann::json view,
                               const TemplateSet& templates, const OutputNames& names,
                               const PythonPackageDirs& dirs);

} // namespace tlc
