// Tensor-map parameters: two with the same annotation (one tensor for both is encoded once),
// two with different annotations, and an im2col map.
#include <cuda.h>
#include <tlc/annotations.h>

#define TILED_F32 TLC_TMA("dtype=f32 box=32x8 swizzle=128B l2=128B oob=nan")

__global__ void same_spec(const __grid_constant__ CUtensorMap a TILED_F32, int n,
                          const __grid_constant__ CUtensorMap b TILED_F32) {
  if (n < 0) // never true; keeps the maps used
    asm volatile("prefetch.tensormap [%0];\n\tprefetch.tensormap [%1];" ::"l"(&a), "l"(&b)
                 : "memory");
}

__global__ void two_specs(const __grid_constant__ CUtensorMap wide TLC_TMA("dtype=f32 box=32x8"),
                          const __grid_constant__ CUtensorMap narrow TLC_TMA("dtype=f32 box=8x8"),
                          float* out) {
  if (!out)
    asm volatile("prefetch.tensormap [%0];\n\tprefetch.tensormap [%1];" ::"l"(&wide), "l"(&narrow)
                 : "memory");
}

__global__ void convolve(const __grid_constant__ CUtensorMap input TLC_TMA_IM2COL(
                             "dtype=f16 rank=4 channels=64 pixels=128 lower=-1x-1 upper=1x1"),
                         float* out) {
  if (!out)
    asm volatile("prefetch.tensormap [%0];" ::"l"(&input) : "memory");
}
