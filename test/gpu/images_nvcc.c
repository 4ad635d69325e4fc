/* test/gpu images_nvcc: launchers for a cubin that plain nvcc built without tlc
 * (test/fixtures/images/vector.cu, nvcc -cubin), typed from the declarations of vector.h.
 * vadd and ops::affine run on random inputs of a size that is no multiple of the block; every
 * element is checked against the same arithmetic on the CPU. */
#include "vector.h"

#include "gpu_test.h"

#include <math.h>

enum { kCount = 1000003, kThreads = 256 };

static float* randomFloats(uint64_t* random, int count) {
  float* values = malloc(sizeof(float) * (size_t)count);
  if (!values)
    gpu_abort(__FILE__, __LINE__, "malloc", "out of memory", NULL);
  for (int i = 0; i < count; ++i)
    values[i] = gpu_uniform(random, -100.0f, 100.0f);
  return values;
}

static CUdeviceptr upload(const float* values, int count) {
  CUdeviceptr device;
  CHECK_CU(cuMemAlloc(&device, sizeof(float) * (size_t)count));
  CHECK_CU(cuMemcpyHtoD(device, values, sizeof(float) * (size_t)count));
  return device;
}

int main(void) {
  uint64_t random = gpu_seed();
  gpu_use_primary_context(0);
  float* a = randomFloats(&random, kCount);
  float* b = randomFloats(&random, kCount);
  float* out = malloc(sizeof(float) * kCount);
  if (!out)
    gpu_abort(__FILE__, __LINE__, "malloc", "out of memory", NULL);
  CUdeviceptr da = upload(a, kCount), db = upload(b, kCount), dc;
  CHECK_CU(cuMemAlloc(&dc, sizeof(float) * kCount));

  tlc_config config = {0};
  config.grid[0] = (kCount + kThreads - 1) / kThreads;
  config.block[0] = kThreads;
  CHECK_TLC(vector, vector_vadd(&config, (const float*)da, (const float*)db, (float*)dc, kCount));
  CHECK_CU(cuMemcpyDtoH(out, dc, sizeof(float) * kCount));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i)
    wrong += out[i] != a[i] + b[i];
  gpu_expect(wrong == 0, "vadd from nvcc's cubin: %d of %d elements wrong", wrong, kCount);

  vector_Affine f = {gpu_uniform(&random, -2.0f, 2.0f), gpu_uniform(&random, -10.0f, 10.0f)};
  CHECK_TLC(vector, vector_ops_affine(&config, (float*)da, f, (unsigned)kCount));
  CHECK_CU(cuMemcpyDtoH(out, da, sizeof(float) * kCount));
  wrong = 0;
  for (int i = 0; i < kCount; ++i) {
    float expected = a[i] * f.scale + f.shift;
    wrong += fabsf(out[i] - expected) > 1e-5f * (1.0f + fabsf(expected));
  }
  gpu_expect(wrong == 0, "ops::affine (a struct by value) from nvcc's cubin: %d of %d wrong", wrong,
             kCount);

  CHECK_CU(cuMemFree(da));
  CHECK_CU(cuMemFree(db));
  CHECK_CU(cuMemFree(dc));
  free(a);
  free(b);
  free(out);
  return gpu_finish("images_nvcc");
}
