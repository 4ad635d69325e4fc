// samples/tma_im2col: runs a convolution whose input patches are gathered by im2col-mode TMA
// loads, from C++, and compares every output with a CPU convolution in double. The input is
// passed as a tlc_tensor (the launcher encodes the im2col tensor map from it and the kernel's
// TLC_TMA_IM2COL annotation) and, a second time, as a map encoded here through the _encoded
// entry point, so that a wrong encoding and a wrong kernel can be told apart.
// Prints PASS or FAIL; exits non-zero on a mismatch or error.
#include "tma_im2col.h"

#include <cuda.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

#define CHECK_CU(call)                                                                             \
  do {                                                                                             \
    CUresult result_ = (call);                                                                     \
    if (result_ != CUDA_SUCCESS) {                                                                 \
      std::fprintf(stderr, "FAIL: %s returned %d\n", #call, static_cast<int>(result_));            \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// The problem. The channel counts, filter, padding and pixels per block are compiled into the
// kernel (tma_im2col.cu) and repeated here; the batch and image size are free. 3 images of
// 14 x 11 give a 12 x 11 output each: 396 output pixels, so the 64-pixel columns run across
// image rows and image boundaries, and the last block is only partly inside the batch.
constexpr int kBatch = 3, kHeight = 14, kWidth = 11;
constexpr int kChannels = 32, kOutChannels = 16;
constexpr int kFilterH = 3, kFilterW = 5, kPadH = 0, kPadW = 2;
constexpr int kPixels = 64, kThreads = 256;
constexpr int kOutHeight = kHeight + 2 * kPadH - (kFilterH - 1);
constexpr int kOutWidth = kWidth + 2 * kPadW - (kFilterW - 1);
constexpr int kOutPixels = kBatch * kOutHeight * kOutWidth;
constexpr unsigned kSharedBytes = kFilterH * kFilterW * kPixels * kChannels * sizeof(__half) + 128;

int failures = 0;

CUdeviceptr toDevice(const void* host, size_t bytes) {
  CUdeviceptr device;
  CHECK_CU(cuMemAlloc(&device, bytes));
  CHECK_CU(cuMemcpyHtoD(device, host, bytes));
  return device;
}

template <typename T> T* pointer(CUdeviceptr device) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(device));
}

// The input as the launcher sees it: NHWC, so innermost first {C, W, H, N}, densely packed.
tlc_tensor inputTensor(CUdeviceptr data) {
  tlc_tensor tensor = {};
  tensor.data = pointer<void>(data);
  const uint64_t dims[4] = {kChannels, kWidth, kHeight, kBatch};
  for (int i = 0; i < 4; ++i)
    tensor.dims[i] = dims[i];
  tensor.strides[0] = kChannels * sizeof(__half);
  tensor.strides[1] = tensor.strides[0] * kWidth;
  tensor.strides[2] = tensor.strides[1] * kHeight;
  return tensor;
}

// The same map the launcher should build from conv_nhwc's annotation
// "dtype=f16 rank=4 channels=(kChannels) pixels=(kPixels) lower=-2x0 upper=-2x-2".
CUtensorMap encodeInput(const tlc_tensor& tensor) {
  CUtensorMap map;
  const int lower[2] = {-kPadW, -kPadH};                                 // {W, H}
  const int upper[2] = {kPadW - (kFilterW - 1), kPadH - (kFilterH - 1)}; // {W, H}
  const cuuint32_t elementStrides[4] = {1, 1, 1, 1};
  CHECK_CU(cuTensorMapEncodeIm2col(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, tensor.data,
      reinterpret_cast<const cuuint64_t*>(tensor.dims),
      reinterpret_cast<const cuuint64_t*>(tensor.strides), lower, upper, kChannels, kPixels,
      elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

// Compares with the reference. The GPU's result is exact but for fp32 rounding in the
// accumulation: each product of two f16 values (11-bit significands) is exact in fp32 (24
// bits), and each of the n = R * S * C fused multiply-adds rounds once, with a relative error of
// at most u = 2^-24. The classic bound for a sum of n terms in any order is then
//   |computed - exact| <= n * u / (1 - n * u) * sum |x * w|,
// which is what each output is allowed (about 2.9e-5 of the sum of magnitudes for n = 480). A
// tap gathered from the wrong pixel changes the result by a whole product, orders of magnitude
// more; NaN (the poison, left where nothing was written) fails every comparison.
void check(const char* what, tlc_status status, CUdeviceptr output,
           const std::vector<double>& expected, const std::vector<double>& magnitude) {
  if (status != TLC_SUCCESS) {
    std::printf("  FAIL %s: %s: %s\n", what, tlc_tma_im2col_status_string(status),
                tlc_tma_im2col_last_error());
    ++failures;
    return;
  }
  CHECK_CU(cuCtxSynchronize());
  std::vector<float> result(expected.size());
  CHECK_CU(cuMemcpyDtoH(result.data(), output, result.size() * sizeof(float)));
  const double n = kFilterH * kFilterW * kChannels, u = std::ldexp(1.0, -24);
  const double gamma = n * u / (1.0 - n * u);
  long wrong = 0;
  double worst = 0.0; // largest error as a fraction of its bound
  for (size_t i = 0; i < result.size(); ++i) {
    const double error = std::fabs(double(result[i]) - expected[i]);
    const double bound = gamma * magnitude[i];
    if (!(error <= bound)) {
      if (wrong < 5)
        std::fprintf(stderr, "  output %zu (pixel %zu, channel %zu): %.9g, expected %.9g\n", i,
                     i / kOutChannels, i % kOutChannels, double(result[i]), expected[i]);
      ++wrong;
    } else if (bound > 0) {
      worst = std::fmax(worst, error / bound);
    }
  }
  std::printf("  %s %s (%ld of %zu wrong; worst error %.3f of its bound)\n",
              wrong ? "FAIL" : "ok  ", what, wrong, result.size(), worst);
  failures += wrong != 0;
}

} // namespace

int main() {
  std::mt19937 random(std::random_device{}());
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);

  // Input N x H x W x C and filter K x R x S x C, random f16 values in [-1, 1].
  std::vector<__half> input(size_t(kBatch) * kHeight * kWidth * kChannels);
  std::vector<__half> filter(size_t(kOutChannels) * kFilterH * kFilterW * kChannels);
  for (__half& x : input)
    x = __float2half(uniform(random));
  for (__half& w : filter)
    w = __float2half(uniform(random));

  // Reference in double: out[n][p][q][k] = sum over r, s, c of
  //   in[n][p - padH + r][q - padW + s][c] * filter[k][r][s][c], zero outside the input.
  std::vector<double> expected(size_t(kOutPixels) * kOutChannels), magnitude(expected.size());
  for (int n = 0; n < kBatch; ++n)
    for (int p = 0; p < kOutHeight; ++p)
      for (int q = 0; q < kOutWidth; ++q)
        for (int k = 0; k < kOutChannels; ++k) {
          double sum = 0.0, sumAbs = 0.0;
          for (int r = 0; r < kFilterH; ++r)
            for (int s = 0; s < kFilterW; ++s) {
              const int h = p - kPadH + r, w = q - kPadW + s;
              if (h < 0 || h >= kHeight || w < 0 || w >= kWidth)
                continue;
              const __half* x = &input[((size_t(n) * kHeight + h) * kWidth + w) * kChannels];
              const __half* f = &filter[((size_t(k) * kFilterH + r) * kFilterW + s) * kChannels];
              for (int c = 0; c < kChannels; ++c) {
                const double product = double(__half2float(x[c])) * double(__half2float(f[c]));
                sum += product;
                sumAbs += std::fabs(product);
              }
            }
          const size_t index = ((size_t(n) * kOutHeight + p) * kOutWidth + q) * kOutChannels + k;
          expected[index] = sum;
          magnitude[index] = sumAbs;
        }

  CUdevice device;
  CUcontext context;
  CHECK_CU(cuInit(0));
  CHECK_CU(cuDeviceGet(&device, 0));
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));
  CUdeviceptr dinput = toDevice(input.data(), input.size() * sizeof(__half));
  CUdeviceptr dfilter = toDevice(filter.data(), filter.size() * sizeof(__half));
  CUdeviceptr doutput;
  const size_t outputBytes = expected.size() * sizeof(float);
  CHECK_CU(cuMemAlloc(&doutput, outputBytes));

  std::printf("tma_im2col: %d x %d x %d x %d f16 input, %d x %d x %d filter, padding %d x %d\n",
              kBatch, kHeight, kWidth, kChannels, kOutChannels, kFilterH, kFilterW, kPadH, kPadW);
  tlc_config config = {};
  config.grid[0] = (kOutPixels + kPixels - 1) / kPixels;
  config.block[0] = kThreads;
  config.shared_bytes = kSharedBytes; // over 48 KiB: the launcher raises the kernel's limit

  const tlc_tensor tensor = inputTensor(dinput);
  CHECK_CU(cuMemsetD32(doutput, 0x7FC00000u, outputBytes / 4)); // poison with NaN
  check("conv_nhwc",
        tma_im2col_conv_nhwc(&config, &tensor, pointer<const tlc_half>(dfilter),
                             pointer<float>(doutput), kBatch, kHeight, kWidth),
        doutput, expected, magnitude);

  const CUtensorMap map = encodeInput(tensor);
  CHECK_CU(cuMemsetD32(doutput, 0x7FC00000u, outputBytes / 4));
  check("conv_nhwc_encoded",
        tma_im2col_conv_nhwc_encoded(&config, &map, pointer<const tlc_half>(dfilter),
                                     pointer<float>(doutput), kBatch, kHeight, kWidth),
        doutput, expected, magnitude);

  CHECK_CU(cuMemFree(dinput));
  CHECK_CU(cuMemFree(dfilter));
  CHECK_CU(cuMemFree(doutput));
  std::printf("%s: tma_im2col sample, %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
