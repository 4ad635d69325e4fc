// Built with plain nvcc (not tlc) for the fake driver's own tests: a kernel whose first and
// third parameters are tensor maps, so a launch's record can say where they point.
#include <cuda.h>

extern "C" __global__ void two_maps(const __grid_constant__ CUtensorMap a, int n,
                                    const __grid_constant__ CUtensorMap b) {
  if (n < 0) // never true; keeps the maps used
    asm volatile("prefetch.tensormap [%0];\n\tprefetch.tensormap [%1];" ::"l"(&a), "l"(&b)
                 : "memory");
}
