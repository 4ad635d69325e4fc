// test/gpu reload: a kernel launched, checked and unloaded in a loop.

// out = a * x + y with one rounding (fmaf), so the host can compute the exact same values.
__global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = fmaf(a, x[i], y[i]);
}
