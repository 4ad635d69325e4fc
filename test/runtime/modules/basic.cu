// The runtime tests' main module (sm_90a): plain kernels, dynamic shared memory, a cluster.
__global__ void vadd(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}

__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= factor;
}

// Stages a block's values through dynamic shared memory (sized by the launch).
__global__ void stage(const float* in, float* out, int n) {
  extern __shared__ float staged[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n)
    out[i] = staged[blockDim.x - 1 - threadIdx.x];
}

// Compiled with a cluster shape of 2 blocks.
__global__ void __cluster_dims__(2, 1, 1) clustered(float* out) {
  out[blockIdx.x] = static_cast<float>(blockIdx.x);
}
