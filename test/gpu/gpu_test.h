/* test/gpu: what every GPU test's host program shares. C99 and C++17.
 *
 * A test prints one "PASS: ..." or "FAIL: ..." line per check and exits non-zero if any check
 * failed; where it cannot run it prints "SKIP: ..." and exits 77. A failed CUDA or tlc call
 * ends the program at once: what follows would only report consequences of it. Include
 * cuda_runtime.h before this header to get CHECK_RT as well. */
#ifndef TLC_GPU_TEST_H
#define TLC_GPU_TEST_H

#include <cuda.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The number of failed checks so far, in a function so that the header defines no variable. */
static inline int* gpu_failures(void) {
  static int failures;
  return &failures;
}

/* Prints a PASS or FAIL line for one check; returns `ok`. */
static inline int gpu_expect(int ok, const char* format, ...) __attribute__((format(printf, 2, 3)));
static inline int gpu_expect(int ok, const char* format, ...) {
  va_list args;
  va_start(args, format);
  printf("%s: ", ok ? "PASS" : "FAIL");
  vprintf(format, args);
  printf("\n");
  va_end(args);
  fflush(stdout);
  if (!ok)
    ++*gpu_failures();
  return ok;
}

/* The exit status of main: 0 when every check passed. */
static inline int gpu_finish(const char* test) {
  int failures = *gpu_failures();
  printf("%s: %s (%d failed check%s)\n", failures ? "FAIL" : "PASS", test, failures,
         failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}

static inline void gpu_abort(const char* file, int line, const char* call, const char* what,
                             const char* detail) {
  printf("FAIL: %s:%d: %s -> %s%s%s\n", file, line, call, what, detail ? ": " : "",
         detail ? detail : "");
  fflush(stdout);
  exit(1);
}

static inline void gpu_check_cu(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS)
    return;
  const char* name = NULL;
  const char* text = NULL;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  gpu_abort(file, line, call, name ? name : "unknown CUresult", text);
}

/* A CUDA driver call that must succeed. */
#define CHECK_CU(call) gpu_check_cu((call), #call, __FILE__, __LINE__)

/* cuInit, then device `ordinal`'s primary context retained and made current, as the CUDA runtime
 * would; returns the device. The test releases the context (cuDevicePrimaryCtxRelease) at the end.
 */
static inline CUdevice gpu_use_primary_context(int ordinal) {
  CUdevice device;
  CUcontext primary;
  CHECK_CU(cuInit(0));
  CHECK_CU(cuDeviceGet(&device, ordinal));
  CHECK_CU(cuDevicePrimaryCtxRetain(&primary, device));
  CHECK_CU(cuCtxSetCurrent(primary));
  return device;
}

/* A call into the generated library `module` that must succeed; reports its last_error(). */
#define CHECK_TLC(module, call)                                                                    \
  do {                                                                                             \
    tlc_status status_ = (call);                                                                   \
    if (status_ != TLC_SUCCESS)                                                                    \
      gpu_abort(__FILE__, __LINE__, #call, tlc_##module##_status_string(status_),                  \
                tlc_##module##_last_error());                                                      \
  } while (0)

#ifdef CUDART_VERSION
static inline void gpu_check_rt(cudaError_t error, const char* call, const char* file, int line) {
  if (error != cudaSuccess)
    gpu_abort(file, line, call, cudaGetErrorName(error), cudaGetErrorString(error));
}

/* A CUDA runtime call that must succeed. */
#define CHECK_RT(call) gpu_check_rt((call), #call, __FILE__, __LINE__)
#endif

/* A fresh seed per run (TLC_GPU_SEED repeats one), printed so that a failure can be replayed. */
static inline unsigned gpu_seed(void) {
  const char* fixed = getenv("TLC_GPU_SEED");
  unsigned seed = fixed && *fixed ? (unsigned)strtoul(fixed, NULL, 0)
                                  : (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
  printf("seed %u (set TLC_GPU_SEED to repeat)\n", seed);
  return seed;
}

/* A small generator for C tests: rand() has too few bits and is shared between threads. */
static inline uint32_t gpu_random(uint64_t* state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*state >> 33); /* 31 bits */
}

/* A float in [low, high). */
static inline float gpu_uniform(uint64_t* state, float low, float high) {
  return low + (high - low) * (float)(gpu_random(state) / 2147483648.0);
}

#endif /* TLC_GPU_TEST_H */
