/* bench/build's baseline: the smallest launcher library a user would write by hand for one
   kernel, loading the cubin nvcc made and launching through the driver API. bench/build.py
   compiles it with `c++ -shared` beside `nvcc -cubin`, the work `tlc build` automates. */
#include <cuda.h>
#include <stddef.h>

static CUmodule module;
static CUfunction function;

int loader_launch(const char* cubin, const char* kernel, unsigned grid, unsigned block,
                  void** args) {
  if (!module && (cuModuleLoad(&module, cubin) != CUDA_SUCCESS ||
                  cuModuleGetFunction(&function, module, kernel) != CUDA_SUCCESS))
    return -1;
  return cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS
             ? 0
             : -1;
}
