/* test/gpu debug_lines: launches the two kernels of a -G module (test/gpu/debug_lines/, built in
 * that folder with -I inc) and checks their results. scripts/gpu-test runs it under cuda-gdb too,
 * from the project's folder, with a breakpoint in the header: the line table must name files the
 * debugger opens (issue 36). */
#include "lines.h"

#include "gpu_test.h"

enum { kCount = 1000 };

int main(void) {
  gpu_use_primary_context(0);
  float host[kCount], back[kCount];
  for (int i = 0; i < kCount; ++i)
    host[i] = (float)i;
  CUdeviceptr device;
  CHECK_CU(cuMemAlloc(&device, sizeof host));
  CHECK_CU(cuMemcpyHtoD(device, host, sizeof host));
  tlc_config config = {0};
  config.grid[0] = (kCount + 127) / 128;
  config.block[0] = 128;
  CHECK_TLC(lines, lines_scale(&config, (float*)device, kCount));
  CHECK_TLC(lines, lines_shift(&config, (float*)device, kCount, 3.0f));
  CHECK_CU(cuMemcpyDtoH(back, device, sizeof back));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i)
    wrong += back[i] != 2.0f * (0.5f * (2.0f * host[i] + 1.0f)) + 3.0f;
  gpu_expect(wrong == 0, "%d of %d results differ", wrong, kCount);
  CHECK_CU(cuMemFree(device));
  return gpu_finish("debug_lines");
}
