// Every option of tlc_add_launcher_library must reach tlc: a missing one fails the build here
// (#error) or the checks in check.cmake.
#include "options_params.h"

#if !defined(OPTIONS_PARAMS_INCLUDED)
#error "INCLUDE_DIRECTORIES did not reach the kernels"
#endif
#if !defined(OPTIONS_FLAG) || OPTIONS_SCALE != 3
#error "COMPILE_DEFINITIONS did not reach the kernels"
#endif
#if OPTIONS_SUM(1, 2) != 3
#error "a COMPILE_DEFINITIONS macro holding a comma was split"
#endif

// ENTRIES keeps only this one.
__global__ void keep(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= OPTIONS_SCALE;
}

__global__ void drop(float* x) { x[threadIdx.x] = 0.0f; }
