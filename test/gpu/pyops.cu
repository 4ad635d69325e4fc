// test/gpu/python_test.py's kernels (gpu-test item `python`), built with tlc build --python:
// elementwise kernels over float, 16-bit floats and bytes, every scalar width, a struct by
// value, and the TMA copy and transpose of samples/tma_copy (tensor maps from torch tensors).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../../samples/tma_copy/tma_copy.cu"

struct Affine {
  float scale;
  float shift;
};

__global__ void vadd(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}

__global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void scale_half(__half* x, __half factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = __hmul(x[i], factor);
}

__global__ void scale_bf16(__nv_bfloat16* x, __nv_bfloat16 factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = __hmul(x[i], factor);
}

__global__ void affine(float* x, Affine p, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * p.scale + p.shift;
}

__global__ void fill_u8(unsigned char* x, unsigned char value, unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = value;
}

// Writes back what it received, so the host sees every width as the device did.
__global__ void echo_widths(long long* out, bool b, signed char i8, unsigned char u8, short i16,
                            unsigned short u16, int i32, unsigned int u32, long long i64,
                            unsigned long long u64, double f64) {
  out[0] = b;
  out[1] = i8;
  out[2] = u8;
  out[3] = i16;
  out[4] = u16;
  out[5] = i32;
  out[6] = u32;
  out[7] = i64;
  out[8] = (long long)u64;
  out[9] = (long long)(f64 * 4.0);
}
