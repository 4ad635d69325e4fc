// test/gpu debug_lines: one of a module's two inputs, both using inc/common.cuh.
#include "common.cuh"

__global__ void scale(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = twice_plus(p[i], 1.0f);
}
