// Where tlc's data lives relative to its own binary.
#include "support/InstallLayout.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#ifndef TLC_INSTALL_LIBDIR
#error "TLC_INSTALL_LIBDIR must be defined by the build"
#endif

namespace tlc {

std::string InstallLayout::runtimeLibrary() const {
  return prefix + "/" TLC_INSTALL_LIBDIR "/tlc/libtlc_runtime.a";
}

std::string InstallLayout::pythonLibrary() const {
  return prefix + "/" TLC_INSTALL_LIBDIR "/tlc/libtlc_python.a";
}

InstallLayout installLayoutOf(const char* argv0) {
  static int anchor;
  std::string executable = llvm::sys::fs::getMainExecutable(argv0, &anchor);
  llvm::StringRef binDir = llvm::sys::path::parent_path(executable);
  return {llvm::sys::path::parent_path(binDir).str()};
}

} // namespace tlc
