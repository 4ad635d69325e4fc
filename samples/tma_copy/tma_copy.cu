// samples/tma_copy: moves a 2-D bf16 matrix through shared memory with the Tensor Memory
// Accelerator (sm_90a). Each block loads one 64x64 tile with a TMA load (global -> shared,
// completion counted by an mbarrier) and writes it back with a TMA store (shared -> global).
// Both tensor maps use the 128-byte swizzle. Two kernels:
//   copy_tiles       stores the loaded tile unchanged: out = in
//   transpose_tiles  rearranges the tile in shared memory (threads undo and redo the swizzle
//                    by hand) and stores it at the mirrored position: out = in^T
// The launcher encodes the tensor maps from the caller's tlc_tensor and the TLC_TMA
// annotations. The matrix need not be a multiple of the tile: TMA fills the part of a load box
// outside the tensor with zeros, and a store drops the part outside the tensor -- but along the
// innermost dimension only in whole 16-byte chunks, so a stored tensor's innermost extent must
// be a multiple of 16 bytes (8 bf16) or the store also overwrites the rest of the last chunk.
// The PTX is written inline (not through libcu++) so that every ordering step is visible.
#include <cuda.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <tlc/annotations.h>

// The tile is 64 bf16 = 128 bytes wide: exactly one 128-byte swizzle span per tile row, the
// widest box row that swizzle=128B allows.
constexpr int kTile = 64;
constexpr unsigned kTileBytes = kTile * kTile * sizeof(__nv_bfloat16);

namespace {

__device__ uint32_t sharedAddress(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// A __grid_constant__ parameter lives in parameter space; its generic address is what the
// cp.async.bulk.tensor instructions take as the tensor map operand.
__device__ uint64_t mapAddress(const CUtensorMap& map) {
  return reinterpret_cast<uint64_t>(&map);
}

// One thread initialises the barrier for a single arrival. mbarrier.init is a generic-proxy
// write, but the TMA unit updates the barrier's transaction count through the async proxy, so
// the initialisation is fenced into the async proxy before anyone uses the barrier.
__device__ void initBarrier(uint64_t* barrier) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sharedAddress(barrier)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Loads the box whose first element is at (x, y) (x innermost) into `tile`. The arrival
// announces `bytes` of expected transactions first, so the barrier's phase can only complete
// once the TMA unit has delivered them all. The byte count is always the full box: elements
// outside the tensor are filled with zeros and count like the others.
__device__ void loadTile(void* tile, const CUtensorMap& map, int x, int y, uint64_t* barrier,
                         uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(barrier)),
      "r"(bytes)
      : "memory");
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];" ::"r"(sharedAddress(tile)),
               "l"(mapAddress(map)), "r"(x), "r"(y), "r"(sharedAddress(barrier))
               : "memory");
}

// Spins until the barrier's phase `parity` has completed. Completion also makes the data the
// TMA unit wrote visible to the waiting threads' ordinary loads.
__device__ void waitBarrier(uint64_t* barrier, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n"
                 "  .reg .pred complete;\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
                 "  selp.u32 %0, 1, 0, complete;\n"
                 "}"
                 : "=r"(done)
                 : "r"(sharedAddress(barrier)), "r"(parity)
                 : "memory");
}

// Stores `tile` as the box at (x, y) and waits until the store has fully completed: not just
// until shared memory has been read (wait_group.read would allow reusing the buffer), but
// until the writes are done, so nothing is still in flight when the block exits and releases
// its shared memory.
__device__ void storeTileAndWait(const CUtensorMap& map, int x, int y, const void* tile) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   mapAddress(map)),
               "r"(x), "r"(y), "r"(sharedAddress(tile))
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// Byte offset of element (row, col) of a 64x64 bf16 tile as the 128-byte swizzle lays it out:
// rows are 128 bytes, and within each row the 16-byte chunk index (address bits 4..6) is
// XORed with the row's index modulo 8 (address bits 7..9). The pattern is a function of the
// shared-memory address, which is why tiles are aligned to 1024 bytes (8 rows): then address
// bits 7..9 are the row index modulo 8.
__device__ uint32_t swizzled128(int row, int col) {
  uint32_t offset = static_cast<uint32_t>(row) * 128u + static_cast<uint32_t>(col) * 2u;
  return offset ^ ((static_cast<uint32_t>(row) & 7u) << 4);
}

} // namespace

// out = in, tile by tile; launch with grid = (ceil(cols / 64), ceil(rows / 64)) and one warp.
// One thread does all the work: the TMA unit moves the data, the other lanes have nothing to do.
extern "C" __global__ void __launch_bounds__(32) copy_tiles(
    const __grid_constant__ CUtensorMap in TLC_TMA("dtype=bf16 box=64x64 swizzle=128B"),
    const __grid_constant__ CUtensorMap out TLC_TMA("dtype=bf16 box=64x64 swizzle=128B")) {
  __shared__ alignas(1024) __nv_bfloat16 tile[kTile * kTile];
  __shared__ uint64_t barrier;
  if (threadIdx.x != 0)
    return;
  const int x = blockIdx.x * kTile; // first column of the tile
  const int y = blockIdx.y * kTile; // first row of the tile
  initBarrier(&barrier);
  loadTile(tile, in, x, y, &barrier, kTileBytes);
  waitBarrier(&barrier, 0);
  // No thread wrote the tile through ordinary stores, so there is no generic-proxy write the
  // store must be ordered after; the fence is kept anyway, as the rule for a TMA store of shared
  // memory is "fence after the last generic access", and it costs next to nothing.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  // Same swizzle on both maps: the bytes go back out in the order they came in.
  storeTileAndWait(out, x, y, tile);
}

// out = in^T, where in has `rows` x `cols` elements and out `cols` x `rows`; launch with
// grid = (ceil(cols / 64), ceil(rows / 64)) and 256 threads. The box annotations use the
// parenthesised-expression form, which the launcher evaluates from kTile.
extern "C" __global__ void __launch_bounds__(256) transpose_tiles(
    const __grid_constant__ CUtensorMap in TLC_TMA("dtype=bf16 box=(kTile)x(kTile) swizzle=128B"),
    const __grid_constant__ CUtensorMap out
        TLC_TMA("dtype=bf16 box=(kTile)x(kTile) swizzle=128B")) {
  __shared__ alignas(1024) unsigned char loaded[kTileBytes];
  __shared__ alignas(1024) unsigned char transposed[kTileBytes];
  __shared__ uint64_t barrier;
  const int x = blockIdx.x * kTile; // first column of the input tile
  const int y = blockIdx.y * kTile; // first row of the input tile
  if (threadIdx.x == 0) {
    initBarrier(&barrier);
    loadTile(loaded, in, x, y, &barrier, kTileBytes);
  }
  // The other threads must not wait on the barrier before it has been initialised.
  __syncthreads();
  waitBarrier(&barrier, 0);

  // loaded(r, c) = in[y + r][x + c]; transposed(c, r) = out[x + c][y + r] must equal it.
  // Zeros loaded from outside the input land outside the output, where the store drops them.
  for (int i = threadIdx.x; i < kTile * kTile; i += blockDim.x) {
    const int r = i % kTile; // consecutive threads write consecutive output columns
    const int c = i / kTile;
    *reinterpret_cast<__nv_bfloat16*>(transposed + swizzled128(c, r)) =
        *reinterpret_cast<const __nv_bfloat16*>(loaded + swizzled128(r, c));
  }
  // The tile was written through the generic proxy and the TMA store reads it through the async
  // proxy: every writing thread fences its own writes into the async proxy, then the barrier
  // makes all of them happen before thread 0 issues the store.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0)
    storeTileAndWait(out, y, x, transposed); // the output's innermost coordinate is the input row
}
