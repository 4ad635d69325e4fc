/* test/gpu scalars: kernels without pointer parameters. check_scalars gets nine scalars of
 * mixed sizes (a padded struct among them) and __trap()s unless their digest equals the last
 * argument; count_launch has no parameters at all. They report through __device__ counters
 * that the host reads from the module (tlc_scalars_get_function, cuFuncGetModule).
 *
 * 100 launches with fresh random values must all pass the check and be counted; then one launch
 * with a wrong digest must trap, so that the context's synchronisation fails. That comes last:
 * a trap leaves the context unusable. */
#include "scalars.h"

#include "gpu_test.h"

#include <string.h>

enum { kLaunches = 100, kBlocks = 4, kThreads = 64, kPlainLaunches = 37 };

typedef struct Scalars {
  char c;
  short s;
  int i;
  long long ll;
  float f;
  double d;
  scalars_Mixed m;
  unsigned char u8;
} Scalars;

/* The device's digest (scalars.cu): a multiply-xor over every value's bits. */
static uint64_t digest(uint64_t hash, uint64_t bits) {
  return (hash ^ bits) * 0x100000001b3ull;
}

static uint64_t floatBits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static uint64_t doubleBits(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static uint64_t digestOf(const Scalars* v) {
  uint64_t hash = 0xcbf29ce484222325ull;
  hash = digest(hash, (unsigned char)v->c);
  hash = digest(hash, (unsigned short)v->s);
  hash = digest(hash, (unsigned)v->i);
  hash = digest(hash, (uint64_t)v->ll);
  hash = digest(hash, floatBits(v->f));
  hash = digest(hash, doubleBits(v->d));
  hash = digest(hash, (unsigned char)v->m.c);
  hash = digest(hash, doubleBits(v->m.d));
  hash = digest(hash, (unsigned short)v->m.s);
  hash = digest(hash, v->u8);
  return hash;
}

static Scalars randomScalars(uint64_t* random) {
  Scalars v;
  memset(&v, 0, sizeof v);
  v.c = (char)gpu_random(random);
  v.s = (short)gpu_random(random);
  v.i = (int)(gpu_random(random) << 1 ^ gpu_random(random));
  v.ll = (long long)((uint64_t)gpu_random(random) << 33 ^ (uint64_t)gpu_random(random) << 2);
  v.f = gpu_uniform(random, -1e6f, 1e6f);
  v.d = (double)gpu_random(random) * gpu_uniform(random, -1.0f, 1.0f) / 3.0;
  v.m.c = (char)gpu_random(random);
  v.m.d = -(double)gpu_random(random) / 7.0;
  v.m.s = (short)gpu_random(random);
  v.u8 = (unsigned char)gpu_random(random);
  return v;
}

/* Launches check_scalars with `v` and `expected`: typed, or through launch_kernel. */
static tlc_status launchCheck(const Scalars* v, uint64_t expected, int generic) {
  tlc_config config = {0};
  config.grid[0] = kBlocks;
  config.block[0] = kThreads;
  if (!generic)
    return scalars_check_scalars(&config, v->c, v->s, v->i, v->ll, v->f, v->d, v->m, v->u8,
                                 expected);
  Scalars copy = *v;
  unsigned long long wanted = expected;
  void* args[] = {&copy.c, &copy.s, &copy.i,  &copy.ll, &copy.f,
                  &copy.d, &copy.m, &copy.u8, &wanted};
  return tlc_scalars_launch_kernel(&config, TLC_SCALARS_KERNEL_check_scalars, args);
}

/* The device address of a __device__ variable of the module, found through its functions. */
static CUdeviceptr moduleGlobal(const char* name) {
  CUfunction function;
  CUmodule module;
  CUdeviceptr address;
  size_t size = 0;
  CHECK_TLC(scalars, tlc_scalars_get_function(TLC_SCALARS_KERNEL_count_launch, 0, &function));
  CHECK_CU(cuFuncGetModule(&module, function));
  CHECK_CU(cuModuleGetGlobal(&address, &size, module, name));
  if (size != sizeof(unsigned long long))
    gpu_abort(__FILE__, __LINE__, name, "unexpected size", NULL);
  return address;
}

/* Sets a counter to a random start (so a launch that never ran cannot look counted). */
static unsigned long long startCounter(CUdeviceptr counter, uint64_t* random) {
  unsigned long long start = (unsigned long long)gpu_random(random) << 20;
  CHECK_CU(cuMemcpyHtoD(counter, &start, sizeof start));
  return start;
}

static unsigned long long readCounter(CUdeviceptr counter) {
  unsigned long long value = 0;
  CHECK_CU(cuMemcpyDtoH(&value, counter, sizeof value));
  return value;
}

static void checkMatchingScalars(uint64_t* random) {
  CUdeviceptr checked = moduleGlobal("g_blocks_checked");
  unsigned long long start = startCounter(checked, random);
  for (int launch = 0; launch < kLaunches; ++launch) {
    Scalars v = randomScalars(random);
    CHECK_TLC(scalars, launchCheck(&v, digestOf(&v), launch % 5 == 4));
  }
  CUresult result = cuCtxSynchronize();
  gpu_expect(result == CUDA_SUCCESS, "%d launches with matching scalars ran without a trap",
             kLaunches);
  CHECK_CU(result);
  unsigned long long counted = readCounter(checked) - start;
  gpu_expect(counted == (unsigned long long)kLaunches * kBlocks,
             "every block of every launch checked its scalars (%llu of %d)", counted,
             kLaunches * kBlocks);
}

static void checkNoParameters(uint64_t* random) {
  CUdeviceptr launches = moduleGlobal("g_plain_launches");
  unsigned long long start = startCounter(launches, random);
  tlc_config config = {0};
  config.grid[0] = 3;
  config.block[0] = 32;
  for (int launch = 0; launch < kPlainLaunches; ++launch) {
    if (launch % 2)
      CHECK_TLC(scalars, tlc_scalars_launch_kernel(&config, TLC_SCALARS_KERNEL_count_launch, NULL));
    else
      CHECK_TLC(scalars, scalars_count_launch(&config));
  }
  CHECK_CU(cuCtxSynchronize());
  unsigned long long counted = readCounter(launches) - start;
  gpu_expect(counted == kPlainLaunches, "a kernel without parameters ran %llu of %d times", counted,
             kPlainLaunches);
}

/* A wrong digest must trap. Leaves the context unusable. */
static void checkTrap(uint64_t* random) {
  Scalars v = randomScalars(random);
  CHECK_TLC(scalars, launchCheck(&v, digestOf(&v) ^ 1u, 0));
  CUresult result = cuCtxSynchronize();
  const char* name = NULL;
  cuGetErrorName(result, &name);
  gpu_expect(result != CUDA_SUCCESS, "a launch with a wrong digest traps (synchronize: %s)",
             name ? name : "?");
}

int main(void) {
  uint64_t random = gpu_seed();
  gpu_use_primary_context(0); /* not released: the trap leaves the context unusable */

  checkMatchingScalars(&random);
  checkNoParameters(&random);
  checkTrap(&random);
  return gpu_finish("scalars");
}
