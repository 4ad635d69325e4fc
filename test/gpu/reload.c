/* test/gpu reload: launch, check, tlc_reload_unload(), 50 times over. Iterations alternate between
 * the embedded image and the same image read from a file (tlc_reload_set_image_path, argv[1]), and
 * between loading at the first launch and loading ahead with tlc_reload_load(0). The caller holds
 * its own reference to the primary context, so its memory outlives every unload.
 *
 * usage: reload PATH-TO-reload.fatbin */
#include "reload.h"

#include "gpu_test.h"

#include <math.h>
#include <string.h>

enum { kIterations = 50, kCount = (1 << 16) + 17 /* not a multiple of the block */ };

typedef struct Buffers {
  float* x;
  float* y;
  float* out;
  CUdeviceptr dx, dy, dout;
} Buffers;

/* Fresh inputs in [-1, 1) and a poisoned output (all bits set: a NaN), on host and device. */
static void fillInputs(Buffers* b, uint64_t* random) {
  for (int i = 0; i < kCount; ++i) {
    b->x[i] = gpu_uniform(random, -1.0f, 1.0f);
    b->y[i] = gpu_uniform(random, -1.0f, 1.0f);
  }
  memset(b->out, 0xff, kCount * sizeof(float));
  CHECK_CU(cuMemcpyHtoD(b->dx, b->x, kCount * sizeof(float)));
  CHECK_CU(cuMemcpyHtoD(b->dy, b->y, kCount * sizeof(float)));
  CHECK_CU(cuMemcpyHtoD(b->dout, b->out, kCount * sizeof(float)));
}

/* Launches saxpy and returns how many outputs differ from fmaf(a, x, y). */
static int launchAndCount(Buffers* b, float a) {
  tlc_config config = {0};
  config.grid[0] = (kCount + 255) / 256;
  config.block[0] = 256;
  CHECK_TLC(reload, reload_saxpy(&config, a, (const float*)b->dx, (const float*)b->dy,
                                 (float*)b->dout, kCount));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(b->out, b->dout, kCount * sizeof(float)));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i)
    if (!(b->out[i] == fmaf(a, b->x[i], b->y[i])))
      ++wrong;
  return wrong;
}

/* One iteration: choose the image source and the way of loading, launch, check, unload. */
static int iterate(int iteration, const char* imageFile, Buffers* b, uint64_t* random) {
  CHECK_TLC(reload, tlc_reload_set_image_path(iteration % 2 ? imageFile : NULL));
  if (iteration % 3 == 0)
    CHECK_TLC(reload, tlc_reload_load(0));
  fillInputs(b, random);
  float a = gpu_uniform(random, -2.0f, 2.0f);
  int wrong = launchAndCount(b, a);
  CHECK_TLC(reload, tlc_reload_unload());
  return wrong;
}

/* The image path is fixed while loaded, and a missing file fails the load cleanly. */
static void checkImagePathRules(const char* imageFile, Buffers* b, uint64_t* random) {
  CHECK_TLC(reload, tlc_reload_load(0));
  tlc_status status = tlc_reload_set_image_path(imageFile);
  gpu_expect(status == TLC_ERROR_INVALID_VALUE, "set_image_path while loaded is refused (%s: %s)",
             tlc_reload_status_string(status), tlc_reload_last_error());
  CHECK_TLC(reload, tlc_reload_unload());

  CHECK_TLC(reload, tlc_reload_set_image_path("/nonexistent/reload.fatbin"));
  status = tlc_reload_load(0);
  gpu_expect(status == TLC_ERROR_IMAGE, "a missing image file fails the load (%s: %s)",
             tlc_reload_status_string(status), tlc_reload_last_error());
  CHECK_TLC(reload, tlc_reload_set_image_path(NULL));
  fillInputs(b, random);
  gpu_expect(launchAndCount(b, 0.5f) == 0, "the embedded image launches after that failure");
  CHECK_TLC(reload, tlc_reload_unload());
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH-TO-reload.fatbin\n", argv[0]);
    return 2;
  }
  uint64_t random = gpu_seed();
  CUdevice device = gpu_use_primary_context(0);

  Buffers b;
  b.x = malloc(kCount * sizeof(float));
  b.y = malloc(kCount * sizeof(float));
  b.out = malloc(kCount * sizeof(float));
  CHECK_CU(cuMemAlloc(&b.dx, kCount * sizeof(float)));
  CHECK_CU(cuMemAlloc(&b.dy, kCount * sizeof(float)));
  CHECK_CU(cuMemAlloc(&b.dout, kCount * sizeof(float)));

  int wrongIterations = 0;
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    int wrong = iterate(iteration, argv[1], &b, &random);
    if (wrong) {
      printf("  iteration %d: %d of %d outputs wrong\n", iteration, wrong, kCount);
      ++wrongIterations;
    }
  }
  gpu_expect(wrongIterations == 0, "%d load/launch/unload cycles, every output exact (%d wrong)",
             kIterations, wrongIterations);
  checkImagePathRules(argv[1], &b, &random);

  CHECK_CU(cuMemFree(b.dx));
  CHECK_CU(cuMemFree(b.dy));
  CHECK_CU(cuMemFree(b.dout));
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  free(b.x);
  free(b.y);
  free(b.out);
  return gpu_finish("reload");
}
