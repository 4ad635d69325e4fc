// One input of a relocatable module for the runtime's link tests: its kernel calls a device
// function that link_helper.cu defines.
__device__ int twice(int x);

extern "C" __global__ void link_main(int* out, int x) { out[0] = twice(x); }
