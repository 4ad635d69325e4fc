// What a build compiles for, in nvcc's language: `--arch sm_90a` means what `nvcc -arch=sm_90a`
// means (SASS for sm_90a and PTX for compute_90a, so the library also runs, JIT-compiled, on
// newer GPUs), `compute_80` PTX only, `native` this machine's GPUs, `all` and `all-major` as nvcc
// defines them; `--gencode arch=compute_XX,code=[sm_XX,compute_XX]` gives exact control. The
// default is nvcc's own default arch in the same meaning, so a library built without --arch runs
// wherever nvcc's default output runs.
#pragma once

#include "support/Jobs.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace tlc {

// One entry of a device image: SASS for a real arch, or PTX for a virtual one, and the virtual
// arch it is compiled from (nvcc's -gencode arch=...,code=...).
struct GpuTarget {
  std::string virtualArch; // "compute_90a"
  std::string code;        // "sm_90a" (SASS) or "compute_90a" (PTX)

  bool ptx() const;
  std::string gencode() const; // "-gencode=arch=compute_90a,code=sm_90a"
  std::string number() const;  // "90a": fatbinary's sm=
  bool operator==(const GpuTarget& other) const {
    return virtualArch == other.virtualArch && code == other.code;
  }
};

// What the toolkit and the machine offer, for resolving target names.
struct TargetEnvironment {
  std::vector<std::string> sassArchs;    // `nvcc --list-gpu-code`: sm_75, sm_80, ...
  std::vector<std::string> virtualArchs; // `nvcc --list-gpu-arch`: compute_75, ...
  std::string defaultArch;               // nvcc's default, e.g. sm_75
  // This machine's GPUs as sm_XY, for `native`; an error saying why there are none.
  std::function<llvm::Expected<std::vector<std::string>>()> nativeArchs;
};

// Asks the toolkit's nvcc which archs it knows (each run holding one of `slots`, when given);
// `native` asks the CUDA driver.
llvm::Expected<TargetEnvironment> targetEnvironment(const CudaToolkit& toolkit,
                                                    JobSlots* slots = nullptr);

// The GPUs of this machine as sm_XY, through the CUDA driver (TLC_TEST_LIBCUDA names another
// library, for tests); an error naming the reason when there is no driver or no GPU.
llvm::Expected<std::vector<std::string>> nativeGpuArchs();

// Resolves --arch values and --gencode specs (in that order, duplicates dropped) into targets;
// none gives nvcc's default. UsageError naming the value and what is accepted otherwise.
llvm::Expected<std::vector<GpuTarget>> resolveTargets(const std::vector<std::string>& archs,
                                                      const std::vector<std::string>& gencodes,
                                                      const TargetEnvironment& environment);

// The GPU Clang parses for when the parse is for `arch` (sm_XX, sm_XXa, sm_XXf): Clang knows no
// family targets, so sm_100f parses as sm_100, the GPU whose macros (__CUDA_ARCH__ 1000, no
// __CUDA_ARCH_FEAT_SM100_ALL) are nvcc's for sm_100f.
std::string clangGpuArch(const std::string& arch);

// Every name --arch takes with this nvcc, as tlc checks them: its SASS and PTX archs with their
// 'a' (from 90) and 'f' (from 100) variants, then native, all, all-major. Shell completion offers
// these.
std::vector<std::string> targetNames(const TargetEnvironment& environment);

// The --gencode specs completion offers for this nvcc: for each virtual arch compute_N[a|f],
// `arch=compute_N,code=sm_N` and `arch=compute_N,code=[sm_N,compute_N]`.
std::vector<std::string> gencodeForms(const TargetEnvironment& environment);

// Whether Clang knows `arch` (sm_XX[a|f]) as a GPU it can parse for.
bool isKnownParseArch(const std::string& arch);

// Every GPU Clang can parse for (sm_XX, sm_XXa), oldest first: the arch names shell completion
// offers.
std::vector<std::string> knownParseArchs();

// The arch Clang should parse for: the newest SASS target, else the newest PTX one (as sm_XY).
std::string parseArchFor(const std::vector<GpuTarget>& targets);

} // namespace tlc
