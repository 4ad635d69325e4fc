// The device half of a build: nvcc compiles, device links, fat binary packaging, and the check
// that the image holds exactly the extracted kernels.
//
// One input is compiled whole-program (`nvcc -cubin`); several are compiled to relocatable
// device code and device-linked with `-Xnvlink -ignore-host-info` (CUDA 13's linker otherwise
// drops kernels no host code launches). Relocatable code is compiled as `-cubin -rdc=true`
// rather than `-dc`: the same device code without the host half nvcc would also compile (0.32 s
// against 0.97 s for a small file, measured when this was written). Under a compiler launcher (--launcher ccache) inputs are
// compiled with `-c -rdc=true` instead, which is what compiler caches can cache. Several archs
// give one cubin each, packed in a fatbin.
#pragma once

#include "model/Model.h"
#include "build/Steps.h"
#include "build/Toolchain.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

struct DeviceBuildOptions {
  std::string name;
  std::vector<std::string> inputs;
  std::vector<std::string> archs; // sm_XX[a|f]; empty: nvcc's default
  std::string defaultArch;        // what nvcc's default is, for names and progress lines
  std::vector<std::string> includeDirs;
  std::vector<std::string> defines;
  std::string standard = "c++17";
  std::vector<std::string> nvccFlags; // -Xnvcc, passed verbatim
  std::map<std::string, std::vector<std::string>> inputFlags; // per input: from a compile DB
  std::string tlcIncludeDir;
  std::string workDir;
  std::vector<std::string> launcher; // runs nvcc under this (ccache, sccache), if set
};

struct DevicePlan {
  std::vector<Step> compiles;    // independent of each other
  std::vector<Step> links;       // one per arch, after every compile (relocatable builds)
  std::optional<Step> package;   // fatbinary, after the links (several archs)
  std::vector<std::string> cubins; // one per arch, in arch order
  std::string image;             // the final image: a cubin, or the fatbin
  std::vector<std::string> dependencyFiles; // nvcc's -MF outputs: headers each compile read
  bool relocatable = false;
};

// The prerequisites listed in a Make-style dependency file (as nvcc -MD writes them).
std::vector<std::string> readDependencyFile(const std::string& path);

DevicePlan planDeviceBuild(const DeviceBuildOptions& options, const CudaToolkit& toolkit);

// Every cubin's entries must be the extracted kernels plus the module's other entries.
// InternalError printing both lists otherwise. Returns the SM of each cubin.
llvm::Expected<std::vector<unsigned>> verifyImages(const DevicePlan& plan,
                                                   const std::vector<std::string>& archs,
                                                   const Module& module);

// "sm_90a" -> "90a"; the form nvcc's -gencode code= and fatbinary's sm= take.
std::string archNumber(const std::string& arch);

} // namespace tlc
