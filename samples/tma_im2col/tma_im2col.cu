// samples/tma_im2col: a direct 2-D convolution over an NHWC f16 tensor whose input patches are
// gathered by the Tensor Memory Accelerator in im2col mode (sm_90a). Each block computes
// kPixels consecutive output pixels (in N, P, Q order) for all kOutChannels output channels:
// for every filter tap it issues one im2col TMA load that brings, for each of its output
// pixels, the input pixel under that tap into shared memory (zeros where the tap falls into the
// padding), then it multiplies with the filter and accumulates in fp32.
//
// The filter is 3 rows x 5 columns, padded by 0 rows and 2 columns: "valid" vertically, "same"
// horizontally. The asymmetry is deliberate: an encoder that swapped the W and H entries of
// the corners, or the lower and upper corner, would gather the wrong pixels and fail the check.
#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <tlc/annotations.h>

constexpr int kChannels = 32;    // C: input channels, 64 bytes per pixel (a multiple of 16)
constexpr int kOutChannels = 16; // K: output channels
constexpr int kFilterH = 3;      // R: filter rows
constexpr int kFilterW = 5;      // S: filter columns
constexpr int kPadH = 0;         // rows of zeros above and below the input
constexpr int kPadW = 2;         // columns of zeros left and right of the input
constexpr int kTaps = kFilterH * kFilterW;
constexpr int kPixels = 64;   // output pixels per block = pixelsPerColumn of the tensor map
constexpr int kThreads = 256; // kPixels pixels x 4 groups of 4 output channels
constexpr int kChannelsPerThread = kOutChannels / (kThreads / kPixels);
constexpr unsigned kTapBytes = kPixels * kChannels * sizeof(__half);
// Dynamic shared memory the launch must provide (main.cpp repeats this): one column per tap,
// 60 KiB, more than the default limit of 48 KiB, plus slack to align it to 128 bytes.
constexpr unsigned kSharedBytes = kTaps * kTapBytes + 128;

static_assert(kOutChannels % (kThreads / kPixels) == 0, "output channels split evenly");
static_assert(kSharedBytes <= 227 * 1024, "fits the opt-in shared memory of an sm_90 block");

// How the im2col tensor map and the load instruction decide what lands in shared memory.
//
// The input is NHWC, so the map's dimensions, innermost first, are {C, W, H, N}. In im2col
// mode the map defines a "bounding box" in the spatial (W, H) plane of every image, from
// lowerCorner to upperCorner, both *relative to the image's extent*:
//     W from lower[0] to (width - 1) + upper[0],   H from lower[1] to (height - 1) + upper[1]
// A load names a starting position {c, w, h, n} (inside that box) and walks pixelsPerColumn
// positions through the box: w fastest; at the box's right edge it moves to the box's left edge
// of the next row; past the box's last row it moves to the first row of the next image. For each
// position it copies channelsPerPixel channels from c on, of the input pixel at
//     (w + offset_w, h + offset_h)
// where {offset_w, offset_h} are the load's unsigned im2col offsets. A pixel outside the tensor
// (in the padding, or past the last image) is filled with zeros, and still counts towards the
// transaction bytes. Shared memory receives the pixels one after another, channelsPerPixel
// elements each (no swizzle: row i of the column starts at byte i * channels * elementSize).
//
// For a convolution, a box position is where the filter's top-left tap sits for one output
// pixel, and the offsets select the tap. Output pixel (p, q) has its top-left tap on input pixel
// (p - padH, q - padW), so the box must run over
//     w in [-padW, width - 1 + padW - (S - 1)],   h in [-padH, height - 1 + padH - (R - 1)]
// giving lower = {-padW, -padH} = {-2, 0} and upper = {padW - (S - 1), padH - (R - 1)} =
// {-2, -2}: Q = width and P = height - 2 positions, exactly the output's extent, and box
// position number i (counting across rows and images) is output pixel number i. A block whose
// first output pixel is (n, p, q) therefore starts its loads at {0, q - padW, p - padH, n}, and
// the load for tap (r, s) with offsets {s, r} delivers in column row i the input pixel
// (p_i - padH + r, q_i - padW + s) of image n_i: the input that tap (r, s) multiplies for the
// block's i-th output pixel, or zero where it lies in the padding.
// (Checked on an H100 by dumping single loads: wrapping at the box's row ends and image ends,
// zeros past the last image, and the offsets' order {w, h} behave as described.)
extern "C" __global__ void __launch_bounds__(kThreads)
    conv_nhwc(const __grid_constant__ CUtensorMap input TLC_TMA_IM2COL(
                  "dtype=f16 rank=4 channels=(kChannels) pixels=(kPixels) lower=-2x0 upper=-2x-2"),
              const __half* __restrict__ filter, // K x R x S x C
              float* __restrict__ output,        // N x P x Q x K
              int batch, int height, int width) {
  extern __shared__ unsigned char shared[];
  __shared__ uint64_t barrier;
  // The TMA destination must be 128-byte aligned; dynamic shared memory only promises 16.
  __half* columns = reinterpret_cast<__half*>(
      shared + ((128u - (static_cast<uint32_t>(__cvta_generic_to_shared(shared)) & 127u)) & 127u));
  const uint32_t barrierAddress = static_cast<uint32_t>(__cvta_generic_to_shared(&barrier));

  const int outHeight = height + 2 * kPadH - (kFilterH - 1);
  const int outWidth = width + 2 * kPadW - (kFilterW - 1);
  const int outPixels = batch * outHeight * outWidth;
  const int first = blockIdx.x * kPixels; // the block's first output pixel

  if (threadIdx.x == 0) {
    // mbarrier.init writes through the generic proxy, the TMA unit completes transactions
    // through the async proxy: fence the initialisation into the async proxy first.
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barrierAddress) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    // One arrival that expects every tap's bytes; the phase completes when all have landed.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrierAddress),
                 "r"(kTaps * kTapBytes)
                 : "memory");
    const int n = first / (outHeight * outWidth);
    const int p = first / outWidth % outHeight;
    const int q = first % outWidth;
    const int c = 0, w = q - kPadW, h = p - kPadH;
    for (int r = 0; r < kFilterH; ++r)
      for (int s = 0; s < kFilterW; ++s) {
        const unsigned short offsetW = static_cast<unsigned short>(s);
        const unsigned short offsetH = static_cast<unsigned short>(r);
        const uint32_t destination = static_cast<uint32_t>(
            __cvta_generic_to_shared(columns + (r * kFilterW + s) * kPixels * kChannels));
        asm volatile(
            "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(destination),
            "l"(reinterpret_cast<uint64_t>(&input)), "r"(c), "r"(w), "r"(h), "r"(n),
            "r"(barrierAddress), "h"(offsetW), "h"(offsetH)
            : "memory");
      }
  }
  // Nobody may wait on the barrier before thread 0 has initialised it.
  __syncthreads();
  // Completion of phase 0 also makes the loaded columns visible to this thread's loads.
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n"
                 "  .reg .pred complete;\n"
                 "  mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], 0;\n"
                 "  selp.u32 %0, 1, 0, complete;\n"
                 "}"
                 : "=r"(done)
                 : "r"(barrierAddress)
                 : "memory");

  const int pixel = threadIdx.x % kPixels;
  const int k0 = threadIdx.x / kPixels * kChannelsPerThread;
  if (first + pixel >= outPixels)
    return; // past the last image: the loaded zeros belong to no output
  float sum[kChannelsPerThread] = {};
  for (int tap = 0; tap < kTaps; ++tap) {
    const __half* in = columns + (tap * kPixels + pixel) * kChannels;
    for (int c = 0; c < kChannels; ++c) {
      const float x = __half2float(in[c]);
      for (int k = 0; k < kChannelsPerThread; ++k)
        sum[k] = fmaf(x, __half2float(filter[((k0 + k) * kTaps + tap) * kChannels + c]), sum[k]);
    }
  }
  float* out = output + static_cast<size_t>(first + pixel) * kOutChannels + k0;
  for (int k = 0; k < kChannelsPerThread; ++k)
    out[k] = sum[k];
}
