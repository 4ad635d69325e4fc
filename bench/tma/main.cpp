// bench/tma: the host cost of a launch with two tensor-map parameters through the generated
// launcher against a raw cuLaunchKernel with descriptors encoded once beforehand, and against
// the launcher's _encoded entry point. The launcher is timed twice: with the same two tensors
// every launch, where each thread's descriptor cache (runtime/src/TensorMaps.cpp) hits and
// nothing is encoded, and with fresh tensors, a different pair each launch (more pairs than the
// cache holds), where it checks and encodes both descriptors every time. Bursts of 1000
// launches timed on the host, the stream synchronised between bursts outside the timing;
// variants take turns burst by burst after a warm-up; medians. Targets: launcher encoding /
// raw <= 1.08 (the TMA issue), launcher with a cache hit / raw <= 1.04 (the runtime issue).
#include "tma_bench.h"

#include "../common/order.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBurst = 1000;
constexpr int kWarmupBursts = 20;
constexpr int kBursts = 300;
// Tensor pairs the fresh-tensors variant cycles through: the cache keeps two per parameter and
// replaces the least recently used, so with four every launch misses and encodes.
constexpr int kFreshPairs = 4;

void check(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS)
    return;
  const char* name = "?";
  cuGetErrorName(result, &name);
  std::printf("FAIL: %s -> %s\n", call, name);
  std::exit(1);
}

void check(tlc_status status, const char* call) {
  if (status == TLC_SUCCESS)
    return;
  std::printf("FAIL: %s -> %s: %s\n", call, tlc_tma_bench_status_string(status),
              tlc_tma_bench_last_error());
  std::exit(1);
}

#define CHECK(call) check((call), #call)

struct Setup {
  CUstream stream = nullptr;
  tlc_config config = {};
  tlc_tensor a = {}, b = {};
  tlc_tensor freshA[kFreshPairs] = {}, freshB[kFreshPairs] = {}; // other buffers, same shape
  CUtensorMap mapA, mapB; // encoded once, for the raw and _encoded variants
  CUfunction function = nullptr;
  int n = 1024;
  void* args[3] = {};
};

void encode(const tlc_tensor& tensor, CUtensorMap& map) {
  cuuint32_t box[2] = {64, 64}, elementStrides[2] = {1, 1};
  CHECK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, tensor.data, tensor.dims,
                               tensor.strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

// The same two tensors every launch: the per-thread descriptor cache hits.
void launcherCached(Setup& s) {
  for (int i = 0; i < kBurst; ++i)
    CHECK(tma_bench_two_maps(&s.config, &s.a, &s.b, s.n));
}

// Another pair of tensors each launch: both descriptors are checked and encoded every time.
void launcherEncoding(Setup& s) {
  for (int i = 0; i < kBurst; ++i)
    CHECK(
        tma_bench_two_maps(&s.config, &s.freshA[i % kFreshPairs], &s.freshB[i % kFreshPairs], s.n));
}

void encoded(Setup& s) {
  for (int i = 0; i < kBurst; ++i)
    CHECK(tma_bench_two_maps_encoded(&s.config, &s.mapA, &s.mapB, s.n));
}

// What the launcher cannot avoid on top of a raw launch: encoding both descriptors (no launch).
void encodeOnly(Setup& s) {
  CUtensorMap maps[2];
  for (int i = 0; i < kBurst; ++i) {
    encode(s.a, maps[0]);
    encode(s.b, maps[1]);
  }
}

// The floor for encoding per launch: what the launcher does, written by hand with no checks.
void rawEncoding(Setup& s) {
  CUtensorMap maps[2];
  void* args[3] = {&maps[0], &maps[1], &s.n};
  for (int i = 0; i < kBurst; ++i) {
    encode(s.a, maps[0]);
    encode(s.b, maps[1]);
    CHECK(cuLaunchKernel(s.function, 1, 1, 1, 32, 1, 1, 0, s.stream, args, nullptr));
  }
}

void raw(Setup& s) {
  for (int i = 0; i < kBurst; ++i)
    CHECK(cuLaunchKernel(s.function, 1, 1, 1, 32, 1, 1, 0, s.stream, s.args, nullptr));
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

} // namespace

int main() {
  CUdevice device;
  CUcontext context;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  Setup s;
  CHECK(cuStreamCreate(&s.stream, CU_STREAM_NON_BLOCKING));
  s.config.grid[0] = 1;
  s.config.block[0] = 32;
  s.config.stream = s.stream;
  const uint64_t rows = 1024, cols = 1024, pitch = cols * 2;
  std::vector<tlc_tensor*> tensors = {&s.a, &s.b};
  for (int i = 0; i < kFreshPairs; ++i) {
    tensors.push_back(&s.freshA[i]);
    tensors.push_back(&s.freshB[i]);
  }
  for (tlc_tensor* tensor : tensors) {
    CUdeviceptr data;
    CHECK(cuMemAlloc(&data, rows * pitch));
    *tensor = {reinterpret_cast<void*>(data), {cols, rows}, {pitch}};
  }
  encode(s.a, s.mapA);
  encode(s.b, s.mapB);
  CHECK(tlc_tma_bench_get_function(TLC_TMA_BENCH_KERNEL_two_maps, 0, &s.function));
  s.args[0] = &s.mapA;
  s.args[1] = &s.mapB;
  s.args[2] = &s.n;

  struct Variant {
    const char* name;
    void (*run)(Setup&);
    std::vector<double> microseconds; // per launch, one sample per burst
  };
  enum { kEncoding, kRaw, kEncoded, kRawAgain, kEncodeOnly, kRawEncoding, kCached };
  std::vector<Variant> variants = {
      {"launcher, fresh tensors (encodes 2 maps)", launcherEncoding, {}},
      {"raw cuLaunchKernel, pre-encoded", raw, {}},
      {"launcher _encoded entry", encoded, {}},
      {"raw again (noise)", raw, {}},
      {"encoding 2 maps alone (no launch)", encodeOnly, {}},
      {"raw cuLaunchKernel, encoding 2 maps", rawEncoding, {}},
      {"launcher, same tensors (cache hit)", launcherCached, {}}};
  RoundOrder order(variants.size());
  for (int burst = 0; burst < kWarmupBursts + kBursts; ++burst) {
    for (size_t index : order.next()) {
      Variant& variant = variants[index];
      Clock::time_point start = Clock::now();
      variant.run(s);
      double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      CHECK(cuStreamSynchronize(s.stream));
      if (burst >= kWarmupBursts)
        variant.microseconds.push_back(seconds * 1e6 / kBurst);
    }
  }

  std::printf("\n== bench/tma: host cost per launch, median of %d bursts of %d (us)\n", kBursts,
              kBurst);
  for (const Variant& variant : variants)
    std::printf("  %-42s %8.3f\n", variant.name, median(variant.microseconds));
  auto us = [&](int index) { return median(variants[index].microseconds); };
  double encoding = us(kEncoding) / us(kRaw), cached = us(kCached) / us(kRaw);
  std::printf("  launcher encoding / raw            %.3f  (target <= 1.08: %s)\n", encoding,
              encoding <= 1.08 ? "met" : "MISSED");
  std::printf("  launcher cache hit / raw           %.3f  (target <= 1.04: %s)\n", cached,
              cached <= 1.04 ? "met" : "MISSED");
  std::printf("  _encoded / raw                     %.3f\n", us(kEncoded) / us(kRaw));
  std::printf("  raw again / raw                    %.3f  (noise)\n", us(kRawAgain) / us(kRaw));
  std::printf("  launcher encoding - raw            %.3f us, of which encoding 2 maps %.3f us\n",
              us(kEncoding) - us(kRaw), us(kEncodeOnly));
  std::printf("  raw encoding per launch / raw      %.3f  (the floor of encoding per launch)\n",
              us(kRawEncoding) / us(kRaw));
  std::printf("  launcher encoding / raw encoding   %.3f  (what the launcher adds to that)\n",
              us(kEncoding) / us(kRawEncoding));
  std::printf("PASS: bench/tma\n");
  return 0;
}
