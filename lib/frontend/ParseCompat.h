// What Clang's CUDA parse lacks that nvcc has, made up for in every parse (never shown to nvcc):
//   - the macros nvcc predefines (__NVCC__, __CUDACC_VER_MAJOR__/MINOR__/BUILD__, __CUDACC_RDC__
//     when relocatable, and those of its options: -G's __CUDACC_DEBUG__, ..., from the table of
//     NvccOptions.h), so `#if __CUDACC_VER_MAJOR__ >= 12` picks the branch nvcc picks, and the
//     arch-specific and family-specific arch macros, with the GPU Clang parses for;
//   - a header tlc force-includes: the standard headers nvcc's cuda_runtime.h includes for every
//     file (time.h, assert.h, stdio.h, ...), declarations of the device intrinsics Clang's CUDA
//     headers lack (__stcs, __ldca, ...), copied from the toolkit's own headers, and #undef of
//     the macros Clang's CUDA wrapper leaves defined and nvcc never defines (__USE_FAST_MATH__);
//   - for tlc's own parse only, a stand-in for Clang's texture intrinsics header (below).
#pragma once

#include "toolchain/Toolchain.h"

#include <string>
#include <vector>

namespace tlc {

// -D flags for the macros nvcc defines for a compile with these nvcc flags (as the user gives
// them to nvcc) and this release ("13.0.88").
std::vector<std::string> nvccPredefines(const std::string& release, bool relocatable,
                                        const std::vector<std::string>& nvccFlags);

// -D flags for the arch macros nvcc 12.9+ defines and Clang does not: __CUDA_ARCH_SPECIFIC__ for
// an arch-specific target (sm_90a: 900), __CUDA_ARCH_FAMILY_SPECIFIC__ for it and for a family
// target (sm_100f: 1000). Code for Blackwell and Hopper (CUTLASS, cuda_fp8.h) selects kernels and
// paths by them.
std::vector<std::string> nvccArchPredefines(const std::string& arch);

// The intrinsics Clang 22's CUDA headers do not declare; a test checks each is still missing.
const std::vector<std::string>& intrinsicsClangLacks();

// The text of the force-included compatibility header for `toolkit`: its declarations come from
// the toolkit's sm_32_intrinsics.h, so their signatures are nvcc's.
std::string parseCompatHeader(const CudaToolkit& toolkit);

// The first line of that header: how a file tlc wrote as the header (--compile-commands-out
// writes one beside the database) is told from a file of the user's.
const char* parseCompatHeaderFirstLine();

// Where the parse sees that header (a virtual file: it is in no depfile, nothing reads it).
const char* parseCompatHeaderPath();

// Headers Clang's CUDA wrapper includes that a toolkit may lack, as empty stand-ins in a
// virtual folder the parse searches after every other (-idirafter): NVIDIA's CUDA wheels ship
// no cuRAND (nvidia-curand is a wheel of its own), yet __clang_cuda_runtime_wrapper.h includes
// curand_mtgp32_kernel.h. nvcc never includes it, and a toolkit that has it is found first.
const char* parseFallbackIncludeDir();
const std::vector<std::string>& parseFallbackHeaders(); // file names in that folder

// -D flags that stand in for Clang's __clang_cuda_texture_intrinsics.h in tlc's own parse (not an
// editor's): its include guard, and its one macro as a statement that does nothing. That header
// is a third of a first parse's time (hundreds of template specializations) and gives only what
// the bodies of CUDA's texture and surface functions expand to; no declaration a kernel's
// signature can name comes from it.
const std::vector<const char*>& textureIntrinsicsStandIn();

} // namespace tlc
