// The Python package's rendered and copied files.
#include "builder/PythonPackage.h"

#include "builder/PythonBuild.h"
#include "render/PythonView.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/Support/FileSystem.h"

#include <utility>

namespace tlc {

std::vector<std::string> pythonPackageInputs(const std::string& helpersDir,
                                             const std::string& includeDir) {
  return {helpersDir + "/tlc/__init__.py", helpersDir + "/tlc/__init__.pyi",
          includeDir + "/tlc/python.h"};
}

llvm::Error writePythonPackage(const Module& module, nlohmann::json view,
                               const TemplateSet& templates, const OutputNames& names,
                               const PythonPackageDirs& dirs) {
  if (llvm::Error error = checkPythonNames(module))
    return error;
  addPythonView(module, view);
  const std::string& out = dirs.outputs;
  const PythonPackageFiles& files = names.python;
  std::string helpersFolder = out + "/" + files.helpersFolder();
  if (auto ec = llvm::sys::fs::create_directories(helpersFolder, true, llvm::sys::fs::all_all))
    return inputError("cannot create '" + helpersFolder + "': " + ec.message());
  std::pair<const char*, std::string> rendered[] = {
      {"python_module.c", dirs.sources + "/" + names.pythonSource},
      {"python_init.py", out + "/" + files.init},
      {"python_stubs.pyi", out + "/" + files.stubs},
  };
  for (const auto& [templateName, path] : rendered)
    if (llvm::Error error = templates.renderTo(templateName, view, path))
      return error;
  if (llvm::Error error = writeFile(out + "/" + files.marker, ""))
    return error;
  std::pair<std::string, std::string> copied[] = {
      {dirs.helpers + "/tlc/__init__.py", out + "/" + files.helpers},
      {dirs.helpers + "/tlc/__init__.pyi", out + "/" + files.helperStubs},
  };
  for (const auto& [from, to] : copied) {
    if (!llvm::sys::fs::exists(from))
      return toolchainError("'" + from + "' is missing (reinstall tlc)");
    if (llvm::Error error = copyFile(from, to))
      return error;
  }
  return llvm::Error::success();
}

} // namespace tlc
