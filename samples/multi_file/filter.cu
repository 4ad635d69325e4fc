#include "common.cuh"

__device__ float soft_clip(float x) { return x / (1.0f + fabsf(x)); }

// out = soft_clip(in * affine.scale + affine.bias)
__global__ void affine_clip(const float* in, float* out, Affine affine, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = soft_clip(in[i] * affine.scale + affine.bias);
}
