// The external tools tlc drives and their versions: the CUDA toolkit, the Clang tlc was built
// with (and its resource headers), the host compiler.
//
// The toolkit, in this order: --cuda-path; $CUDA_PATH; $CUDA_HOME; NVIDIA's CUDA wheels
// (nvidia-cuda-nvcc and its siblings, which unpack into one folder, site-packages/nvidia/cu13) in
// tlc's own Python environment (the prefix tlc is installed in: a venv, ~/.local, conda), then in
// the active $VIRTUAL_ENV and $CONDA_PREFIX; /usr/local/cuda. The first of these that is set or
// present decides: a CUDA_PATH the user set that holds no toolkit is an error, not a reason to
// build with another compiler than the one asked for.
#pragma once

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

struct CudaToolkit {
  std::string root;       // e.g. /usr/local/cuda, or .../site-packages/nvidia/cu13
  std::string chosenBy;   // "--cuda-path", "CUDA_PATH", "NVIDIA's CUDA wheels", "the default"
  std::string nvcc;       // root/bin/nvcc
  std::string fatbinary;  // root/bin/fatbinary
  std::string includeDir; // root/include (holds cuda.h)
  int cudaVersion = 0;    // CUDA_VERSION from cuda.h, e.g. 13000
  std::string release;    // nvcc's own, from `nvcc --version`, e.g. "13.0.88"

  std::string versionString() const; // "13.0"
};

// Locates and validates a toolkit; ToolchainError naming where it looked if none is usable.
llvm::Expected<CudaToolkit> findCudaToolkit(const std::string& explicitPath);

// Where findCudaToolkit looks, in order, and why (the `chosenBy` of each): the explicit path,
// the environment's variables, the wheels' folders under `prefixes` (tlc's own installation
// prefix, $VIRTUAL_ENV, $CONDA_PREFIX) that exist, and the default. Exposed for tests, which
// pass an environment and prefixes of their own.
struct ToolkitCandidate {
  std::string chosenBy;
  std::string root;
};
std::vector<ToolkitCandidate> toolkitCandidates(const std::string& explicitPath,
                                                const std::vector<std::string>& environment,
                                                const std::string& installPrefix);

// The folder NVIDIA's CUDA 13 wheels unpack into under the Python environment at `prefix`
// (<prefix>/lib/python3.X/site-packages/nvidia/cu13, the newest Python's), or "" when none holds
// bin/nvcc.
std::string cudaWheelRoot(const std::string& prefix);

// `nvcc --version`'s release line, e.g. "13.0.88"; ToolchainError if nvcc does not run.
llvm::Expected<std::string> nvccVersion(const CudaToolkit& toolkit);

// The Clang library tlc links, e.g. "22.1.8".
std::string clangVersion();

// Where Clang's own headers (CUDA wrappers) are: the copy a portable installation carries
// (<prefix>/<libdir>/tlc/clang/<major>, as the wheel does), else the one tlc was built with.
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
