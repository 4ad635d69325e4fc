/* samples/vadd: adds two vectors through the generated launcher, from C, and checks the result
 * against the CPU. Prints PASS or FAIL; exits non-zero on a mismatch or error. */
#include "vadd.h"

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

int main(void) {
  const int n = 1 << 20;
  size_t bytes = (size_t)n * sizeof(float);
  float* a = malloc(bytes);
  float* b = malloc(bytes);
  float* out = malloc(bytes);
  srand(7);
  for (int i = 0; i < n; ++i) {
    a[i] = (float)rand() / RAND_MAX;
    b[i] = (float)rand() / RAND_MAX;
    out[i] = NAN; /* poison: every element must be written */
  }

  CUdevice device;
  CUcontext context;
  CHECK_CU(cuInit(0));
  CHECK_CU(cuDeviceGet(&device, 0));
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));
  CUdeviceptr da, db, dout;
  CHECK_CU(cuMemAlloc(&da, bytes));
  CHECK_CU(cuMemAlloc(&db, bytes));
  CHECK_CU(cuMemAlloc(&dout, bytes));
  CHECK_CU(cuMemcpyHtoD(da, a, bytes));
  CHECK_CU(cuMemcpyHtoD(db, b, bytes));
  CHECK_CU(cuMemcpyHtoD(dout, out, bytes));

  tlc_config config = {0};
  config.grid[0] = (n + 255) / 256;
  config.block[0] = 256;
  tlc_status status = vadd_vadd(&config, (const float*)da, (const float*)db, (float*)dout, n);
  if (status != TLC_SUCCESS) {
    fprintf(stderr, "FAIL: %s: %s\n", tlc_vadd_status_string(status), tlc_vadd_last_error());
    return 1;
  }
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(out, dout, bytes));

  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (!(out[i] == a[i] + b[i]))
      ++wrong;
  printf("%s: vadd of %d floats, %d wrong\n", wrong ? "FAIL" : "PASS", n, wrong);
  return wrong ? 1 : 0;
}
