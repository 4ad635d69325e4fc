/* test/gpu l2_window: an L2 persistence window on a real GPU. The caller sets no
 * CU_LIMIT_PERSISTING_L2_CACHE_SIZE: the launch raises the context's limit to cover the window,
 * never lowers it, raises it again after the caller gave the L2 back (reset to 0), and the
 * kernel's results are right throughout. A window over the device's maximum is refused.
 *
 * usage: l2_window */
#include "pattern.h"

#include "gpu_test.h"

enum { kCount = 1 << 20 }; /* 4 MiB of unsigned */

static unsigned patternAt(unsigned seed, unsigned i) {
  return (seed ^ i) * 2654435761u + 0x9e3779b9u;
}

static size_t persistingLimit(void) {
  size_t limit = 0;
  CHECK_CU(cuCtxGetLimit(&limit, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
  return limit;
}

/* One launch of fill_pattern with a window of `bytes` over `out`; checks every element. */
static void launchWithWindow(CUdeviceptr out, size_t bytes, unsigned seed, unsigned* host) {
  tlc_config config = {0};
  config.grid[0] = (kCount + 255) / 256;
  config.block[0] = 256;
  config.l2_persist_base = (void*)out;
  config.l2_persist_bytes = bytes;
  config.l2_persist_hit_ratio = 1.0f;
  CHECK_TLC(pattern, pattern_fill_pattern(&config, (unsigned*)out, seed, kCount));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(host, out, kCount * sizeof(unsigned)));
  int wrong = 0;
  for (unsigned i = 0; i < kCount; ++i)
    wrong += host[i] != patternAt(seed, i);
  gpu_expect(wrong == 0, "a launch with a %zu-byte window computes every element (%d wrong)", bytes,
             wrong);
}

int main(void) {
  uint64_t random = gpu_seed();
  CUdevice device = gpu_use_primary_context(0);
  int maxPersisting = 0, maxWindow = 0;
  CHECK_CU(cuDeviceGetAttribute(&maxPersisting, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
                                device));
  CHECK_CU(
      cuDeviceGetAttribute(&maxWindow, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, device));
  if (maxPersisting == 0) {
    printf("SKIP: this device has no persisting L2\n");
    return 77;
  }
  printf("device: persisting L2 up to %d bytes, windows up to %d bytes\n", maxPersisting,
         maxWindow);
  unsigned* host = malloc(kCount * sizeof(unsigned));
  CUdeviceptr out;
  CHECK_CU(cuMemAlloc(&out, kCount * sizeof(unsigned)));
  size_t bytes = kCount * sizeof(unsigned);
  size_t wanted = bytes < (size_t)maxPersisting ? bytes : (size_t)maxPersisting;

  CHECK_CU(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0));
  launchWithWindow(out, bytes, gpu_random(&random), host);
  size_t raised = persistingLimit();
  gpu_expect(raised >= wanted, "the launch raised the persisting L2 limit from 0 to %zu (>= %zu)",
             raised, wanted);

  launchWithWindow(out, bytes / 4, gpu_random(&random), host);
  gpu_expect(persistingLimit() == raised, "a smaller window leaves the limit at %zu (now %zu)",
             raised, persistingLimit());

  CHECK_CU(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0)); /* the caller gives it back */
  CHECK_CU(cuCtxResetPersistingL2Cache());
  launchWithWindow(out, bytes, gpu_random(&random), host);
  gpu_expect(persistingLimit() >= wanted,
             "after a reset to 0 the next window raises it again (%zu)", persistingLimit());

  tlc_config config = {0};
  config.grid[0] = 1;
  config.block[0] = 32;
  config.l2_persist_base = (void*)out;
  config.l2_persist_bytes = (size_t)maxWindow + 1;
  config.l2_persist_hit_ratio = 1.0f;
  tlc_status status = pattern_fill_pattern(&config, (unsigned*)out, 1u, 32);
  gpu_expect(status == TLC_ERROR_INVALID_VALUE,
             "a window over the device's maximum is TLC_ERROR_INVALID_VALUE (%s)",
             tlc_pattern_last_error());

  CHECK_CU(cuMemFree(out));
  free(host);
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  return gpu_finish("l2_window");
}
