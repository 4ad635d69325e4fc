// test/gpu big_shared: launches asking for more dynamic shared memory than the 48 KiB a kernel
// gets without opting in. The launcher must raise the kernel's limit itself. Sizes in order:
// 100 KiB, 16 KiB (under the raised limit), the device's largest opt-in size, and one KiB over
// that, which must be refused with TLC_ERROR_INVALID_VALUE. Every launch that runs stages each
// block's slice in shared memory and writes it back reversed; every word is checked.
#include "big_shared.h"

#include <cuda_runtime.h>

#include "gpu_test.h"

#include <random>
#include <vector>

namespace {

constexpr unsigned kBlocks = 8;
constexpr unsigned kThreads = 256;

tlc_config configFor(unsigned sharedBytes) {
  tlc_config config = {};
  config.grid[0] = kBlocks;
  config.block[0] = kThreads;
  config.shared_bytes = sharedBytes;
  return config;
}

void checkLaunch(unsigned sharedBytes, std::mt19937& random) {
  unsigned count = sharedBytes / sizeof(unsigned); // words per block
  size_t total = static_cast<size_t>(count) * kBlocks;
  std::vector<unsigned> in(total), out(total);
  for (unsigned& value : in)
    value = random();
  for (size_t i = 0; i < total; ++i)
    out[i] = ~in[i / count * count + (count - 1 - i % count)];
  unsigned *din = nullptr, *dout = nullptr;
  CHECK_RT(cudaMalloc(&din, total * sizeof(unsigned)));
  CHECK_RT(cudaMalloc(&dout, total * sizeof(unsigned)));
  CHECK_RT(cudaMemcpy(din, in.data(), total * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK_RT(cudaMemcpy(dout, out.data(), total * sizeof(unsigned), cudaMemcpyHostToDevice));

  tlc_config config = configFor(sharedBytes);
  CHECK_TLC(big_shared, big_shared_reverse_through_shared(&config, din, dout, count));
  CHECK_RT(cudaDeviceSynchronize());
  CHECK_RT(cudaMemcpy(out.data(), dout, total * sizeof(unsigned), cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  for (size_t i = 0; i < total; ++i)
    wrong += out[i] != in[i / count * count + (count - 1 - i % count)];
  gpu_expect(wrong == 0,
             "%u bytes (%.1f KiB) of dynamic shared memory: every word right (%zu of %zu wrong)",
             sharedBytes, sharedBytes / 1024.0, wrong, total);
  CHECK_RT(cudaFree(din));
  CHECK_RT(cudaFree(dout));
}

void checkRefused(unsigned sharedBytes) {
  tlc_config config = configFor(sharedBytes);
  tlc_status status = big_shared_reverse_through_shared(&config, nullptr, nullptr, 0);
  gpu_expect(status == TLC_ERROR_INVALID_VALUE,
             "%u bytes, over the device's limit, are refused (%s: %s)", sharedBytes,
             tlc_big_shared_status_string(status), tlc_big_shared_last_error());
}

} // namespace

int main() {
  std::mt19937 random(gpu_seed());
  CHECK_RT(cudaSetDevice(0));
  int optIn = 0;
  CHECK_RT(cudaDeviceGetAttribute(&optIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  std::printf("info: this device allows up to %d bytes of shared memory per block\n", optIn);
  unsigned largest = static_cast<unsigned>(optIn);

  checkLaunch(100 * 1024, random);
  checkLaunch(16 * 1024, random);
  checkLaunch(largest, random);
  checkRefused(largest + 1024);
  return gpu_finish("big_shared");
}
