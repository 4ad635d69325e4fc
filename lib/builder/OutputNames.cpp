// The output file names of a module, from its name and targets.
#include "builder/OutputNames.h"

#include "builder/DeviceBuild.h"

namespace tlc {

PythonPackageFiles pythonPackageFiles(const std::string& name) {
  PythonPackageFiles files;
  files.folder = name;
  files.init = name + "/__init__.py";
  files.stubs = name + "/__init__.pyi";
  files.marker = name + "/py.typed";
  files.helpers = name + "/tlc/__init__.py";
  files.helperStubs = name + "/tlc/__init__.pyi";
  // abi3: built against the stable ABI, so every CPython from 3.10 on imports it.
  files.extension = name + "/tlc/_ext.abi3.so";
  return files;
}

std::string pythonExtensionWorkName(const std::string& name) {
  return name + "_ext.abi3.so";
}

OutputNames::OutputNames(const std::string& name)
    : module(name), library("lib" + name + ".so"), header(name + ".h"), manifest(name + ".json"),
      launcherSource(name + "_launcher.cpp"), imageAssembly(name + "_image.S"),
      pythonSource(name + "_python.c"), pythonExtensionWork(pythonExtensionWorkName(name)),
      python(pythonPackageFiles(name)) {
}

OutputNames::OutputNames(const std::string& name, const std::vector<GpuTarget>& targets)
    : OutputNames(name) {
  image = imageFileName(name, targets);
}

} // namespace tlc
