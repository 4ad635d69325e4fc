// The device half of a build: nvcc compiles, device links, fat binary packaging, and the check
// that the image holds exactly the extracted kernels, for every target (GpuTargets.h).
//
// One input is compiled whole-program: `nvcc -cubin` per SASS target, `nvcc -ptx` per PTX
// target. Several are compiled to relocatable device code and device-linked per SASS target with
// `-Xnvlink -ignore-host-info` (CUDA 13's linker otherwise drops kernels no host code launches);
// nvlink cannot link PTX, so a PTX target keeps one relocatable PTX file per input, which the
// launcher runtime links for the device it runs on (runtime/include/tlc/runtime.h). Relocatable
// code is compiled as `-cubin -rdc=true` rather than `-dc`: the same device code without the host
// half nvcc would also compile (0.32 s against 0.97 s for a small file, measured when this was
// written). Under a compiler launcher (--launcher ccache) SASS is compiled with `-c -rdc=true`
// instead, which is what compiler caches can cache. An image of one SASS target is that cubin;
// anything else is a fatbin, stored uncompressed because the runtime reads its PTX entries.
#pragma once

#include "model/Model.h"
#include "build/GpuTargets.h"
#include "build/Steps.h"
#include "build/Toolchain.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

// Every path here is a name in the work folder (build/ToolPaths.h), and every flag one that
// reaches nvcc as is: safe for nvcc's shell steps.
struct DeviceBuildOptions {
  std::string name;
  std::vector<std::string> inputs;     // "in0/a.cu"
  std::vector<std::string> inputDirs;  // per input, its original folder ("src0"), searched first
  std::vector<std::string> inputNames; // per input, its file name as the user's (progress lines)
  std::vector<GpuTarget> targets;      // resolved (resolveTargets), never empty
  std::vector<std::string> includeDirs;
  std::vector<std::string> defines; // "-DNAME=VALUE" and "-UNAME" flags, as they reach nvcc
  std::string standard = "c++17";
  std::vector<std::string> nvccFlags; // -Xnvcc, passed verbatim
  std::map<std::string, std::vector<std::string>> inputFlags; // per input: from a compile DB
  std::string tlcIncludeDir;
  std::string workDir;               // absolute: where the tools run
  std::vector<std::string> launcher; // runs nvcc under this (ccache, sccache), if set
};

// What one target contributes to the image.
struct TargetImage {
  GpuTarget target;
  // SASS: the (device-linked) cubin. PTX: the PTX, or one relocatable PTX file per input.
  std::vector<std::string> files;
};

struct DevicePlan {
  std::vector<Step> compiles;    // independent of each other
  std::vector<Step> links;       // one per SASS target, after every compile (relocatable builds)
  std::optional<Step> package;   // fatbinary, after the links (several entries)
  std::vector<TargetImage> targets; // in target order
  std::string image;                // the final image (absolute): a cubin, or the fatbin
  // nvcc's -MF outputs, relative to the work folder: the headers each compile read.
  std::vector<std::string> dependencyFiles;
  bool relocatable = false;

  bool fatbin() const { return package.has_value(); }
};

// NAME.cubin for an image of one SASS target, NAME.fatbin otherwise.
std::string imageFileName(const std::string& name, const std::vector<GpuTarget>& targets);

// The prerequisites listed in a Make-style dependency file (as nvcc -MD writes them).
std::vector<std::string> readDependencyFile(const std::string& path);

DevicePlan planDeviceBuild(const DeviceBuildOptions& options, const CudaToolkit& toolkit);

// Every target's entries must be the extracted kernels plus the module's other entries.
// InternalError printing both lists otherwise.
llvm::Error verifyImages(const DevicePlan& plan, const Module& module);

} // namespace tlc
