/* test/gpu cooperative: a cooperative launch (config.cooperative = 1) of a kernel that needs
 * grid.sync(): every block must see every other block's partial sum. Checked with one block per
 * multiprocessor and with the largest grid that can be co-resident; one block more than that
 * must be refused by the driver (TLC_ERROR_LAUNCH), and the device must work on after that. */
#include "cooperative.h"

#include "gpu_test.h"

#include <string.h>

enum { kThreads = 256, kCount = (1 << 22) + 5 };

typedef struct Buffers {
  unsigned* in;
  CUdeviceptr din, dpartial, dtotals;
  unsigned maxBlocks;
} Buffers;

static tlc_config configFor(unsigned blocks) {
  tlc_config config = {0};
  config.grid[0] = blocks;
  config.block[0] = kThreads;
  config.cooperative = 1;
  return config;
}

/* Fills `values` with a pattern no correct result has (every word 0xa5a5a5a5 plus its index). */
static void poison(CUdeviceptr values, unsigned count) {
  unsigned* host = malloc(count * sizeof(unsigned));
  for (unsigned i = 0; i < count; ++i)
    host[i] = 0xa5a5a5a5u + i;
  CHECK_CU(cuMemcpyHtoD(values, host, count * sizeof(unsigned)));
  free(host);
}

/* The kernel's grid-stride loop gives element i to block (i mod threads-in-grid) / kThreads. */
static void expectedSums(const unsigned* in, unsigned blocks, unsigned* partial, unsigned* total) {
  memset(partial, 0, blocks * sizeof(unsigned));
  *total = 0;
  unsigned long long gridThreads = (unsigned long long)blocks * kThreads;
  for (unsigned i = 0; i < kCount; ++i) {
    partial[(i % gridThreads) / kThreads] += in[i];
    *total += in[i];
  }
}

static void checkGrid(const char* what, unsigned blocks, Buffers* b, uint64_t* random) {
  for (unsigned i = 0; i < kCount; ++i)
    b->in[i] = gpu_random(random) ^ (gpu_random(random) << 16);
  CHECK_CU(cuMemcpyHtoD(b->din, b->in, kCount * sizeof(unsigned)));
  poison(b->dpartial, blocks);
  poison(b->dtotals, blocks);

  tlc_config config = configFor(blocks);
  CHECK_TLC(cooperative, cooperative_sum_everywhere(&config, (const unsigned*)b->din, kCount,
                                                    (unsigned*)b->dpartial, (unsigned*)b->dtotals));
  CHECK_CU(cuCtxSynchronize());

  unsigned* partial = malloc(blocks * sizeof(unsigned));
  unsigned* totals = malloc(blocks * sizeof(unsigned));
  unsigned* wantPartial = malloc(blocks * sizeof(unsigned));
  unsigned wantTotal = 0;
  CHECK_CU(cuMemcpyDtoH(partial, b->dpartial, blocks * sizeof(unsigned)));
  CHECK_CU(cuMemcpyDtoH(totals, b->dtotals, blocks * sizeof(unsigned)));
  expectedSums(b->in, blocks, wantPartial, &wantTotal);
  unsigned wrong = 0;
  for (unsigned block = 0; block < blocks; ++block)
    wrong += partial[block] != wantPartial[block] || totals[block] != wantTotal;
  gpu_expect(wrong == 0, "%s: %u blocks, each saw the sum over all blocks (%u wrong)", what, blocks,
             wrong);
  free(partial);
  free(totals);
  free(wantPartial);
}

static void checkTooLarge(Buffers* b) {
  tlc_config config = configFor(b->maxBlocks + 1);
  tlc_status status = cooperative_sum_everywhere(&config, (const unsigned*)b->din, kCount,
                                                 (unsigned*)b->dpartial, (unsigned*)b->dtotals);
  gpu_expect(status == TLC_ERROR_LAUNCH &&
                 strstr(tlc_cooperative_last_error(), "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"),
             "%u blocks (one more than fit) are refused (%s: %s)", b->maxBlocks + 1,
             tlc_cooperative_status_string(status), tlc_cooperative_last_error());
}

int main(void) {
  uint64_t random = gpu_seed();
  CUdevice device = gpu_use_primary_context(0);

  int multiprocessors = 0, perMultiprocessor = 0;
  CUfunction function;
  CHECK_CU(
      cuDeviceGetAttribute(&multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  CHECK_TLC(cooperative,
            tlc_cooperative_get_function(TLC_COOPERATIVE_KERNEL_sum_everywhere, 0, &function));
  CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, function, kThreads, 0));
  printf("info: %d multiprocessors, %d blocks of %d threads each\n", multiprocessors,
         perMultiprocessor, kThreads);

  Buffers b;
  b.maxBlocks = (unsigned)(multiprocessors * perMultiprocessor);
  b.in = malloc(kCount * sizeof(unsigned));
  CHECK_CU(cuMemAlloc(&b.din, kCount * sizeof(unsigned)));
  CHECK_CU(cuMemAlloc(&b.dpartial, (b.maxBlocks + 1) * sizeof(unsigned)));
  CHECK_CU(cuMemAlloc(&b.dtotals, (b.maxBlocks + 1) * sizeof(unsigned)));

  checkGrid("one block per multiprocessor", (unsigned)multiprocessors, &b, &random);
  checkTooLarge(&b);
  checkGrid("the largest co-resident grid", b.maxBlocks, &b, &random);

  CHECK_CU(cuMemFree(b.din));
  CHECK_CU(cuMemFree(b.dpartial));
  CHECK_CU(cuMemFree(b.dtotals));
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  free(b.in);
  return gpu_finish("cooperative");
}
