// bench/tma: an empty kernel taking two tensor maps, to time what encoding them costs a launch.
#include <cuda.h>
#include <tlc/annotations.h>

__global__ void two_maps(const __grid_constant__ CUtensorMap a TLC_TMA("dtype=bf16 box=64x64 swizzle=128B"),
                         const __grid_constant__ CUtensorMap b TLC_TMA("dtype=bf16 box=64x64 swizzle=128B"),
                         int n) {}
