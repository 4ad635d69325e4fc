// The other input of the relocatable module of link_main.cu: the device function it calls, and
// a kernel of its own.
__device__ int twice(int x) { return 2 * x; }

extern "C" __global__ void link_side(int* out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = twice(i);
}
