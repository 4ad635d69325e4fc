// test/gpu cooperative: grid-wide synchronisation in a cooperative launch.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Every block sums its share of `in` into partial[block]; after grid.sync() every block adds up
// all the partial sums into totals[block]. Without a working grid barrier some block would read
// a partial sum that is not written yet (the host poisons them).
__global__ void sum_everywhere(const unsigned* in, int n, unsigned* partial, unsigned* totals) {
  cg::grid_group grid = cg::this_grid();
  __shared__ unsigned blockSum;
  if (threadIdx.x == 0)
    blockSum = 0;
  __syncthreads();
  unsigned mine = 0;
  for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n);
       i += grid.num_threads())
    mine += in[i];
  atomicAdd(&blockSum, mine);
  __syncthreads();
  if (threadIdx.x == 0)
    partial[blockIdx.x] = blockSum;
  grid.sync();
  if (threadIdx.x == 0) {
    unsigned total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b)
      total += partial[b];
    totals[blockIdx.x] = total;
  }
}
