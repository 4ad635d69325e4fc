// What the Python templates (templates/python_*.mustache) add to the launcher view: for each
// parameter its Python keyword and its row of the binding's parameter table, for each kernel
// the docstring and text signature of its function, and the checks that the package's
// attributes can be the launchers' names (docs/python.md).
#pragma once

#include "model/Model.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tlc {

// The keyword-only launch options every Python launcher takes, in order (python/src/Module.c
// has the same list).
const std::vector<std::string>& pythonLaunchOptions();

// Whether `word` is a Python keyword (keyword.kwlist), which no package, attribute or parameter
// can be named.
bool isPythonKeyword(const std::string& word);

// InputError if a launcher cannot be an attribute of the package: `tlc` (the helper
// submodule), a Python keyword, or a `__dunder__` name (the package's own attributes).
llvm::Error checkPythonNames(const Module& module);

// The keyword of each parameter of `kernel`: its name, with `_` appended while it is a Python
// keyword, a launch option or an earlier parameter's keyword.
std::vector<std::string> pythonKeywords(const Kernel& kernel);

// Adds each kernel's `python` section and each parameter's `py` section to `view`, a launcher
// view of `module` (render/LauncherView.h).
void addPythonView(const Module& module, nlohmann::json& view);

} // namespace tlc
