// Kernels whose launcher names a Python package cannot hold (tlc build --python refuses them; the
// C API takes them): the helper submodule's name, a Python keyword, a dunder name.
#include <tlc/annotations.h>

__global__ void tlc(int* x) { x[0] = 1; }
__global__ void lambda(int* x) { x[0] = 2; }
__global__ void TLC_NAME("__path__") path(int* x) { x[0] = 3; }
