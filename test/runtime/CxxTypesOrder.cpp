// NAME.h included before the CUDA headers (the other order is CxxTypesTests.cpp's): its C++
// launchers still take __half* and dim3.
#include "cxx.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

tlc_status launchMixedAfterNameH(dim3 grid, dim3 block, __half* h, const __nv_bfloat16* b) {
  return tlc::cxx::mixed({grid, block}, h, b, nullptr, nullptr, nullptr, 1);
}
