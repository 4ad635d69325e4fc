// The Python package's files and the commands that compile and link its extension.
#include "build/PythonBuild.h"

#ifndef TLC_PYTHON_INCLUDE_DIR
#error "TLC_PYTHON_INCLUDE_DIR must be defined by the build"
#endif

namespace tlc {

const char* pythonIncludeDir() { return TLC_PYTHON_INCLUDE_DIR; }

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

PythonPlan planPythonBuild(const PythonBuildOptions& options) {
  PythonPlan plan;
  std::string sourceMap = "-ffile-prefix-map=" + options.sourceDir + "/=";
  std::string outputMap = "-ffile-prefix-map=" + options.outputDir + "/=";
  std::string source = options.sourceDir + "/" + options.name + "_python.c";
  std::string object = options.workDir + "/" + options.name + "_python.o";
  plan.compileExtension = {"cc " + options.name + "_python.c",
                           {options.compiler, "-x", "c", "-std=c11", "-O2", "-fPIC",
                            "-fvisibility=hidden", "-Wall", "-Wextra", sourceMap, outputMap,
                            "-I", options.outputDir, "-isystem", options.pythonInclude,
                            "-isystem", options.tlcInclude, "-isystem", options.cudaInclude,
                            "-c", source, "-o", object},
                           object};
  // The extension needs libNAME.so two folders up (NAME/tlc/_ext.abi3.so), wherever the output
  // folder is moved; it does not link libpython (the interpreter provides those symbols), so
  // undefined symbols are allowed here, unlike in libNAME.so.
  std::string extension = options.outputDir + "/" + pythonPackageFiles(options.name).extension;
  plan.linkExtension = {"link " + pythonPackageFiles(options.name).extension,
                        {options.compiler, "-shared", "-o", extension, object,
                         options.bindingLibrary,
                         options.outputDir + "/lib" + options.name + ".so",
                         "-Wl,-rpath,$ORIGIN/../..", "-Wl,--exclude-libs,ALL", "-lm"},
                        extension};
  return plan;
}

} // namespace tlc
