// Where tlc's data lives relative to its binary: <prefix>/bin/tlc, <prefix>/share/tlc/templates,
// <prefix>/include/tlc/{annotations,launcher,runtime,python}.h,
// <prefix>/<libdir>/tlc/libtlc_runtime.a and libtlc_python.a, <prefix>/share/tlc/python/tlc (the
// Python packages' helper submodule). The build tree mirrors this layout.
#pragma once

#include <string>

namespace tlc {

struct InstallLayout {
  std::string prefix;

  std::string templatesDir() const { return prefix + "/share/tlc/templates"; }
  std::string includeDir() const { return prefix + "/include"; }
  std::string runtimeLibrary() const; // the launcher runtime archive every libNAME.so links
  std::string pythonLibrary() const;  // the Python binding every extension links
  std::string pythonHelpersDir() const { return prefix + "/share/tlc/python"; }
};

// The layout of the running executable (`argv0` helps where /proc is unavailable).
InstallLayout installLayoutOf(const char* argv0);

} // namespace tlc
