// samples/vadd: an extern "C" kernel; the host program (main.c) is plain C.
extern "C" __global__ void vadd(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}
