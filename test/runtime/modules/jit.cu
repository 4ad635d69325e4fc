// Built with plain nvcc (not tlc) as PTX, SASS and fatbins of both, for the runtime's JIT tests
// and the fake driver's PTX model: kernels with scalar, pointer and by-value struct parameters.
struct Pair {
  double first;
  double second;
};

extern "C" __global__ void jit_fill(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = value;
}

// A 16-byte struct by value: `.param .align 8 .b8 jit_sum_param_0[16]` in PTX.
extern "C" __global__ void jit_sum(Pair pair, double* out) { *out = pair.first + pair.second; }
