// test/gpu cluster: thread-block clusters through the generated launcher. rotate_pairs has
// __cluster_dims__(2, 1, 1); rotate gets its cluster from config.cluster (none, 1, 4, 8 and the
// non-portable 16). Every block copies the slice of the next block in its cluster out of that
// block's shared memory (distributed shared memory after cluster.sync()) and records its
// cluster.block_rank() and cluster size; the host checks all of it. Grids that are not a
// multiple of the cluster must be refused before reaching the driver.
#include "cluster.h"

#include <cuda_runtime.h>

#include "gpu_test.h"

#include <random>
#include <vector>

namespace {

constexpr unsigned kThreads = 128; // as in cluster.cu
constexpr unsigned kBlocks = 64;   // a multiple of every cluster size used
constexpr unsigned kCount = kThreads * kBlocks;

struct Buffers {
  int* in = nullptr;
  int* out = nullptr;
  unsigned* ranks = nullptr;
};

tlc_config configFor(unsigned blocks, unsigned clusterX) {
  tlc_config config = {};
  config.grid[0] = blocks;
  config.block[0] = kThreads;
  config.cluster[0] = clusterX;
  return config;
}

// What block b must have written for clusters of `size` blocks along x.
bool blockIsRight(unsigned b, unsigned size, const std::vector<int>& in,
                  const std::vector<int>& out, const std::vector<unsigned>& ranks) {
  unsigned rank = b % size;
  unsigned next = b - rank + (rank + 1) % size;
  if (ranks[2 * b] != rank || ranks[2 * b + 1] != size)
    return false;
  for (unsigned t = 0; t < kThreads; ++t)
    if (out[b * kThreads + t] != in[next * kThreads + t])
      return false;
  return true;
}

// Fresh input, poisoned outputs, one launch through `launch`; checks every block.
template <typename Launch>
void check(const char* what, unsigned size, const Buffers& b, std::mt19937& random, Launch launch) {
  std::vector<int> in(kCount), out(kCount);
  std::vector<unsigned> ranks(2 * kBlocks, 0xffffffffu);
  for (int& value : in)
    value = static_cast<int>(random());
  for (unsigned i = 0; i < kCount; ++i)
    out[i] = ~in[i];
  CHECK_RT(cudaMemcpy(b.in, in.data(), kCount * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_RT(cudaMemcpy(b.out, out.data(), kCount * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_RT(
      cudaMemcpy(b.ranks, ranks.data(), ranks.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  tlc_status status = launch();
  if (!gpu_expect(status == TLC_SUCCESS, "%s: launched (%s%s%s)", what,
                  tlc_cluster_status_string(status), status ? ": " : "",
                  status ? tlc_cluster_last_error() : ""))
    return;
  CHECK_RT(cudaDeviceSynchronize());
  CHECK_RT(cudaMemcpy(out.data(), b.out, kCount * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_RT(
      cudaMemcpy(ranks.data(), b.ranks, ranks.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned wrong = 0;
  for (unsigned block = 0; block < kBlocks; ++block)
    wrong += !blockIsRight(block, size, in, out, ranks);
  gpu_expect(wrong == 0,
             "%s: every block read its cluster neighbour and knows its rank (%u of %u wrong)", what,
             wrong, kBlocks);
}

// Clusters of 16 blocks are beyond the portable 8 and not every device has them; the H100 and
// H200 (compute capability 9.0) do.
bool hasClustersOf16() {
  int major = 0, minor = 0;
  CHECK_RT(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK_RT(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  return major == 9 && minor == 0;
}

void checkRefused(const char* what, tlc_status status) {
  gpu_expect(status == TLC_ERROR_INVALID_VALUE, "%s is refused (%s: %s)", what,
             tlc_cluster_status_string(status), tlc_cluster_last_error());
}

} // namespace

int main() {
  std::mt19937 random(gpu_seed());
  CHECK_RT(cudaSetDevice(0));
  Buffers b;
  CHECK_RT(cudaMalloc(&b.in, kCount * sizeof(int)));
  CHECK_RT(cudaMalloc(&b.out, kCount * sizeof(int)));
  CHECK_RT(cudaMalloc(&b.ranks, 2 * kBlocks * sizeof(unsigned)));

  check("rotate_pairs, __cluster_dims__(2,1,1)", 2, b, random, [&] {
    tlc_config config = configFor(kBlocks, 0);
    return cluster_rotate_pairs(&config, b.in, b.out, b.ranks);
  });
  // {0,0,0}: no cluster attribute at all, so every block is a cluster of one.
  for (unsigned size : {0u, 1u, 4u, 8u}) {
    char what[64];
    std::snprintf(what, sizeof what, "rotate, config.cluster = {%u,%u,%u}", size, size ? 1 : 0,
                  size ? 1 : 0);
    check(what, size ? size : 1, b, random, [&] {
      tlc_config config = configFor(kBlocks, size);
      return cluster_rotate(&config, b.in, b.out, b.ranks);
    });
  }
  // Over the portable limit of 8: the launcher must opt the kernel in first.
  if (hasClustersOf16()) {
    check("rotate, config.cluster = {16,1,1} (non-portable)", 16, b, random, [&] {
      tlc_config config = configFor(kBlocks, 16);
      return cluster_rotate(&config, b.in, b.out, b.ranks);
    });
  } else {
    std::printf("SKIP: clusters of 16 blocks: only checked on compute capability 9.0\n");
  }

  tlc_config odd = configFor(kBlocks, 3);
  checkRefused("rotate with a grid of 64 in clusters of 3",
               cluster_rotate(&odd, b.in, b.out, b.ranks));
  tlc_config short_grid = configFor(kBlocks - 1, 0);
  checkRefused("rotate_pairs (clusters of 2) with a grid of 63",
               cluster_rotate_pairs(&short_grid, b.in, b.out, b.ranks));

  CHECK_RT(cudaFree(b.in));
  CHECK_RT(cudaFree(b.out));
  CHECK_RT(cudaFree(b.ranks));
  return gpu_finish("cluster");
}
