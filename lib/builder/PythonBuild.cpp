// The commands that compile and link the Python package's extension (its files' names are
// builder/OutputNames.h's).
#include "builder/PythonBuild.h"

#ifndef TLC_PYTHON_ENABLED
#error "TLC_PYTHON_ENABLED must be defined by the build"
#endif

namespace tlc {

bool pythonSupported() {
  return TLC_PYTHON_ENABLED;
}

PythonPlan planPythonBuild(const PythonBuildOptions& options) {
  PythonPlan plan;
  // Relative names only, so no path of the build's ends up in the extension either.
  OutputNames names(options.name);
  const std::string& source = names.pythonSource;
  std::string object = options.name + "_python.o";
  // -fexceptions: torch's dispatcher calls the launchers' torch kernels here, and their errors
  // are C++ exceptions thrown through these C frames (python/src/TorchOps.cpp).
  plan.compileExtension = {"cc " + source,
                           {options.compiler, "-x", "c", "-std=c11", "-O2", "-fPIC", "-fexceptions",
                            "-fvisibility=hidden", "-Wall", "-Wextra", "-isystem",
                            options.tlcInclude, "-isystem", options.cudaInclude, "-c", source, "-o",
                            object},
                           object,
                           options.workDir,
                           {}};
  // The extension needs libNAME.so: in the package's folder where the module's wheel put it
  // (NAME/libNAME.so, ModuleWheel.h), else two folders up (NAME/tlc/_ext.abi3.so in OUTDIR),
  // wherever either is moved; it does not link libpython (the interpreter provides those
  // symbols), so undefined symbols are allowed here, unlike in libNAME.so.
  const std::string& extension = names.pythonExtensionWork;
  plan.linkExtension = {"link " + names.python.extension,
                        {options.compiler, "-shared", "-o", extension, object,
                         options.bindingLibrary, names.library,
                         "-Wl,-rpath,$ORIGIN/..:$ORIGIN/../..", "-Wl,--exclude-libs,ALL", "-lm"},
                        extension,
                        options.workDir,
                        {}};
  return plan;
}

} // namespace tlc
