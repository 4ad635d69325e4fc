// test/gpu untyped: launchers made where tlc cannot type a parameter, or cannot see a kernel.
// scale_window takes a struct that is not trivially copyable, which its launcher takes as a byte
// struct; hidden_affine is hidden from Clang's parse, so its launcher is made from the image and
// its symbol (float*, const float*, the struct's bytes, int). Each computes over 10000 random
// floats, and every result is checked against the host's.
#include "untyped.h"

#include <cuda_runtime.h>

#include "gpu_test.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

constexpr int kCount = 10000;
constexpr unsigned kThreads = 256;

// The kernels' structs, as a header shared with untyped.cu would declare them.
struct Window {
  float* data;
  int size;
  float scale;
};
struct Affine {
  float a;
  double b;
  short c;
};

// The launcher's byte struct holding `value`'s bytes: the sizes must agree.
template <typename Bytes, typename T> Bytes bytesOf(const T& value) {
  static_assert(sizeof(Bytes) == sizeof(T), "the image's size is the struct's");
  Bytes bytes;
  std::memcpy(&bytes, &value, sizeof bytes);
  return bytes;
}

tlc_config configFor(int count) {
  tlc_config config = {};
  config.grid[0] = (count + kThreads - 1) / kThreads;
  config.block[0] = kThreads;
  return config;
}

std::vector<float> randomFloats(std::mt19937& random) {
  std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
  std::vector<float> values(kCount);
  for (float& value : values)
    value = uniform(random);
  return values;
}

size_t mismatches(const std::vector<float>& got, const std::vector<float>& expected) {
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i)
    wrong += std::fabs(got[i] - expected[i]) > 1e-3f * (1.0f + std::fabs(expected[i]));
  return wrong;
}

void checkScaleWindow(std::mt19937& random) {
  std::vector<float> values = randomFloats(random), expected(kCount);
  float* data = nullptr;
  CHECK_RT(cudaMalloc(&data, kCount * sizeof(float)));
  CHECK_RT(cudaMemcpy(data, values.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  Window window = {data, kCount - 17, 2.5f}; // the last 17 stay as they were
  float offset = -3.0f;
  for (int i = 0; i < kCount; ++i)
    expected[i] = i < window.size ? values[i] * window.scale + offset : values[i];
  tlc_config config = configFor(kCount);
  CHECK_TLC(untyped,
            untyped_scale_window(&config, bytesOf<tlc_untyped_bytes16_align8>(window), offset));
  CHECK_RT(cudaDeviceSynchronize());
  CHECK_RT(cudaMemcpy(values.data(), data, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  size_t wrong = mismatches(values, expected);
  gpu_expect(wrong == 0,
             "scale_window (a struct that is not trivially copyable, passed as its 16 bytes): "
             "every value right (%zu of %d wrong)",
             wrong, kCount);
  CHECK_RT(cudaFree(data));
}

void checkHiddenAffine(std::mt19937& random) {
  std::vector<float> in = randomFloats(random), out(kCount, 0.0f), expected(kCount);
  Affine affine = {};
  affine.a = 0.75f;
  affine.b = 1234.5;
  affine.c = -7;
  for (int i = 0; i < kCount; ++i)
    expected[i] = in[i] * affine.a + static_cast<float>(affine.b) + affine.c;
  float *din = nullptr, *dout = nullptr;
  CHECK_RT(cudaMalloc(&din, kCount * sizeof(float)));
  CHECK_RT(cudaMalloc(&dout, kCount * sizeof(float)));
  CHECK_RT(cudaMemcpy(din, in.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_RT(cudaMemset(dout, 0, kCount * sizeof(float)));
  tlc_config config = configFor(kCount);
  // Typed from the symbol where it says a plain pointer or a builtin scalar.
  CHECK_TLC(untyped, untyped_hidden_affine(&config, dout, din,
                                           bytesOf<tlc_untyped_bytes24_align8>(affine), kCount));
  CHECK_RT(cudaDeviceSynchronize());
  CHECK_RT(cudaMemcpy(out.data(), dout, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  size_t wrong = mismatches(out, expected);
  gpu_expect(wrong == 0,
             "hidden_affine (hidden from the parse, made from the image): every value right "
             "(%zu of %d wrong)",
             wrong, kCount);
  CHECK_RT(cudaFree(din));
  CHECK_RT(cudaFree(dout));
}

} // namespace

int main() {
  std::mt19937 random(gpu_seed());
  CHECK_RT(cudaSetDevice(0));
  checkScaleWindow(random);
  checkHiddenAffine(random);
  return gpu_finish("untyped");
}
