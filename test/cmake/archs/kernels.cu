// One kernel, built for the targets each library of CMakeLists.txt asks for.
__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= factor;
}
