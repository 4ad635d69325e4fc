/* test/gpu context: a launch leaves the caller's current context as it found it, and runs in the
 * right one. Three callers: one with no context current (the launcher must push and pop the
 * primary context), one with the primary context current, and one with a context of its own on
 * the same device, made with cuCtxCreate (the launch runs in that context, on memory allocated
 * there). Each launch's output is checked, and the context stack under the caller's own context
 * must be intact afterwards. */
#include "pattern.h"

#include "gpu_test.h"

enum { kCount = 50021 };

static unsigned patternAt(unsigned seed, unsigned i) {
  return (seed ^ i) * 2654435761u + 0x9e3779b9u;
}

static void writeAll(CUcontext context, CUdeviceptr out, const unsigned* values) {
  CHECK_CU(cuCtxPushCurrent(context));
  CHECK_CU(cuMemcpyHtoD(out, values, kCount * sizeof(unsigned)));
  CHECK_CU(cuCtxPopCurrent(NULL));
}

/* Synchronises `context` and counts the outputs that differ from the pattern for `seed`. */
static int countWrong(CUcontext context, CUdeviceptr out, unsigned seed, unsigned* values) {
  CHECK_CU(cuCtxPushCurrent(context));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(values, out, kCount * sizeof(unsigned)));
  CHECK_CU(cuCtxPopCurrent(NULL));
  int wrong = 0;
  for (unsigned i = 0; i < kCount; ++i)
    wrong += values[i] != patternAt(seed, i);
  return wrong;
}

/* One launch into `out`, which belongs to `owner`, with whatever context the caller has current. */
static void launchAndCheck(const char* caller, CUcontext owner, CUdeviceptr out, uint64_t* random) {
  unsigned* values = malloc(kCount * sizeof(unsigned));
  unsigned seed = gpu_random(random);
  for (unsigned i = 0; i < kCount; ++i)
    values[i] = ~patternAt(seed, i);
  writeAll(owner, out, values);

  CUcontext before = NULL, after = NULL;
  CHECK_CU(cuCtxGetCurrent(&before));
  tlc_config config = {0};
  config.grid[0] = (kCount + 127) / 128;
  config.block[0] = 128;
  CHECK_TLC(pattern, pattern_fill_pattern(&config, (unsigned*)out, seed, kCount));
  CHECK_CU(cuCtxGetCurrent(&after));
  gpu_expect(after == before, "%s: the current context is unchanged by the launch", caller);
  int wrong = countWrong(owner, out, seed, values);
  gpu_expect(wrong == 0, "%s: every output right (%d of %d wrong)", caller, wrong, kCount);
  free(values);
}

static CUdeviceptr allocateIn(CUcontext context) {
  CUdeviceptr out;
  CHECK_CU(cuCtxPushCurrent(context));
  CHECK_CU(cuMemAlloc(&out, kCount * sizeof(unsigned)));
  CHECK_CU(cuCtxPopCurrent(NULL));
  return out;
}

static CUcontext createContext(CUdevice device) {
  CUcontext own;
#if CUDA_VERSION >= 13000
  CHECK_CU(cuCtxCreate(&own, NULL, 0, device));
#else
  CHECK_CU(cuCtxCreate(&own, 0, device));
#endif
  return own;
}

int main(void) {
  uint64_t random = gpu_seed();
  CUdevice device;
  CUcontext primary, current;
  CHECK_CU(cuInit(0));
  CHECK_CU(cuDeviceGet(&device, 0));
  CHECK_CU(cuDevicePrimaryCtxRetain(&primary, device));
  CUdeviceptr inPrimary = allocateIn(primary);

  CHECK_CU(cuCtxGetCurrent(&current));
  if (current)
    gpu_abort(__FILE__, __LINE__, "cuCtxGetCurrent", "a context is current at the start", NULL);
  launchAndCheck("no context current", primary, inPrimary, &random);

  CHECK_CU(cuCtxSetCurrent(primary));
  launchAndCheck("primary context current", primary, inPrimary, &random);

  /* Pushed over the primary context: the stack is [primary, own]. */
  CUcontext own = createContext(device);
  CUdeviceptr inOwn = allocateIn(own);
  launchAndCheck("own context (cuCtxCreate) current", own, inOwn, &random);
  CUcontext popped = NULL;
  CHECK_CU(cuCtxPopCurrent(&popped));
  CHECK_CU(cuCtxGetCurrent(&current));
  gpu_expect(popped == own && current == primary,
             "the context stack is intact: popping the own context leaves the primary current");

  CHECK_CU(cuCtxDestroy(own)); /* frees inOwn with it */
  CHECK_CU(cuMemFree(inPrimary));
  CHECK_CU(cuCtxSetCurrent(NULL));
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  return gpu_finish("context");
}
