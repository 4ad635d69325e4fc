// The device half of a build: nvcc compiles, device links, fat binary packaging, and the check
// (ImageCheck.h checks what they made against the parsed kernels, for every target).
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
#include <set>
#include <string>
#include <vector>

namespace tlc {

struct DeviceBuildOptions {
  std::string name;
  std::vector<std::string> inputs;
  std::vector<GpuTarget> targets; // resolved (resolveTargets), never empty
  bool relocatable = false;       // forced (a device-side launch); else decided from the above
  std::vector<std::string> includeDirs;
  std::vector<std::string> defines;
  std::string standard = "c++17";
  std::vector<std::string> nvccFlags; // -Xnvcc, passed verbatim
  std::map<std::string, std::vector<std::string>> inputFlags; // per input: from a compile DB
  std::string tlcIncludeDir;
  std::string workDir;
  std::vector<std::string> launcher; // runs nvcc under this (ccache, sccache), if set
};

// What one target contributes to the image.
struct TargetImage {
  GpuTarget target;
  // SASS: the (device-linked) cubin. PTX: the PTX, or one relocatable PTX file per input.
  std::vector<std::string> files;
  // Relocatable code: each input's own compile output, in input order (where nvcc's names for
  // each input's static kernels are found); empty for whole-program code.
  std::vector<std::string> perInput;
};

struct DevicePlan {
  std::vector<Step> compiles;    // independent of each other
  std::vector<Step> links;       // one per SASS target, after every compile (relocatable builds)
  std::optional<Step> package;   // fatbinary, after the links (several entries)
  std::vector<TargetImage> targets; // in target order
  std::string image;             // the final image: a cubin, or the fatbin
  std::vector<std::string> dependencyFiles; // nvcc's -MF outputs: headers each compile read
  bool relocatable = false;

  bool fatbin() const { return package.has_value(); }
};

// Whether a build compiles relocatable device code: several inputs, a user's -rdc=true or -dc,
// or a compiler launcher (which caches only `nvcc -c`).
bool relocatableCode(size_t inputs, const std::vector<std::string>& nvccFlags,
                     bool compilerLauncher);

// NAME.cubin for an image of one SASS target, NAME.fatbin otherwise.
std::string imageFileName(const std::string& name, const std::vector<GpuTarget>& targets);

// The prerequisites listed in a Make-style dependency file (as nvcc -MD writes them).
std::vector<std::string> readDependencyFile(const std::string& path);

DevicePlan planDeviceBuild(const DeviceBuildOptions& options, const CudaToolkit& toolkit);


} // namespace tlc
