// The device half of a build: nvcc compiles, device links, fat binary packaging, and the check
// (ImageCheck.h checks what they made against the parsed kernels, for every target).
//
// Every input is compiled by one nvcc run for all targets, as `nvcc -arch=sm_90a` does (the front
// end runs once per virtual arch). One input is compiled whole-program: `-cubin` for one SASS
// target, else `-fatbin` straight into the image. Several are compiled to relocatable device
// code (`-fatbin -rdc=true`: the device code without the host half `-dc` would also compile) and
// device-linked per SASS target with `-Xnvlink -ignore-host-info` (CUDA 13's linker otherwise
// drops kernels no host code launches); nvlink cannot link PTX, so a PTX target keeps one
// relocatable PTX entry per input, which the launcher runtime links for the device it runs on
// (runtime/include/tlc/runtime.h), and fatbinary packs it all. Under a compiler launcher
// (--launcher ccache) inputs are compiled with `-c -rdc=true`, which compiler caches can cache.
// Fatbins are uncompressed: tlc and the runtime read their entries.
#pragma once

#include "builder/Steps.h"
#include "model/Model.h"
#include "toolchain/GpuTargets.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tlc {

// Every path here is a name in the work folder or a real path checked safe (builder/ToolPaths.h),
// and every flag one that reaches nvcc as is: safe for nvcc's shell steps.
struct DeviceBuildOptions {
  std::string name;
  std::vector<std::string> inputs; // "in0/a.cu"
  // Per input, its original folder ("src0"), searched first; empty where nvcc reads the original.
  std::vector<std::string> inputDirs;
  std::vector<std::string> inputWorkDirs; // per input, a folder of its own in the work folder
  std::vector<std::string> inputNames;    // per input, its file name as the user's (progress lines)
  // Per input, the path nvcc hashes into its internal-linkage symbols (SourceIdentity in
  // ToolPaths.h): the original's, not the copy's. Empty: nvcc's own choice.
  std::vector<std::string> hashedPaths;
  std::vector<GpuTarget> targets; // resolved (resolveTargets), never empty
  bool relocatable = false;       // forced (a device-side launch); else decided from the above
  // -I, -isystem, -include, -D and -U, in their order, as they reach nvcc.
  std::vector<std::string> preprocessorFlags;
  std::string standard = "c++17";
  std::vector<std::string> nvccFlags; // nvcc's other options and -Xnvcc, passed as they are
  std::map<std::string, std::vector<std::string>> inputFlags; // per input: from a compile DB
  std::string tlcIncludeDir;
  std::string workDir; // absolute: where the tools run, and their outputs and temporaries go
  // With device debug info, where the compiles run instead: the user's working folder, as nvcc
  // run by hand would (ToolPaths::runInUserFolder). Names in the work folder (the first
  // components in `workNames`, the outputs) then reach nvcc by their absolute paths, which
  // nothing nvcc makes records. Empty: the work folder.
  std::string userFolder;
  std::set<std::string> workNames;
  // nvcc as the tools run it: through a link to the toolkit in the work folder ("cuda/bin/nvcc"),
  // so that nvcc, which finds its toolkit from its own argv[0], names the toolkit by that
  // relative path in everything it records (nvlink's command line in a device-linked image);
  // with device debug info by its real path, which the line tables then name (ToolPaths.h).
  // Empty: the toolkit's own nvcc.
  std::string nvcc;
  std::vector<std::string> launcher; // runs nvcc under this (ccache, sccache), if set
};

// What one target contributes to the image.
struct TargetImage {
  GpuTarget target;
  // SASS: the (device-linked) cubin. PTX: the PTX, or one relocatable PTX file per input. Names
  // in the work folder, as the tools are given them.
  std::vector<std::string> files;
  // Relocatable code: each input's own compile output (absolute: tlc reads them), in input order
  // (where nvcc's names for each input's static kernels are found); empty for whole-program code.
  std::vector<std::string> perInput;
};

// One input's relocatable PTX for one target, taken out of the object nvcc made for the input
// (by tlc itself: absolute paths).
struct PtxExtraction {
  std::string object; // the input's relocatable fatbin or host object
  GpuTarget target;
  std::string ptx; // the file to write
};

struct DevicePlan {
  std::vector<Step> compiles;                // independent of each other
  std::vector<PtxExtraction> ptxExtractions; // after the compiles, before the fatbinary
  std::vector<Step> links;          // one per SASS target, after every compile (relocatable builds)
  std::optional<Step> package;      // fatbinary, after the links (several entries)
  std::vector<TargetImage> targets; // in target order
  // The final image (absolute, for tlc; the tools name it NAME.cubin or NAME.fatbin in the work
  // folder, where NAME_image.S finds it): a cubin, or the fatbin.
  std::string image;
  bool relocatable = false;
  bool fatbin = false; // the image is a fatbin (else one cubin)
};

// Whether a build compiles relocatable device code: several inputs, a user's -rdc=true or -dc,
// or a compiler launcher (which caches only `nvcc -c`).
bool relocatableCode(size_t inputs, const std::vector<std::string>& nvccFlags,
                     bool compilerLauncher);

// Whether these nvcc flags ask for device debug info (-lineinfo, -G): the image then names the
// sources' files.
bool wantsDeviceDebugInfo(const std::vector<std::string>& nvccFlags);

// Writes one input's relocatable PTX out of its object (PtxExtraction).
llvm::Error extractPtx(const PtxExtraction& extraction);

// Writes every relocatable PTX of `plan` (DevicePlan::ptxExtractions), in order.
llvm::Error extractPtx(const DevicePlan& plan);

// NAME.cubin for an image of one SASS target, NAME.fatbin otherwise.
std::string imageFileName(const std::string& name, const std::vector<GpuTarget>& targets);

DevicePlan planDeviceBuild(const DeviceBuildOptions& options, const CudaToolkit& toolkit);

} // namespace tlc
