// The Python package's files and the commands that compile and link its extension.
#include "builder/PythonBuild.h"

#ifndef TLC_PYTHON_INCLUDE_DIR
#error "TLC_PYTHON_INCLUDE_DIR must be defined by the build"
#endif

namespace tlc {

const char* pythonIncludeDir() {
  return TLC_PYTHON_INCLUDE_DIR;
}

PythonPackageFiles pythonPackageFiles(const std::string& name) {
  PythonPackageFiles files;
  files.init = name + "/__init__.py";
  files.stubs = name + "/__init__.pyi";
  files.marker = name + "/py.typed";
  files.helpers = name + "/tlc/__init__.py";
  files.helperStubs = name + "/tlc/__init__.pyi";
  // abi3: built against the stable ABI, so every CPython from 3.10 on imports it.
  files.extension = name + "/tlc/_ext.abi3.so";
  return files;
}

// The name the extension is linked under in the work folder; the build copies it into the
// package (PythonPackageFiles::extension).
std::string pythonExtensionWorkName(const std::string& name) {
  return name + "_ext.abi3.so";
}

PythonPlan planPythonBuild(const PythonBuildOptions& options) {
  PythonPlan plan;
  // Relative names only, so no path of the build's ends up in the extension either.
  std::string source = options.name + "_python.c";
  std::string object = options.name + "_python.o";
  // -fexceptions: torch's dispatcher calls the launchers' torch kernels here, and their errors
  // are C++ exceptions thrown through these C frames (python/src/TorchOps.cpp).
  plan.compileExtension = {"cc " + source,
                           {options.compiler,
                            "-x",
                            "c",
                            "-std=c11",
                            "-O2",
                            "-fPIC",
                            "-fexceptions",
                            "-fvisibility=hidden",
                            "-Wall",
                            "-Wextra",
                            "-isystem",
                            options.pythonInclude,
                            "-isystem",
                            options.tlcInclude,
                            "-isystem",
                            options.cudaInclude,
                            "-c",
                            source,
                            "-o",
                            object},
                           object,
                           options.workDir,
                           {}};
  // The extension needs libNAME.so two folders up (NAME/tlc/_ext.abi3.so), wherever the output
  // folder is moved; it does not link libpython (the interpreter provides those symbols), so
  // undefined symbols are allowed here, unlike in libNAME.so.
  std::string extension = pythonExtensionWorkName(options.name);
  plan.linkExtension = {"link " + pythonPackageFiles(options.name).extension,
                        {options.compiler, "-shared", "-o", extension, object,
                         options.bindingLibrary, "lib" + options.name + ".so",
                         "-Wl,-rpath,$ORIGIN/../..", "-Wl,--exclude-libs,ALL", "-lm"},
                        extension,
                        options.workDir,
                        {}};
  return plan;
}

} // namespace tlc
