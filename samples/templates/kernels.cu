// samples/templates: namespaced kernel templates and overloads; the host program is C++.
#include <cuda_fp16.h>

namespace blas {

template <typename T>
__global__ void axpy(T alpha, const T* __restrict__ x, T* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}
template __global__ void axpy<float>(float, const float* __restrict__, float* __restrict__, int);
template __global__ void axpy<double>(double, const double* __restrict__, double* __restrict__,
                                      int);

namespace reduce {
// Sums `in` into *out: one partial sum per block in shared memory, then one atomic per block.
template <int Block>
__global__ void __launch_bounds__(Block) sum(const float* __restrict__ in, float* out, int n) {
  __shared__ float partial[Block];
  float value = 0.0f;
  for (int i = blockIdx.x * Block + threadIdx.x; i < n; i += gridDim.x * Block)
    value += in[i];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int stride = Block / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}
template __global__ void sum<256>(const float* __restrict__, float*, int);
} // namespace reduce

// Overloads: the launchers get suffixes from the parameter types.
__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= factor;
}
__global__ void scale(__half* x, __half factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = __hmul(x[i], factor);
}

} // namespace blas
