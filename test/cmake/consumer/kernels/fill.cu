// The consumer's kernel. CONSUMER_BLOCK comes from a header of the project's own (found through
// INCLUDE_DIRECTORIES), CONSUMER_OFFSET from COMPILE_DEFINITIONS.
#include "consumer_params.h"

__global__ void __launch_bounds__(CONSUMER_BLOCK) fill(int* out, int n, int scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i * scale + CONSUMER_OFFSET;
}
