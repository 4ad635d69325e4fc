/* test/gpu images_ptx: the launcher of hand-written PTX (test/fixtures/images/scale.ptx.in) that
 * tlc assembled with ptxas, typed from scale.h. Two modules: one with SASS for this GPU's target
 * (and the PTX), one with the PTX alone (compute_80), which the driver JIT-compiles here. Each
 * scales random data; every element is checked against the CPU. */
#include "scale_jit.h"
#include "scale_sass.h"

#include "gpu_test.h"

enum { kCount = 1000003, kThreads = 128 };

typedef tlc_status (*ScaleLauncher)(const tlc_config*, float*, float, unsigned int);

static void checkScale(const char* what, ScaleLauncher launch, const char* (*lastError)(void),
                       uint64_t* random) {
  float* x = malloc(sizeof(float) * kCount);
  float* out = malloc(sizeof(float) * kCount);
  if (!x || !out)
    gpu_abort(__FILE__, __LINE__, "malloc", "out of memory", NULL);
  for (int i = 0; i < kCount; ++i)
    x[i] = gpu_uniform(random, -1000.0f, 1000.0f);
  float s = gpu_uniform(random, -3.0f, 3.0f);
  CUdeviceptr dx;
  CHECK_CU(cuMemAlloc(&dx, sizeof(float) * kCount));
  CHECK_CU(cuMemcpyHtoD(dx, x, sizeof(float) * kCount));
  tlc_config config = {0};
  config.grid[0] = (kCount + kThreads - 1) / kThreads;
  config.block[0] = kThreads;
  tlc_status status = launch(&config, (float*)dx, s, (unsigned)kCount);
  if (status != TLC_SUCCESS)
    gpu_abort(__FILE__, __LINE__, what, "launch failed", lastError());
  CHECK_CU(cuMemcpyDtoH(out, dx, sizeof(float) * kCount));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i)
    wrong += out[i] != x[i] * s;
  gpu_expect(wrong == 0, "%s: %d of %d elements wrong", what, wrong, kCount);
  CHECK_CU(cuMemFree(dx));
  free(x);
  free(out);
}

int main(void) {
  uint64_t random = gpu_seed();
  gpu_use_primary_context(0);
  const char* target = NULL;
  CHECK_TLC(scale_sass, tlc_scale_sass_image_target(0, &target));
  printf("scale_sass runs %s here\n", target);
  checkScale("scale_f32 from PTX assembled by ptxas", scale_sass_scale_f32,
             tlc_scale_sass_last_error, &random);
  CHECK_TLC(scale_jit, tlc_scale_jit_image_target(0, &target));
  gpu_expect(target && target[0] == 'c', "the PTX-only module JIT-compiles its PTX (%s)", target);
  checkScale("scale_f32 from PTX the driver JIT-compiled", scale_jit_scale_f32,
             tlc_scale_jit_last_error, &random);
  return gpu_finish("images_ptx");
}
