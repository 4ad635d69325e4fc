/* test/gpu targets: which code of an image a device runs, on a real GPU (issue 12's and 10's GPU
 * checks). The kernel of pattern.cu in four modules, and arch_specific.cu's kernels in one:
 *
 *   pattern_sm80     --gencode arch=compute_80,code=sm_80: SASS for sm_80 alone. Unless the
 *                    device is an 8.x, loading and launching give TLC_ERROR_NO_BINARY, every time,
 *                    with a message naming the device's compute capability, what the image holds
 *                    and the --arch to rebuild with.
 *   pattern_fat      --arch sm_80 --arch TARGET: runs, on TARGET's SASS.
 *   pattern_ptx      --arch compute_80: PTX only; the driver JIT-compiles it, and it runs.
 *   pattern_default  no --arch: nvcc's default (sm_75 and its PTX); runs on any newer GPU.
 *   arch_kernels     arch_specific.cu, --arch sm_80 --arch TARGET: `everywhere` and
 *                    `hopper_and_newer` run on a 9.x; `before_hopper`, which the sm_90a code lacks,
 *                    gives TLC_ERROR_NO_BINARY naming the kernel.
 *
 * usage: targets TARGET-ARCH (e.g. sm_90a) */
#include "arch_kernels.h"
#include "pattern_default.h"
#include "pattern_fat.h"
#include "pattern_ptx.h"
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

static int contains(const char* text, const char* part) {
  return strstr(text, part) != NULL;
}

static void expectNoBinary(const char* what, tlc_status status, int major, int minor) {
  char capability[64], rebuild[64];
  snprintf(capability, sizeof capability, "compute capability %d.%d", major, minor);
  snprintf(rebuild, sizeof rebuild, "rebuild with --arch sm_%d%d", major, minor);
  const char* message = tlc_pattern_sm80_last_error();
  gpu_expect(status == TLC_ERROR_NO_BINARY && contains(message, capability) &&
                 contains(message, "sm_80 (SASS)") && contains(message, rebuild),
             "%s: %s, naming %s, sm_80 (SASS) and '%s' (%s)", what,
             tlc_pattern_sm80_status_string(status), capability, rebuild, message);
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

typedef tlc_status (*FillPattern)(const tlc_config*, unsigned*, unsigned, int);

/* Launches `fill` over kCount elements and checks every one. */
static void checkRuns(const char* module, FillPattern fill, const char* (*lastError)(void),
                      CUdeviceptr out, unsigned seed) {
  unsigned* values = malloc(kCount * sizeof(unsigned));
  for (unsigned i = 0; i < kCount; ++i)
    values[i] = ~patternAt(seed, i);
  CHECK_CU(cuMemcpyHtoD(out, values, kCount * sizeof(unsigned)));
  tlc_config config = {0};
  config.grid[0] = (kCount + 255) / 256;
  config.block[0] = 256;
  tlc_status status = fill(&config, (unsigned*)out, seed, kCount);
  if (!gpu_expect(status == TLC_SUCCESS, "%s: the launch succeeds (%s)", module,
                  status == TLC_SUCCESS ? "" : lastError())) {
    free(values);
    return;
  }
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(values, out, kCount * sizeof(unsigned)));
  int wrong = 0;
  for (unsigned i = 0; i < kCount; ++i)
    wrong += values[i] != patternAt(seed, i);
  gpu_expect(wrong == 0, "%s: every output right (%d of %d wrong)", module, wrong, kCount);
  free(values);
}

/* Takes the status and the target apart: a call and a read of its result in one argument list
 * would be evaluated in an unspecified order. */
static void expectTarget(const char* module, tlc_status status, const char* target,
                         const char* expected) {
  gpu_expect(status == TLC_SUCCESS && target && strcmp(target, expected) == 0,
             "%s: the device runs %s (image_target says %s)", module, expected,
             status == TLC_SUCCESS && target ? target : "an error");
}

static void checkArchKernels(CUdeviceptr out, int major, int minor, int target) {
  if (major != 9 || major * 10 + minor != target) {
    printf("SKIP: arch_kernels expects a 9.x device running the target's SASS\n");
    return;
  }
  tlc_config config = {0};
  config.grid[0] = 1;
  config.block[0] = 1;
  int value = 0;
  CHECK_TLC(arch_kernels, arch_kernels_everywhere(&config, (int*)out));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(&value, out, sizeof value));
  gpu_expect(value == 1, "arch_kernels: everywhere ran (wrote %d)", value);
  CHECK_TLC(arch_kernels, arch_kernels_hopper_and_newer(&config, (int*)out));
  CHECK_CU(cuCtxSynchronize());
  CHECK_CU(cuMemcpyDtoH(&value, out, sizeof value));
  gpu_expect(value == 2, "arch_kernels: hopper_and_newer ran (wrote %d)", value);
  tlc_status status = arch_kernels_before_hopper(&config, (int*)out);
  const char* message = tlc_arch_kernels_last_error();
  gpu_expect(status == TLC_ERROR_NO_BINARY && contains(message, "before_hopper") &&
                 contains(message, "only for other targets"),
             "arch_kernels: before_hopper is TLC_ERROR_NO_BINARY naming it (%s)", message);
}

int main(int argc, char** argv) {
  int target = argc == 2 ? archNumber(argv[1]) : 0;
  if (!target) {
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
  const char* running = NULL;
  tlc_status status;

  checkSm80Only(out, major, minor);

  if (major == 8 || major * 10 + minor == target) {
    checkRuns("pattern_fat", pattern_fat_fill_pattern, tlc_pattern_fat_last_error, out,
              gpu_random(&random));
    status = tlc_pattern_fat_image_target(0, &running);
    expectTarget("pattern_fat", status, running, major == 8 ? "sm_80" : argv[1]);
  } else {
    printf("SKIP: pattern_fat holds sm_80 and %s, neither for compute capability %d.%d\n", argv[1],
           major, minor);
  }

  if (major * 10 + minor >= 80) {
    checkRuns("pattern_ptx", pattern_ptx_fill_pattern, tlc_pattern_ptx_last_error, out,
              gpu_random(&random));
    status = tlc_pattern_ptx_image_target(0, &running);
    expectTarget("pattern_ptx", status, running, "compute_80");
  }

  if (major * 10 + minor > 75 && major != 7) {
    checkRuns("pattern_default", pattern_default_fill_pattern, tlc_pattern_default_last_error, out,
              gpu_random(&random));
    status = tlc_pattern_default_image_target(0, &running);
    expectTarget("pattern_default", status, running, "compute_75");
  }

  checkArchKernels(out, major, minor, target);

  CHECK_CU(cuMemFree(out));
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  return gpu_finish("targets");
}
