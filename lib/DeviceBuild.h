// The device half of a build: nvcc compiles, device links, fat binary packaging, and the check
// that the image holds exactly the extracted kernels.
//
// One input is compiled whole-program (`nvcc -cubin`); several are compiled with `-dc` and
// device-linked with `-Xnvlink -ignore-host-info` (CUDA 13's linker otherwise drops kernels no
// host code launches). Several archs give one cubin each, packed into a fatbin.
#pragma once

#include "Model.h"
#include "Steps.h"
#include "Toolchain.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tlc {

struct DeviceBuildOptions {
  std::string name;
  std::vector<std::string> inputs;
  std::vector<std::string> archs; // sm_XX[a|f]; empty: nvcc's default
  std::vector<std::string> includeDirs;
  std::vector<std::string> defines;
  std::string standard = "c++17";
  std::vector<std::string> nvccFlags; // -Xnvcc, passed verbatim
  std::string tlcIncludeDir;
  std::string workDir;
};

struct DevicePlan {
  std::vector<Step> compiles;    // independent of each other
  std::vector<Step> links;       // one per arch, after every compile (relocatable builds)
  std::optional<Step> package;   // fatbinary, after the links (several archs)
  std::vector<std::string> cubins; // one per arch, in arch order
  std::string image;             // the final image: a cubin, or the fatbin
  bool relocatable = false;
};

DevicePlan planDeviceBuild(const DeviceBuildOptions& options, const CudaToolkit& toolkit);

// Every cubin's entries must be the extracted kernels plus the module's other entries.
// InternalError printing both lists otherwise. Returns the SM of each cubin.
llvm::Expected<std::vector<unsigned>> verifyImages(const DevicePlan& plan,
                                                   const std::vector<std::string>& archs,
                                                   const Module& module);

// "sm_90a" -> "90a"; the form nvcc's -gencode code= and fatbinary's sm= take.
std::string archNumber(const std::string& arch);

} // namespace tlc
