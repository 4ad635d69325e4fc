/* test/gpu two_devices: one process launching on devices 0 and 1 (config.device), each into
 * memory of its own primary context, launches interleaved, with device 0's primary context
 * current throughout: the launcher must switch to device 1's context for its launches and back.
 * Both devices' outputs are checked. With one device: "SKIP: one device", and a pass. */
#include "pattern.h"

#include "gpu_test.h"

enum { kDevices = 2, kCount = 65599, kRounds = 4 };

static unsigned patternAt(unsigned seed, unsigned i) {
  return (seed ^ i) * 2654435761u + 0x9e3779b9u;
}

typedef struct Device {
  CUdevice device;
  CUcontext primary;
  CUdeviceptr out;
  unsigned seed;
} Device;

static void setUp(Device* d, int ordinal) {
  CHECK_CU(cuDeviceGet(&d->device, ordinal));
  CHECK_CU(cuDevicePrimaryCtxRetain(&d->primary, d->device));
  CHECK_CU(cuCtxPushCurrent(d->primary));
  CHECK_CU(cuMemAlloc(&d->out, kCount * sizeof(unsigned)));
  CHECK_CU(cuCtxPopCurrent(NULL));
}

/* Poisons the device's output and launches the pattern for a fresh seed on it. */
static void launchOn(Device* d, int ordinal, unsigned* values, uint64_t* random) {
  d->seed = gpu_random(random);
  for (unsigned i = 0; i < kCount; ++i)
    values[i] = ~patternAt(d->seed, i);
  CHECK_CU(cuCtxPushCurrent(d->primary));
  CHECK_CU(cuMemcpyHtoD(d->out, values, kCount * sizeof(unsigned)));
  CHECK_CU(cuCtxPopCurrent(NULL));
  tlc_config config = {0};
  config.grid[0] = (kCount + 255) / 256;
  config.block[0] = 256;
  config.device = ordinal;
  CHECK_TLC(pattern, pattern_fill_pattern(&config, (unsigned*)d->out, d->seed, kCount));
}

static int countWrong(Device* d, unsigned* values) {
  CHECK_CU(cuCtxPushCurrent(d->primary));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(values, d->out, kCount * sizeof(unsigned)));
  CHECK_CU(cuCtxPopCurrent(NULL));
  int wrong = 0;
  for (unsigned i = 0; i < kCount; ++i)
    wrong += values[i] != patternAt(d->seed, i);
  return wrong;
}

int main(void) {
  int count = 0;
  CHECK_CU(cuInit(0));
  CHECK_CU(cuDeviceGetCount(&count));
  if (count < kDevices) {
    printf("SKIP: two_devices needs %d devices, this host has %d\n", kDevices, count);
    return 77; /* skipped, as CTest and scripts/gpu-test read it */
  }
  uint64_t random = gpu_seed();
  Device devices[kDevices];
  for (int ordinal = 0; ordinal < kDevices; ++ordinal)
    setUp(&devices[ordinal], ordinal);
  CHECK_CU(cuCtxSetCurrent(devices[0].primary));

  unsigned* values = malloc(kCount * sizeof(unsigned));
  int wrong[kDevices] = {0};
  for (int round = 0; round < kRounds; ++round) {
    for (int ordinal = 0; ordinal < kDevices; ++ordinal)
      launchOn(&devices[ordinal], ordinal, values, &random);
    for (int ordinal = 0; ordinal < kDevices; ++ordinal)
      wrong[ordinal] += countWrong(&devices[ordinal], values);
  }
  CUcontext current = NULL;
  CHECK_CU(cuCtxGetCurrent(&current));
  for (int ordinal = 0; ordinal < kDevices; ++ordinal)
    gpu_expect(wrong[ordinal] == 0, "device %d: %d launches, every output right (%d wrong)",
               ordinal, kRounds, wrong[ordinal]);
  gpu_expect(current == devices[0].primary, "device 0's primary context is still current");

  free(values);
  CHECK_CU(cuCtxSetCurrent(NULL));
  for (int ordinal = 0; ordinal < kDevices; ++ordinal) {
    CHECK_CU(cuCtxPushCurrent(devices[ordinal].primary));
    CHECK_CU(cuMemFree(devices[ordinal].out));
    CHECK_CU(cuCtxPopCurrent(NULL));
    CHECK_CU(cuDevicePrimaryCtxRelease(devices[ordinal].device));
  }
  return gpu_finish("two_devices");
}
