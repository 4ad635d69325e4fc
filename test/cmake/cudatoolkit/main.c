/* Links the launcher library and CUDA::cudart from FindCUDAToolkit: both headers and both
   libraries in one program. */
#include "ctk_kernels.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void) {
  int runtimeVersion = 0;
  tlc_status status;
  if (cudaRuntimeGetVersion(&runtimeVersion) != cudaSuccess || runtimeVersion < 12000) {
    fprintf(stderr, "cudaRuntimeGetVersion gave %d\n", runtimeVersion);
    return 1;
  }
  if (tlc_ctk_kernels_kernel_count() != 1) {
    fprintf(stderr, "expected one kernel\n");
    return 1;
  }
  status = tlc_ctk_kernels_load(0);
  printf("tlc_ctk_kernels_load(0): %s\n", tlc_ctk_kernels_status_string(status));
  if (status != TLC_SUCCESS && status != TLC_ERROR_NO_DRIVER && status != TLC_ERROR_NO_DEVICE) {
    fprintf(stderr, "%s\n", tlc_ctk_kernels_last_error());
    return 1;
  }
  return 0;
}
