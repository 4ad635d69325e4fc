/* samples/multi_file: two .cu files and a shared header, a __device__ helper defined in one and
 * called from the other, a struct passed by value. Host in C, memory through the driver API.
 * Prints PASS or FAIL; exits non-zero on a mismatch or error. */
#include "multi_file.h"

#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_CU(call)                                                                             \
  do {                                                                                             \
    CUresult result_ = (call);                                                                     \
    if (result_ != CUDA_SUCCESS) {                                                                 \
      fprintf(stderr, "FAIL: %s returned %d\n", #call, (int)result_);                              \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

#define CHECK_TLC(call)                                                                            \
  do {                                                                                             \
    tlc_status status_ = (call);                                                                   \
    if (status_ != TLC_SUCCESS) {                                                                  \
      fprintf(stderr, "FAIL: %s: %s\n", tlc_multi_file_status_string(status_),                     \
              tlc_multi_file_last_error());                                                        \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

static float soft_clip(float x) {
  return x / (1.0f + fabsf(x));
}

int main(void) {
  const int n = 1 << 18;
  size_t bytes = (size_t)n * sizeof(float);
  float* in = malloc(bytes);
  float* out = malloc(bytes);
  srand(11);
  for (int i = 0; i < n; ++i)
    in[i] = 8.0f * (float)rand() / RAND_MAX - 4.0f;

  CUdevice device;
  CUcontext context;
  CHECK_CU(cuInit(0));
  CHECK_CU(cuDeviceGet(&device, 0));
  CHECK_CU(cuCtxCreate(&context, NULL, 0, device)); /* the caller's own, non-primary context */
  CUdeviceptr din, dout;
  CHECK_CU(cuMemAlloc(&din, bytes));
  CHECK_CU(cuMemAlloc(&dout, bytes));
  CHECK_CU(cuMemcpyHtoD(din, in, bytes));
  CHECK_CU(cuMemsetD32(dout, 0x7fc00000u, (size_t)n)); /* NaN: every element must be written */

  tlc_config config = {0};
  config.grid[0] = (n + 255) / 256;
  config.block[0] = 256;
  multi_file_Affine affine = {0.75f, -0.5f};
  CHECK_TLC(multi_file_affine_clip(&config, (const float*)din, (float*)dout, affine, n));
  CHECK_TLC(multi_file_activate_twice(&config, (float*)dout, n));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(out, dout, bytes));

  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    float expected = soft_clip(soft_clip(soft_clip(in[i] * affine.scale + affine.bias)));
    double error = fabs((double)out[i] - expected);
    if (!(error <= worst)) /* NaN-safe */
      worst = isnan(error) ? INFINITY : error;
  }
  int ok = worst < 1e-5;
  printf("%s: multi_file sample, worst error %g\n", ok ? "PASS" : "FAIL", worst);
  return ok ? 0 : 1;
}
