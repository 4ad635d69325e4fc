// Kernel names for tlc_NAME_find_kernel: a base name and its numbered variants, a renamed kernel,
// and two kernels sharing a prefix.
#include <tlc/annotations.h>

__global__ void main_kernel(float* x) {
  x[0] = 0.0f;
}
__global__ void main_kernel_1(float* x) {
  x[0] = 1.0f;
}
__global__ void main_kernel_2(float* x) {
  x[0] = 2.0f;
}
__global__ void other(int* x) {
  x[0] = 3;
}
__global__ void TLC_NAME("renamed") original_name(int* x) {
  x[0] = 4;
}
__global__ void scale_rows(float* x, int n) {
  x[n] = 5.0f;
}
__global__ void scale_cols(float* x, int n) {
  x[n] = 6.0f;
}
