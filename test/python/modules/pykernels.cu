// The Python binding's test module: every kind of parameter (pointers, each scalar width, 16-bit
// floats, a struct by value, a tensor map), parameters named like launch options and Python
// keywords, and kernels named like tlc's Python helpers (which live in pykernels.tlc instead).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#include <tlc/annotations.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

struct Pair {
  int first;
  float second;
  double third;
};

__global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void widths(bool b, signed char i8, unsigned char u8, short i16, unsigned short u16,
                       int i32, unsigned int u32, long long i64, unsigned long long u64, float f32,
                       double f64, int* out) {
  if (b)
    out[0] = i8 + u8 + i16 + u16 + i32 + u32 + (int)i64 + (int)u64 + (int)f32 + (int)f64;
}

__global__ void halves(__half h, __nv_bfloat16 b, __half* out) {
  out[0] = __hadd(h, __float2half(__bfloat162float(b)));
}

__global__ void pairs(__half2 h, __nv_bfloat162 b, __half2* out) { out[0] = h; }

__global__ void by_value(Pair pair, int* out) { out[0] = pair.first + (int)pair.second; }

// Parameters named like launch options and Python keywords get a `_` appended.
__global__ void renamed(float* grid, int lambda, int stream) {
  grid[0] = (float)(lambda + stream);
}

// Named like the helpers in pykernels.tlc: they are kernels like any other.
__global__ void register_torch_ops(float* x) { x[0] = 1.0f; }
__global__ void Error(int* x) { x[0] = 2; }
__global__ void launchers(int* x) { x[0] = 3; }
__global__ void image_target(int* x) { x[0] = 4; }

__global__ void no_params() {}

// Template instances: launchers named from their template arguments (axpy_float), which
// pykernels.tlc.get also finds by their C++ names ("axpy<float>").
template <typename T> __global__ void axpy(T a, const T* x, T* y) {}
template __global__ void axpy<float>(float, const float*, float*);
template __global__ void axpy<unsigned int>(unsigned int, const unsigned int*, unsigned int*);
namespace nn {
template <typename T, unsigned N> __global__ void fill(T* x) {}
template __global__ void fill<long long, 4>(long long*);
} // namespace nn

// Overloads: one C++ name, two launchers (scale_float_ptr_float, scale_double_ptr_double).
__global__ void scale(float* x, float a) {}
__global__ void scale(double* x, double a) {}

// An empty tag parameter: the C launcher passes it itself, so Python callers never see it.
__global__ void tagged(int* out, std::integral_constant<int, 3> three, int n) {
  out[0] = three.value + n;
}

__global__ void tiles(const __grid_constant__ CUtensorMap in TLC_TMA("dtype=f32 box=16x8"),
                      float* out) {
  if (!out)
    asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
}

enum class Level : short { Low, High };

// One pointer of each kind of element type the binding checks arrays against (docs/python.md,
// "Element types"), and pointers that take any array.
__global__ void pointees(float* f32, const double* f64, __half* f16, __nv_bfloat16* bf16, bool* b,
                         signed char* i8, int8_t* i8t, short* i16, unsigned short* u16, int* i32,
                         unsigned* u32, long* i64, long long* ll, unsigned long long* u64,
                         size_t* size, Level* level, __nv_fp8_e4m3* e4m3, __nv_fp8x4_e4m3* e4m3x4,
                         __nv_fp8_e5m2* e5m2, __nv_fp8_e8m0* e8m0, __nv_fp6_e2m3* e2m3,
                         __nv_fp6_e3m2* e3m2, __nv_fp4_e2m1* e2m1, __nv_fp4x2_e2m1* e2m1x2,
                         float4* f4, float2* f2, double2* d2, int2* i2, uint4* u4, char4* c4,
                         __half2* h2, __nv_bfloat162* bf2, dim3* dims, void* any, char* chars,
                         unsigned char* bytes, uint8_t* u8, std::byte* raw, Pair* pairs,
                         float** pointers) {}

// Parameters tlc cannot type: a struct that is not trivially copyable goes as its bytes; a
// kernel only nvcc compiles (tlc's parse defines __TLC__) is made from the image and its symbol, the
// pointer typed, the struct as bytes, its parameters named arg0, arg1.
struct Handle {
  Handle(const Handle& other) : id(other.id), scale(other.scale) {}
  long long id;
  double scale;
};

__global__ void untyped(Handle handle, int* out) { out[0] = (int)handle.id; }

#ifndef __TLC__
__global__ void nvcc_only(int* out, Pair pair) { out[0] = pair.first; }
#endif
