/* The consumer's C program: loads the launcher library built by tlc_add_launcher_library and, where
   a GPU is present, launches `fill` and checks what it wrote. Exits 0 when that worked, or when
   there is no driver or no device (the status is printed either way), 1 otherwise. */
#include "consumer_kernels.h"
#include "consumer_params.h"
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  enum { N = 1000, SCALE = 3 };
  consumer_driver driver;
  tlc_config config = {0};
  CUdeviceptr out = 0;
  int* host;
  int i, errors = 0;
  tlc_status status;

  printf("C: %d kernel(s), the first is %s; block %d\n", tlc_consumer_kernels_kernel_count(),
         tlc_consumer_kernels_kernel_name(0), CONSUMER_BLOCK);
  status = tlc_consumer_kernels_load(0);
  printf("C: tlc_consumer_kernels_load(0): %s\n", tlc_consumer_kernels_status_string(status));
  if (status == TLC_ERROR_NO_DRIVER || status == TLC_ERROR_NO_DEVICE)
    return 0; /* built and linked; nothing to run here */
  if (status != TLC_SUCCESS) {
    fprintf(stderr, "C: %s\n", tlc_consumer_kernels_last_error());
    return 1;
  }

  if (consumer_driver_open(&driver) != 0 || driver.memAlloc(&out, N * sizeof(int)) != CUDA_SUCCESS)
    return 1;
  config.grid[0] = (N + CONSUMER_BLOCK - 1) / CONSUMER_BLOCK;
  config.block[0] = CONSUMER_BLOCK;
  status = consumer_kernels_fill(&config, (int*)out, N, SCALE);
  if (status != TLC_SUCCESS) {
    fprintf(stderr, "C: consumer_kernels_fill: %s\n", tlc_consumer_kernels_last_error());
    return 1;
  }
  host = (int*)malloc(N * sizeof(int));
  if (!host || driver.ctxSynchronize() != CUDA_SUCCESS ||
      driver.memcpyDtoH(host, out, N * sizeof(int)) != CUDA_SUCCESS) {
    fprintf(stderr, "C: the launch or the copy back failed\n");
    return 1;
  }
  for (i = 0; i < N; ++i)
    if (host[i] != i * SCALE + CONSUMER_OFFSET && errors++ < 5)
      fprintf(stderr, "C: out[%d] = %d, expected %d\n", i, host[i], i * SCALE + CONSUMER_OFFSET);
  printf("C: fill checked on the GPU: %s\n", errors ? "WRONG" : "ok");
  free(host);
  driver.memFree(out);
  return errors ? 1 : 0;
}
