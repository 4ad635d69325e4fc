// Kernels taking the CUDA toolkit's 16-bit float and vector types by pointer, for the C++
// conveniences of NAME.h (CUDA pointers where the launcher takes tlc's mirrors, dim3 shapes).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void mixed(__half* h, const __nv_bfloat16* b, __half2* h2, const __nv_bfloat162* b2,
                      float4* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    h[i] = __float2half(__bfloat162float(b[i]));
    h2[i] = __floats2half2_rn(__low2float(b2[i]), __high2float(b2[i]));
    v[i].x = i;
  }
}
