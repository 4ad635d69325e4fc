// The external tools tlc drives and their versions: the CUDA toolkit (chosen by --cuda-path, then
// CUDA_PATH / CUDA_HOME, then /usr/local/cuda), the Clang tlc was built with, the host compiler.
#pragma once

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

struct CudaToolkit {
  std::string root;       // e.g. /usr/local/cuda
  std::string nvcc;       // root/bin/nvcc
  std::string fatbinary;  // root/bin/fatbinary
  std::string includeDir; // root/include (holds cuda.h)
  int cudaVersion = 0;    // CUDA_VERSION from cuda.h, e.g. 13000
  std::string release;    // nvcc's own, from `nvcc --version`, e.g. "13.0.88"

  std::string versionString() const; // "13.0"
};

// Locates and validates a toolkit; ToolchainError naming where it looked if none is usable.
llvm::Expected<CudaToolkit> findCudaToolkit(const std::string& explicitPath);

// `nvcc --version`'s release line, e.g. "13.0.88"; ToolchainError if nvcc does not run.
llvm::Expected<std::string> nvccVersion(const CudaToolkit& toolkit);

// The Clang library tlc links, e.g. "22.1.8".
std::string clangVersion();

// Where Clang's own headers (CUDA wrappers) are; baked in at build time.
std::string clangResourceDir();

// The host C++ compiler used for launcher libraries: $CXX, else `c++`.
struct HostCompiler {
  std::string path;
  std::string name; // as configured: $CXX, else "c++"
};
llvm::Expected<HostCompiler> findHostCompiler();
// The first line of its `--version`, for manifests.
std::string hostCompilerVersion(const HostCompiler& compiler);
// The compiler's own include folder (`-print-file-name=include`: omp.h and the like), which
// nvcc's host compiler searches and Clang does not; "" if the compiler cannot say.
std::string hostCompilerIncludeDir();

// tlc's own version, e.g. "0.1.0".
const char* tlcVersion();

// What code linking the launcher runtime archive must be compiled and linked with, because the
// archive was (a sanitizer, in tlc's own sanitizer builds); none in a release.
std::vector<std::string> runtimeArchiveFlags();

// nvcc finds its own programs from where it is installed and runs them through /bin/sh: a
// toolkit whose path holds characters the shell interprets is refused (ToolchainError).
llvm::Error checkToolkitPath(const CudaToolkit& toolkit);

} // namespace tlc
