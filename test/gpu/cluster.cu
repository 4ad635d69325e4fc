// test/gpu cluster: thread-block clusters, from __cluster_dims__ and from the launch config.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 128; // the block size every launch of these kernels uses

// Every block stages its slice of `in` in shared memory; after cluster.sync() it copies the
// slice of the next block of its cluster (by rank, wrapping) to its own slice of `out`, through
// distributed shared memory. ranks[2b], ranks[2b + 1]: block b's rank and its cluster's size.
__device__ void rotateInCluster(const int* in, int* out, unsigned* ranks) {
  __shared__ int slice[kThreads];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  unsigned size = cluster.num_blocks();
  unsigned i = blockIdx.x * kThreads + threadIdx.x;
  slice[threadIdx.x] = in[i];
  cluster.sync(); // every slice of the cluster is staged
  const int* next = cluster.map_shared_rank(slice, (rank + 1) % size);
  out[i] = next[threadIdx.x];
  if (threadIdx.x == 0) {
    ranks[2 * blockIdx.x] = rank;
    ranks[2 * blockIdx.x + 1] = size;
  }
  cluster.sync(); // a block's shared memory must outlive its neighbour's reads
}

// Clusters of two, fixed at compile time.
__global__ void __cluster_dims__(2, 1, 1) rotate_pairs(const int* in, int* out, unsigned* ranks) {
  rotateInCluster(in, out, ranks);
}

// Clusters as the launch config says.
__global__ void rotate(const int* in, int* out, unsigned* ranks) {
  rotateInCluster(in, out, ranks);
}
