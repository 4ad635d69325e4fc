// Kernels taking the CUDA toolkit's 16-bit float and vector types and a struct of the caller's, for
// the C++ launchers of NAME.h (namespace tlc::cxx: CUDA pointers where the launcher takes tlc's
// mirrors, the caller's own struct, launch shapes as <<<...>>> gives them).
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

// A struct of the caller's by value and by pointer, 16-bit floats by value, and a parameter named
// as cuda_fp16.h's typedef `half` (NAME.h's C++ launchers must not shadow it).
#include "cxx_params.h"

__global__ void with_params(mylib::Params params, const mylib::Params* many, mylib::Params* out,
                            __half half, __nv_bfloat16 bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = many[i];
    out[i].scale = params.scale * __half2float(half) + __bfloat162float(bias);
  }
}
