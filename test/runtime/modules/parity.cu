// Kernels nvcc renames (static, anonymous namespace), an empty tag parameter and the toolkit's
// vector types: the launchers must reach them by the image's symbols and pass every parameter.
#include <type_traits>

static __global__ void hidden(int* p, int value) { p[threadIdx.x] = value; }
namespace {
__global__ void anonymous(int* p) { p[threadIdx.x] = 2; }
} // namespace
__global__ void tagged(float* x, std::integral_constant<int, 3> tag, int n) {
  if (threadIdx.x < n)
    x[threadIdx.x] = decltype(tag)::value;
}
__global__ void vectors(float4* out, float4 value, uchar4 colour) {
  out[0] = make_float4(value.x + colour.x, value.y, value.z, value.w);
}
