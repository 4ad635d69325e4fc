// test/gpu debug_lines: the module's second input (device-linked with scale.cu).
#include "common.cuh"

__global__ void shift(float* p, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = twice_plus(0.5f * p[i], by);
}
