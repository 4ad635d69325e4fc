// test/gpu untyped: kernels whose launchers only the image can give. test/gpu/untyped.cpp holds
// the same structs, as a user's shared header would.

// Not trivially copyable (a user copy constructor): CUDA passes its bytes, C cannot construct
// one, so its launcher takes a byte struct of the size nvcc's image gives it.
struct Window {
  __host__ __device__ Window(const Window& other)
      : data(other.data), size(other.size), scale(other.scale) {}
  float* data;
  int size;
  float scale;
};

// data[i] = data[i] * scale + offset over the window.
__global__ void scale_window(Window window, float offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < window.size)
    window.data[i] = window.data[i] * window.scale + offset;
}

// Padding after `a` and after `c`: the bytes must land where the device reads each field.
struct Affine {
  float a;
  double b;
  short c;
};

// Hidden from tlc's parse (which defines __TLC__; nvcc never does): its launcher comes from
// the image and its symbol alone, pointers and the int typed, the struct as bytes.
#if !defined(__TLC__)
__global__ void hidden_affine(float* out, const float* in, Affine affine, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * affine.a + static_cast<float>(affine.b) + affine.c;
}
#endif
