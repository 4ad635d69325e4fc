// The Python half of `tlc build --python`: the package NAME/ beside libNAME.so (NAME/__init__.py
// and its stubs, the helper submodule NAME/tlc/, and the extension NAME/tlc/_ext.abi3.so), and
// the two host compiler commands that make the extension from the rendered NAME_python.c, the
// binding library (libtlc_python.a) and libNAME.so. docs/python.md describes the package.
#pragma once

#include "builder/OutputNames.h"
#include "builder/Steps.h"

#include <string>
#include <vector>

namespace tlc {

// Whether tlc was built with Python support (the binding library, libtlc_python.a). Extensions
// need no Python headers of their own: the generated C passes Python objects by pointer only
// (tlc/python.h).
bool pythonSupported();

// The commands run in the work folder with relative names only (builder/ToolPaths.h), as the host
// build's do: NAME.h, NAME_python.c and libNAME.so are there, the folders and the binding
// library below are links to them.
struct PythonBuildOptions {
  std::string name;
  std::string compiler;       // the host compiler (C++ driver; the source is compiled as C)
  std::string tlcInclude;     // folder with tlc/python.h and tlc/launcher.h
  std::string cudaInclude;    // folder with cuda.h
  std::string bindingLibrary; // libtlc_python.a
  std::string workDir;        // absolute: where the commands run
};

struct PythonPlan {
  Step compileExtension;
  Step linkExtension; // NAME_ext.abi3.so in the work folder, published as the package's extension
};

PythonPlan planPythonBuild(const PythonBuildOptions& options);

} // namespace tlc
