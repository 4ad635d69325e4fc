/* test/gpu no_binary: the same kernel (pattern.cu) in two modules. pattern_sm80 was built for
 * sm_80 alone, a cubin this device cannot run unless it is a compute capability 8.x: loading
 * and launching must fail with TLC_ERROR_NO_BINARY and a message that names the device's compute
 * capability, every time it is tried. pattern_fat is a fatbin for sm_80 and the suite's target
 * (argv[1], e.g. sm_90a) and must run correctly.
 *
 * usage: no_binary TARGET-ARCH */
#include "pattern_fat.h"
#include "pattern_sm80.h"

#include "gpu_test.h"

#include <string.h>

enum { kCount = 77777 };

static unsigned patternAt(unsigned seed, unsigned i) {
  return (seed ^ i) * 2654435761u + 0x9e3779b9u;
}

/* "sm_90a" -> 90; 0 if `arch` is not of that form. */
static int archNumber(const char* arch) {
  int number = 0;
  return sscanf(arch, "sm_%d", &number) == 1 ? number : 0;
}

static void expectNoBinary(const char* what, tlc_status status, int major, int minor) {
  char capability[64];
  snprintf(capability, sizeof capability, "compute capability %d.%d", major, minor);
  const char* message = tlc_pattern_sm80_last_error();
  gpu_expect(status == TLC_ERROR_NO_BINARY && strstr(message, capability) &&
                 strstr(message, "sm_80"),
             "%s: %s, naming %s and sm_80 (%s)", what, tlc_pattern_sm80_status_string(status),
             capability, message);
}

static void checkSm80Only(CUdeviceptr out, int major, int minor) {
  if (major == 8) {
    printf("SKIP: a compute capability %d.%d device runs sm_80 code\n", major, minor);
    return;
  }
  expectNoBinary("tlc_pattern_sm80_load(0)", tlc_pattern_sm80_load(0), major, minor);
  tlc_config config = {0};
  config.grid[0] = 1;
  config.block[0] = 32;
  expectNoBinary("a launch after that", pattern_sm80_fill_pattern(&config, (unsigned*)out, 1u, 32),
                 major, minor);
  expectNoBinary("tlc_pattern_sm80_load(0) again", tlc_pattern_sm80_load(0), major, minor);
}

static void checkFatbin(CUdeviceptr out, uint64_t* random) {
  unsigned* values = malloc(kCount * sizeof(unsigned));
  unsigned seed = gpu_random(random);
  for (unsigned i = 0; i < kCount; ++i)
    values[i] = ~patternAt(seed, i);
  CHECK_CU(cuMemcpyHtoD(out, values, kCount * sizeof(unsigned)));
  tlc_config config = {0};
  config.grid[0] = (kCount + 255) / 256;
  config.block[0] = 256;
  CHECK_TLC(pattern_fat, pattern_fat_fill_pattern(&config, (unsigned*)out, seed, kCount));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(values, out, kCount * sizeof(unsigned)));
  int wrong = 0;
  for (unsigned i = 0; i < kCount; ++i)
    wrong += values[i] != patternAt(seed, i);
  gpu_expect(wrong == 0, "the sm_80 + target fatbin runs, every output right (%d of %d wrong)",
             wrong, kCount);
  free(values);
}

int main(int argc, char** argv) {
  if (argc != 2 || !archNumber(argv[1])) {
    fprintf(stderr, "usage: %s TARGET-ARCH (e.g. sm_90a)\n", argv[0]);
    return 2;
  }
  uint64_t random = gpu_seed();
  CUdevice device = gpu_use_primary_context(0);
  int major = 0, minor = 0;
  CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  CUdeviceptr out;
  CHECK_CU(cuMemAlloc(&out, kCount * sizeof(unsigned)));

  checkSm80Only(out, major, minor);
  if (major == 8 || major * 10 + minor == archNumber(argv[1]))
    checkFatbin(out, &random);
  else
    printf("SKIP: the fatbin holds sm_80 and %s, neither for compute capability %d.%d\n", argv[1],
           major, minor);

  CHECK_CU(cuMemFree(out));
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  return gpu_finish("no_binary");
}
