// samples/templates: calls namespaced template kernels and overloads through the generated
// launcher from C++, with the CUDA runtime API managing memory, and checks each against the CPU.
// Prints PASS or FAIL; exits non-zero on a mismatch or error.
#include "templates.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  std::printf("  %s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok)
    ++failures;
}

bool launched(tlc_status status) {
  if (status == TLC_SUCCESS)
    return true;
  std::printf("  FAIL %s: %s\n", tlc_templates_status_string(status), tlc_templates_last_error());
  ++failures;
  return false;
}

template <typename T> T* toDevice(const std::vector<T>& host) {
  T* device = nullptr;
  cudaMalloc(&device, host.size() * sizeof(T));
  cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return device;
}

template <typename T> std::vector<T> toHost(const T* device, size_t count) {
  std::vector<T> host(count);
  cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost);
  return host;
}

tlc_config configFor(int n, int block = 256) {
  tlc_config config = {};
  config.grid[0] = static_cast<unsigned>((n + block - 1) / block);
  config.block[0] = static_cast<unsigned>(block);
  return config;
}

// A C++ caller passes __half values as their bits.
tlc_half bitsOf(__half value) {
  tlc_half bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

template <typename T> void checkAxpy(std::mt19937& random, int n) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<T> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<T>(uniform(random));
    y[i] = static_cast<T>(uniform(random));
  }
  T alpha = static_cast<T>(uniform(random));
  T* dx = toDevice(x);
  T* dy = toDevice(y);
  tlc_config config = configFor(n);
  tlc_status status;
  if constexpr (sizeof(T) == 4)
    status = templates_blas_axpy_float(&config, alpha, dx, dy, n);
  else
    status = templates_blas_axpy_double(&config, alpha, dx, dy, n);
  if (launched(status)) {
    std::vector<T> result = toHost(dy, n);
    double worst = 0.0;
    for (int i = 0; i < n; ++i)
      worst = std::fmax(worst, std::fabs(double(result[i]) - (double(alpha) * x[i] + y[i])));
    expect(worst < (sizeof(T) == 4 ? 1e-6 : 1e-14),
           sizeof(T) == 4 ? "blas::axpy<float>" : "blas::axpy<double>");
  }
  cudaFree(dx);
  cudaFree(dy);
}

void checkSum(std::mt19937& random, int n) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> in(n);
  double reference = 0.0;
  for (float& v : in) {
    v = uniform(random);
    reference += v;
  }
  float* din = toDevice(in);
  float* dout = toDevice(std::vector<float>{0.0f});
  tlc_config config = configFor(n);
  config.grid[0] = 128;
  if (launched(templates_blas_reduce_sum_256(&config, din, dout, n))) {
    float sum = toHost(dout, 1)[0];
    expect(std::fabs(sum - reference) / reference < 1e-5, "blas::reduce::sum<256>");
  }
  cudaFree(din);
  cudaFree(dout);
}

void checkScale(std::mt19937& random, int n) {
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::vector<float> x(n);
  std::vector<__half> h(n);
  for (int i = 0; i < n; ++i) {
    x[i] = uniform(random);
    h[i] = __float2half(x[i]);
  }
  float factor = uniform(random);
  float* dx = toDevice(x);
  __half* dh = toDevice(h);
  tlc_config config = configFor(n);
  if (launched(templates_blas_scale_float_ptr_float_int(&config, dx, factor, n))) {
    std::vector<float> result = toHost(dx, n);
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= result[i] == x[i] * factor;
    expect(ok, "blas::scale(float*, float, int)");
  }
  __half hfactor = __float2half(factor);
  if (launched(templates_blas_scale_half_ptr_half_int(&config, reinterpret_cast<tlc_half*>(dh),
                                                      bitsOf(hfactor), n))) {
    std::vector<__half> result = toHost(dh, n);
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
      double expected = double(__half2float(h[i])) * double(__half2float(hfactor));
      worst = std::fmax(worst, std::fabs(__half2float(result[i]) - expected) /
                                   std::fmax(1e-3, std::fabs(expected)));
    }
    expect(worst < 2e-3, "blas::scale(__half*, __half, int)");
  }
  cudaFree(dx);
  cudaFree(dh);
}

} // namespace

int main() {
  std::mt19937 random(std::random_device{}());
  const int n = 1 << 20;
  checkAxpy<float>(random, n);
  checkAxpy<double>(random, n);
  checkSum(random, n);
  checkScale(random, n);
  cudaError_t error = cudaDeviceSynchronize();
  if (error != cudaSuccess) {
    std::printf("  FAIL %s\n", cudaGetErrorString(error));
    ++failures;
  }
  std::printf("%s: templates sample, %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
