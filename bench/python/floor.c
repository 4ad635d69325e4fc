/* bench/python's floor: bursts of launches made from C, so that no Python runs between them.
 * bench.py calls each function once per burst through ctypes and divides the time it reports.
 *   tlc_bench_driver_burst    cuLaunchKernel on a CUfunction with an argument array prepared
 *                             once: the driver's cost, what every launch path pays at least
 *   tlc_bench_launcher_burst  tlc's C launcher (pylaunch_empty4), as a C program calls it
 * Built by scripts/gpu-test (prepare) against CUDA's headers and driver stub. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */

#include "pylaunch.h"

#include <cuda.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds for `count` launches of empty4(in, out, n, scale) on `stream`; -1 if one failed. */
double tlc_bench_driver_burst(CUfunction function, CUstream stream, CUdeviceptr in, CUdeviceptr out,
                              int n, float scale, int count) {
  void* args[] = {&in, &out, &n, &scale};
  double start = now();
  for (int i = 0; i < count; ++i)
    if (cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL) != CUDA_SUCCESS)
      return -1.0;
  return now() - start;
}

double tlc_bench_launcher_burst(CUstream stream, const float* in, float* out, int n, float scale,
                                int count) {
  tlc_config config = {0};
  config.size = sizeof config;
  config.grid[0] = 1;
  config.block[0] = 32;
  config.stream = stream;
  double start = now();
  for (int i = 0; i < count; ++i)
    if (pylaunch_empty4(&config, in, out, n, scale) != TLC_SUCCESS)
      return -1.0;
  return now() - start;
}
