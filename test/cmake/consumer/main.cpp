// The consumer's C++ program: the same checks as main.c, from C++, finding the kernel by name and
// launching it through the generic entry point (main.c uses the kernel's own launcher).
#include "consumer_kernels.h"
#include "consumer_params.h"
#include "driver.h"

#include <cstdio>
#include <vector>

int main() {
  const int n = 1000, scale = 5;
  int kernel = -1;
  if (tlc_consumer_kernels_find_kernel("fill", &kernel) != TLC_SUCCESS || kernel != 0) {
    std::fprintf(stderr, "C++: find_kernel(\"fill\"): %s\n", tlc_consumer_kernels_last_error());
    return 1;
  }
  std::printf("C++: found fill as kernel %d (%s); block %d\n", kernel,
              tlc_consumer_kernels_kernel_name(kernel), CONSUMER_BLOCK);
  tlc_status status = tlc_consumer_kernels_load(0);
  std::printf("C++: tlc_consumer_kernels_load(0): %s\n",
              tlc_consumer_kernels_status_string(status));
  if (status == TLC_ERROR_NO_DRIVER || status == TLC_ERROR_NO_DEVICE)
    return 0; // built and linked; nothing to run here
  if (status != TLC_SUCCESS) {
    std::fprintf(stderr, "C++: %s\n", tlc_consumer_kernels_last_error());
    return 1;
  }

  consumer_driver driver;
  CUdeviceptr out = 0;
  if (consumer_driver_open(&driver) != 0 || driver.memAlloc(&out, n * sizeof(int)) != CUDA_SUCCESS)
    return 1;
  tlc_config config = {};
  config.grid[0] = (n + CONSUMER_BLOCK - 1) / CONSUMER_BLOCK;
  config.block[0] = CONSUMER_BLOCK;
  int* pointer = reinterpret_cast<int*>(out);
  int count = n, factor = scale;
  void* args[] = {&pointer, &count, &factor};
  status = tlc_consumer_kernels_launch_kernel(&config, kernel, args);
  if (status != TLC_SUCCESS) {
    std::fprintf(stderr, "C++: tlc_consumer_kernels_launch_kernel: %s\n",
                 tlc_consumer_kernels_last_error());
    return 1;
  }
  std::vector<int> host(n);
  if (driver.ctxSynchronize() != CUDA_SUCCESS ||
      driver.memcpyDtoH(host.data(), out, n * sizeof(int)) != CUDA_SUCCESS) {
    std::fprintf(stderr, "C++: the launch or the copy back failed\n");
    return 1;
  }
  int errors = 0;
  for (int i = 0; i < n; ++i)
    if (host[i] != i * scale + CONSUMER_OFFSET && errors++ < 5)
      std::fprintf(stderr, "C++: out[%d] = %d, expected %d\n", i, host[i],
                   i * scale + CONSUMER_OFFSET);
  std::printf("C++: fill checked on the GPU: %s\n", errors ? "WRONG" : "ok");
  driver.memFree(out);
  return errors ? 1 : 0;
}
