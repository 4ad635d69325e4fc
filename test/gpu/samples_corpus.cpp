// test/gpu samples_corpus: kernels of NVIDIA's cuda-samples, built by `scripts/gpu-test prepare`
// from the unmodified files of the corpus beside the checkout with tlc's default flags, each
// launched through its generated launcher and checked against a CPU reference written here from
// what the kernel computes. Among them a `static __global__` kernel (clock.cu, simpleMultiGPU.cu),
// template kernels instantiated only from host code (simpleTemplates.cu, matrixMul.cu,
// reduction_kernel.cu), a kernel launching itself from the device (cdpSimpleQuicksort.cu: tlc
// builds it relocatable and links the device runtime) and the toolkit's vector types as
// parameters (scan.cu's uint4, BlackScholes.cu's float2).
//
// Every check is self-contained: a kernel that is one step of a sample's pipeline gets its
// inputs from the CPU, not from the step before. One line per kernel, `ok` or `FAIL` with the
// first mismatch, then the total; the exit status is non-zero when any kernel failed.
#include "BlackScholes.h"
#include "bitonicSort.h"
#include "cdpSimpleQuicksort.h"
#include "clock.h"
#include "histogram256.h"
#include "matrixMul.h"
#include "reduction_kernel.h"
#include "scalarProd.h"
#include "scan.h"
#include "simpleMultiGPU.h"
#include "simpleTemplates.h"
#include "transpose.h"
#include "vectorAdd.h"

#include <cuda_runtime.h>

#include "gpu_test.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

// What one kernel's check found: what was compared, or the first thing that went wrong.
struct Outcome {
  bool ok;
  std::string detail;
};

Outcome pass(std::string what) {
  return {true, std::move(what)};
}
Outcome fail(std::string why) {
  return {false, std::move(why)};
}

// Both checks of a kernel: the first failure, else both descriptions.
Outcome both(const Outcome& first, const Outcome& second) {
  if (!first.ok)
    return first;
  if (!second.ok)
    return second;
  return pass(first.detail + "; " + second.detail);
}

// A launcher call; any status but TLC_SUCCESS ends the check with the module's own message.
#define LAUNCH(module, call)                                                                       \
  do {                                                                                             \
    tlc_status status_ = (call);                                                                   \
    if (status_ != TLC_SUCCESS)                                                                    \
      return fail(std::string("launch refused: ") + tlc_##module##_status_string(status_) + ": " + \
                  tlc_##module##_last_error());                                                    \
  } while (0)

// Device memory for `count` values of T. Outputs start as all-ones bytes (a NaN for floats), so
// a value the kernel never wrote cannot pass for a right one.
template <typename T> class DeviceArray {
public:
  explicit DeviceArray(size_t count) : count_(count) {
    CHECK_RT(cudaMalloc(&data_, bytes()));
    CHECK_RT(cudaMemset(data_, 0xff, bytes()));
  }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* get() const { return data_; }

  // A copy from pageable memory may return before its DMA lands, and a non-blocking stream does
  // not wait for it: wait for the device.
  void upload(const std::vector<T>& host) {
    CHECK_RT(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    CHECK_RT(cudaDeviceSynchronize());
  }

  // After every launch so far has finished (a launch that faulted ends the program here).
  std::vector<T> download() const {
    std::vector<T> host(count_);
    CHECK_RT(cudaDeviceSynchronize());
    CHECK_RT(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

private:
  size_t bytes() const { return count_ * sizeof(T); }
  T* data_ = nullptr;
  size_t count_;
};

// A non-blocking stream, destroyed at the end of the check.
class Stream {
public:
  Stream() { CHECK_RT(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

private:
  cudaStream_t stream_ = nullptr;
};

tlc_config launchConfig(dim3 grid, dim3 block, unsigned sharedBytes = 0,
                        cudaStream_t stream = nullptr) {
  tlc_config config = {};
  config.grid[0] = grid.x;
  config.grid[1] = grid.y;
  config.grid[2] = grid.z;
  config.block[0] = block.x;
  config.block[1] = block.y;
  config.block[2] = block.z;
  config.shared_bytes = sharedBytes;
  config.stream = stream;
  return config;
}

template <typename T> std::string show(const T& value) {
  std::ostringstream text;
  text.precision(9);
  text << value;
  return text.str();
}

// Compares every element with `matches(got, want, index)`; names the first that differs.
template <typename Got, typename Want, typename Matches>
Outcome compare(const std::string& what, const std::vector<Got>& got, const std::vector<Want>& want,
                Matches matches) {
  if (got.size() != want.size())
    return fail(what + ": " + std::to_string(got.size()) + " values, expected " +
                std::to_string(want.size()));
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!matches(got[i], want[i], i) && wrong++ == 0)
      first = i;
  if (wrong == 0)
    return pass(std::to_string(got.size()) + " " + what);
  return fail(what + ": first mismatch at [" + std::to_string(first) + "]: got " +
              show(got[first]) + ", expected " + show(want[first]) + " (" + std::to_string(wrong) +
              " of " + std::to_string(got.size()) + " wrong)");
}

template <typename T>
Outcome compareExact(const std::string& what, const std::vector<T>& got,
                     const std::vector<T>& want) {
  return compare(what, got, want, [](const T& g, const T& w, size_t) { return g == w; });
}

// Within `tolerance[i]` of a reference computed in double.
Outcome compareClose(const std::string& what, const std::vector<float>& got,
                     const std::vector<double>& want, const std::vector<double>& tolerance) {
  return compare(what, got, want, [&](float g, double w, size_t i) {
    return std::fabs(static_cast<double>(g) - w) <= tolerance[i];
  });
}

std::vector<float> uniformFloats(std::mt19937& random, size_t count, float low, float high) {
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float& value : values)
    value = distribution(random);
  return values;
}

template <typename T>
std::vector<T> uniformInts(std::mt19937& random, size_t count, T low, T high) {
  std::uniform_int_distribution<T> distribution(low, high);
  std::vector<T> values(count);
  for (T& value : values)
    value = distribution(random);
  return values;
}

std::vector<unsigned> randomWords(std::mt19937& random, size_t count) {
  std::vector<unsigned> values(count);
  for (unsigned& value : values)
    value = random();
  return values;
}

// ---- 0_Introduction --------------------------------------------------------------------------

// vectorAdd: C[i] = A[i] + B[i] for i < numElements, one thread per element.
Outcome checkVectorAdd(std::mt19937& random) {
  const int n = 50000; // not a multiple of the block
  std::vector<float> a = uniformFloats(random, n, -1, 1), b = uniformFloats(random, n, -1, 1);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = a[i] + b[i];
  DeviceArray<float> da(a), db(b), dc(n);
  tlc_config config = launchConfig(dim3((n + 255) / 256), dim3(256));
  LAUNCH(vectorAdd, vectorAdd_vectorAdd(&config, da.get(), db.get(), dc.get(), n));
  return compareExact("sums", dc.download(), want);
}

// Every value changed from the all-ones bytes DeviceArray starts with.
template <typename T> Outcome checkWritten(const std::string& what, const std::vector<T>& got) {
  T untouched;
  std::memset(&untouched, 0xff, sizeof untouched);
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] == untouched)
      return fail(what + ": [" + std::to_string(i) + "] never written");
  return pass(std::to_string(got.size()) + " " + what + " written");
}

// timedReduction: every block reads the same 2 * blockDim.x inputs (dynamic shared memory of
// that many floats) and writes their minimum to output[block], its start clock to timer[block]
// and its end clock to timer[block + gridDim.x].
Outcome checkTimedReduction(std::mt19937& random) {
  const unsigned blocks = 64, threads = 256;
  std::vector<float> input = uniformFloats(random, 2 * threads, -100, 100);
  std::vector<float> want(blocks, *std::min_element(input.begin(), input.end()));
  DeviceArray<float> din(input), dout(blocks);
  DeviceArray<clock_t> dtimer(2 * blocks); // all-ones bytes: no clock value reads so
  tlc_config config = launchConfig(dim3(blocks), dim3(threads), 2 * threads * sizeof(float));
  LAUNCH(clock, clock_timedReduction(&config, din.get(), dout.get(), dtimer.get()));
  return both(compareExact("block minima", dout.download(), want),
              checkWritten("timer entries", dtimer.download()));
}

// reduceKernel: thread t of the grid sums d_Input[t], d_Input[t + threads], ... below N, in that
// order, into d_Result[t].
Outcome checkReduceKernel(std::mt19937& random) {
  const int n = (1 << 20) + 77, blocks = 32, threads = 256, total = blocks * threads;
  std::vector<float> input = uniformFloats(random, n, -1, 1);
  std::vector<double> want(total), tolerance(total);
  for (int t = 0; t < total; ++t) {
    double sum = 0, magnitude = 0;
    for (int pos = t; pos < n; pos += total) {
      sum += input[pos];
      magnitude += std::fabs(input[pos]);
    }
    want[t] = sum;
    tolerance[t] = 1e-5 * magnitude;
  }
  DeviceArray<float> din(input), dout(total);
  tlc_config config = launchConfig(dim3(blocks), dim3(threads));
  LAUNCH(simpleMultiGPU, simpleMultiGPU_reduceKernel(&config, dout.get(), din.get(), n));
  return compareClose("strided partial sums", dout.download(), want, tolerance);
}

// A launcher as a callable taking the config first. In C++ each launcher name is overloaded (the
// dim3 form beside the tlc_config one, NAME.h), so its bare name cannot be passed to a template.
#define WITH_CONFIG(launcher)                                                                      \
  [](const tlc_config* config, auto... arguments) { return launcher(config, arguments...); }

// testKernel<T>: one block; stages g_idata in dynamic shared memory and writes
// g_odata[i] = blockDim.x * g_idata[i].
template <typename T, typename Launch>
Outcome checkTestKernel(const std::vector<T>& input, Launch launch) {
  const unsigned threads = static_cast<unsigned>(input.size());
  std::vector<T> want(threads);
  for (unsigned i = 0; i < threads; ++i)
    want[i] = static_cast<T>(threads) * input[i];
  DeviceArray<T> din(input), dout(threads);
  tlc_config config = launchConfig(dim3(1), dim3(threads), threads * sizeof(T));
  LAUNCH(simpleTemplates, launch(&config, din.get(), dout.get()));
  return compareExact("scaled values", dout.download(), want);
}

Outcome checkTestKernelFloat(std::mt19937& random) {
  return checkTestKernel(uniformFloats(random, 256, -1000, 1000),
                         WITH_CONFIG(simpleTemplates_testKernel_float));
}

Outcome checkTestKernelInt(std::mt19937& random) {
  return checkTestKernel(uniformInts(random, 256, -1000000, 1000000),
                         WITH_CONFIG(simpleTemplates_testKernel_int));
}

// MatrixMulCUDA<BLOCK_SIZE>: C = A * B, row-major, A of wA columns and B of wB; one
// BLOCK_SIZE x BLOCK_SIZE thread block per tile of C; every dimension a multiple of BLOCK_SIZE.
// Launched on a non-blocking stream of the caller's.
template <typename Launch>
Outcome checkMatrixMul(std::mt19937& random, int blockSize, Launch launch) {
  const int hA = 4 * blockSize, wA = 3 * blockSize, wB = 5 * blockSize;
  std::vector<float> a = uniformFloats(random, hA * wA, -1, 1);
  std::vector<float> b = uniformFloats(random, wA * wB, -1, 1);
  std::vector<double> want(hA * wB), tolerance(hA * wB);
  for (int row = 0; row < hA; ++row)
    for (int col = 0; col < wB; ++col) {
      double sum = 0, magnitude = 0;
      for (int k = 0; k < wA; ++k) {
        double product = static_cast<double>(a[row * wA + k]) * b[k * wB + col];
        sum += product;
        magnitude += std::fabs(product);
      }
      want[row * wB + col] = sum;
      tolerance[row * wB + col] = 1e-5 * magnitude + 1e-6;
    }
  DeviceArray<float> da(a), db(b), dc(hA * wB);
  Stream stream;
  tlc_config config = launchConfig(dim3(wB / blockSize, hA / blockSize), dim3(blockSize, blockSize),
                                   0, stream.get());
  LAUNCH(matrixMul, launch(&config, dc.get(), da.get(), db.get(), wA, wB));
  CHECK_RT(cudaStreamSynchronize(stream.get()));
  return compareClose("elements of C", dc.download(), want, tolerance);
}

Outcome checkMatrixMul16(std::mt19937& random) {
  return checkMatrixMul(random, 16, WITH_CONFIG(matrixMul_MatrixMulCUDA_16));
}

Outcome checkMatrixMul32(std::mt19937& random) {
  return checkMatrixMul(random, 32, WITH_CONFIG(matrixMul_MatrixMulCUDA_32));
}

// ---- 3_CUDA_Features -------------------------------------------------------------------------

// cdp_simple_quicksort: one thread partitions data[left..right] around its middle element and
// launches itself from the device on each part; short or deep parts are selection-sorted. The
// host launches one thread on the whole array; the grid ends when all its children have.
Outcome checkQuicksort(std::mt19937& random) {
  const int n = 4096;
  std::vector<unsigned> data = randomWords(random, n);
  std::vector<unsigned> want = data;
  std::sort(want.begin(), want.end());
  DeviceArray<unsigned> ddata(data);
  tlc_config config = launchConfig(dim3(1), dim3(1));
  LAUNCH(cdpSimpleQuicksort,
         cdpSimpleQuicksort_cdp_simple_quicksort(&config, ddata.get(), 0, n - 1, 0));
  return compareExact("sorted keys", ddata.download(), want);
}

// ---- 6_Performance ---------------------------------------------------------------------------

// transposeCoalesced, transposeNoBankConflicts: idata is height rows of width floats; odata
// becomes width rows of height, odata[r * height + c] = idata[c * width + r]. 32 x 32 tiles, each
// by a 32 x 16 block.
template <typename Launch> Outcome checkTranspose(std::mt19937& random, Launch launch) {
  const int width = 320, height = 192; // not square, multiples of the tile
  std::vector<float> in = uniformFloats(random, width * height, -1, 1);
  std::vector<float> want(width * height);
  for (int r = 0; r < width; ++r)
    for (int c = 0; c < height; ++c)
      want[r * height + c] = in[c * width + r];
  DeviceArray<float> din(in), dout(width * height);
  tlc_config config = launchConfig(dim3(width / 32, height / 32), dim3(32, 16));
  LAUNCH(transpose, launch(&config, dout.get(), din.get(), width, height));
  return compareExact("transposed elements", dout.download(), want);
}

Outcome checkTransposeCoalesced(std::mt19937& random) {
  return checkTranspose(random, WITH_CONFIG(transpose_transposeCoalesced));
}

Outcome checkTransposeNoBankConflicts(std::mt19937& random) {
  return checkTranspose(random, WITH_CONFIG(transpose_transposeNoBankConflicts));
}

// ---- 2_Concepts_and_Techniques: scan ---------------------------------------------------------
//
// scan.cu's large-array exclusive scan of `batches` arrays of `length` words, in three kernels:
// scanExclusiveShared scans each segment of 1024 words (256 threads of one uint4 each);
// scanExclusiveShared2 scans the segment totals of each array; uniformUpdate adds those to every
// word of each segment.
constexpr unsigned kScanSegment = 1024, kScanBatches = 4, kScanLength = 8192;
constexpr unsigned kScanWords = kScanBatches * kScanLength;
constexpr unsigned kScanSegments = kScanWords / kScanSegment;

std::vector<unsigned> exclusiveScan(const std::vector<unsigned>& in, unsigned run) {
  std::vector<unsigned> out(in.size());
  for (size_t start = 0; start < in.size(); start += run) {
    unsigned sum = 0;
    for (size_t i = start; i < start + run; ++i) {
      out[i] = sum;
      sum += in[i];
    }
  }
  return out;
}

std::vector<unsigned> segmentTotals(const std::vector<unsigned>& in) {
  std::vector<unsigned> totals(kScanSegments);
  for (unsigned i = 0; i < kScanWords; ++i)
    totals[i / kScanSegment] += in[i];
  return totals;
}

// The words, as the uint4 the kernels take.
uint4* asUint4(unsigned* words) {
  return reinterpret_cast<uint4*>(words);
}

Outcome checkScanExclusiveShared(std::mt19937& random) {
  std::vector<unsigned> src = uniformInts(random, kScanWords, 0u, 1000u);
  DeviceArray<unsigned> dsrc(src), ddst(kScanWords);
  tlc_config config = launchConfig(dim3(kScanSegments), dim3(kScanSegment / 4));
  LAUNCH(scan,
         scan_scanExclusiveShared(&config, asUint4(ddst.get()), asUint4(dsrc.get()), kScanSegment));
  return compareExact("words scanned in segments", ddst.download(),
                      exclusiveScan(src, kScanSegment));
}

Outcome checkScanExclusiveShared2(std::mt19937& random) {
  std::vector<unsigned> src = uniformInts(random, kScanWords, 0u, 1000u);
  DeviceArray<unsigned> dsrc(src), ddst(exclusiveScan(src, kScanSegment)), dbuf(kScanSegments);
  tlc_config config = launchConfig(dim3((kScanSegments + 255) / 256), dim3(256));
  LAUNCH(scan, scan_scanExclusiveShared2(&config, dbuf.get(), ddst.get(), dsrc.get(), kScanSegments,
                                         kScanLength / kScanSegment));
  return compareExact("segment offsets", dbuf.download(),
                      exclusiveScan(segmentTotals(src), kScanLength / kScanSegment));
}

Outcome checkUniformUpdate(std::mt19937& random) {
  std::vector<unsigned> src = uniformInts(random, kScanWords, 0u, 1000u);
  DeviceArray<unsigned> ddata(exclusiveScan(src, kScanSegment));
  DeviceArray<unsigned> dbuf(exclusiveScan(segmentTotals(src), kScanLength / kScanSegment));
  tlc_config config = launchConfig(dim3(kScanSegments), dim3(kScanSegment / 4));
  LAUNCH(scan, scan_uniformUpdate(&config, asUint4(ddata.get()), dbuf.get()));
  return compareExact("words of the whole scan", ddata.download(), exclusiveScan(src, kScanLength));
}

// ---- 2_Concepts_and_Techniques: histogram, scalar products, sort, reduction -------------------

// histogram256Kernel: blocks of 192 threads walk the words grid-stride (word w goes to block
// (w / 192) % gridDim.x) and count their four bytes; block b writes its 256 counts at
// d_PartialHistograms[b * 256].
Outcome checkHistogram256(std::mt19937& random) {
  const unsigned words = 1 << 18, blocks = 240, threads = 192;
  std::vector<unsigned> data = randomWords(random, words);
  std::vector<unsigned> want(blocks * 256);
  for (unsigned w = 0; w < words; ++w)
    for (int byte = 0; byte < 4; ++byte)
      ++want[(w / threads) % blocks * 256 + ((data[w] >> (8 * byte)) & 0xff)];
  DeviceArray<unsigned> ddata(data), dpartial(blocks * 256);
  tlc_config config = launchConfig(dim3(blocks), dim3(threads));
  LAUNCH(histogram256,
         histogram256_histogram256Kernel(&config, dpartial.get(), ddata.get(), words));
  return compareExact("per-block bin counts", dpartial.download(), want);
}

// mergeHistogram256Kernel: block `bin` (of 256 threads) sums that bin over histogramCount
// partial histograms.
Outcome checkMergeHistogram256(std::mt19937& random) {
  const unsigned partials = 240;
  std::vector<unsigned> partial = uniformInts(random, partials * 256, 0u, 100000u);
  std::vector<unsigned> want(256);
  for (unsigned i = 0; i < partials * 256; ++i)
    want[i % 256] += partial[i];
  DeviceArray<unsigned> dpartial(partial), dhistogram(256);
  tlc_config config = launchConfig(dim3(256), dim3(256));
  LAUNCH(histogram256,
         histogram256_mergeHistogram256Kernel(&config, dhistogram.get(), dpartial.get(), partials));
  return compareExact("bins", dhistogram.download(), want);
}

// scalarProdGPU: d_C[v] = dot product of the v-th elementN-long vectors of d_A and d_B.
Outcome checkScalarProd(std::mt19937& random) {
  const int vectors = 64, elements = 4096;
  std::vector<float> a = uniformFloats(random, vectors * elements, -1, 1);
  std::vector<float> b = uniformFloats(random, vectors * elements, -1, 1);
  std::vector<double> want(vectors), tolerance(vectors);
  for (int v = 0; v < vectors; ++v) {
    double sum = 0, magnitude = 0;
    for (int i = v * elements; i < (v + 1) * elements; ++i) {
      double product = static_cast<double>(a[i]) * b[i];
      sum += product;
      magnitude += std::fabs(product);
    }
    want[v] = sum;
    tolerance[v] = 1e-5 * magnitude + 1e-6;
  }
  DeviceArray<float> da(a), db(b), dc(vectors);
  tlc_config config = launchConfig(dim3(128), dim3(256)); // more blocks than vectors
  LAUNCH(scalarProd,
         scalarProd_scalarProdGPU(&config, dc.get(), da.get(), db.get(), vectors, elements));
  return compareClose("dot products", dc.download(), want, tolerance);
}

// bitonicSortShared: each block of 512 threads sorts one array of 1024 keys (values moving with
// them) in shared memory, ascending when dir is 1.
Outcome checkBitonicSort(std::mt19937& random) {
  const unsigned arrays = 16, length = 1024, total = arrays * length;
  std::vector<unsigned> keys = randomWords(random, total), values(total);
  for (unsigned i = 0; i < total; ++i)
    values[i] = i;
  std::vector<unsigned> want = keys;
  for (unsigned start = 0; start < total; start += length)
    std::sort(want.begin() + start, want.begin() + start + length);
  DeviceArray<unsigned> dsrcKey(keys), dsrcValue(values), ddstKey(total), ddstValue(total);
  tlc_config config = launchConfig(dim3(arrays), dim3(length / 2));
  LAUNCH(bitonicSort, bitonicSort_bitonicSortShared(&config, ddstKey.get(), ddstValue.get(),
                                                    dsrcKey.get(), dsrcValue.get(), length, 1));
  std::vector<unsigned> gotKeys = ddstKey.download(), gotValues = ddstValue.download();
  // Each value must still name its key, and each array's values must be a permutation of it.
  std::vector<unsigned> keyOfValue(total, ~0u);
  for (unsigned i = 0; i < total; ++i)
    if (gotValues[i] < total && gotValues[i] / length == i / length)
      keyOfValue[i] = keys[gotValues[i]];
  std::vector<unsigned> sortedValues = gotValues;
  for (unsigned start = 0; start < total; start += length)
    std::sort(sortedValues.begin() + start, sortedValues.begin() + start + length);
  return both(compareExact("sorted keys", gotKeys, want),
              both(compareExact("values beside their keys", keyOfValue, gotKeys),
                   compareExact("values, each once", sortedValues, values)));
}

// reduce6<int, 256, nIsPow2>: each block of 256 threads sums its part of g_idata into
// g_odata[block], dynamic shared memory of 256 ints. With nIsPow2 a thread takes two elements
// 256 apart per step, so element j goes to block (j / 512) % gridDim.x; without, one, so to
// block (j / 256) % gridDim.x.
template <typename Launch>
Outcome checkReduce6(std::mt19937& random, unsigned n, bool pow2, Launch launch) {
  const unsigned blocks = 64, threads = 256, span = pow2 ? 2 * threads : threads;
  std::vector<int> input = uniformInts(random, n, -1000, 1000);
  std::vector<int> want(blocks);
  for (unsigned j = 0; j < n; ++j)
    want[(j / span) % blocks] += input[j];
  DeviceArray<int> din(input), dout(blocks);
  tlc_config config = launchConfig(dim3(blocks), dim3(threads), threads * sizeof(int));
  LAUNCH(reduction_kernel, launch(&config, din.get(), dout.get(), n));
  return compareExact("block sums", dout.download(), want);
}

Outcome checkReduce6Pow2(std::mt19937& random) {
  return checkReduce6(random, 1u << 20, true, WITH_CONFIG(reduction_kernel_reduce6_int_256_true));
}

Outcome checkReduce6AnyN(std::mt19937& random) {
  return checkReduce6(random, 1000003, false, WITH_CONFIG(reduction_kernel_reduce6_int_256_false));
}

// ---- 5_Domain_Specific -----------------------------------------------------------------------

// The standard normal distribution function.
double normalCdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// BlackScholesGPU: European call and put prices of optN options (two per thread, as the .x and
// .y of float2 arrays) by the Black-Scholes formula, the normal CDF by a polynomial within 1e-7.
// __launch_bounds__(128).
Outcome checkBlackScholes(std::mt19937& random) {
  const int options = 100000, pairs = options / 2;
  const float riskFree = 0.02f, volatility = 0.30f;
  std::vector<float> price = uniformFloats(random, options, 5, 30);
  std::vector<float> strike = uniformFloats(random, options, 1, 100);
  std::vector<float> years = uniformFloats(random, options, 0.25f, 10);
  std::vector<double> wantCall(options), wantPut(options), tolerance(options);
  for (int i = 0; i < options; ++i) {
    double s = price[i], x = strike[i], t = years[i], r = riskFree, v = volatility;
    double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * std::sqrt(t));
    double d2 = d1 - v * std::sqrt(t);
    double discounted = x * std::exp(-r * t);
    wantCall[i] = s * normalCdf(d1) - discounted * normalCdf(d2);
    wantPut[i] = discounted * normalCdf(-d2) - s * normalCdf(-d1);
    tolerance[i] = 1e-3; // fast intrinsics and the polynomial, on prices up to 100
  }
  auto pack = [&](const std::vector<float>& values) {
    std::vector<float2> packed(pairs);
    for (int p = 0; p < pairs; ++p)
      packed[p] = make_float2(values[2 * p], values[2 * p + 1]);
    return packed;
  };
  DeviceArray<float2> dprice(pack(price)), dstrike(pack(strike)), dyears(pack(years));
  DeviceArray<float2> dcall(pairs), dput(pairs);
  tlc_config config = launchConfig(dim3((pairs + 127) / 128), dim3(128));
  LAUNCH(BlackScholes,
         BlackScholes_BlackScholesGPU(&config, dcall.get(), dput.get(), dprice.get(), dstrike.get(),
                                      dyears.get(), riskFree, volatility, options));
  auto unpack = [](const std::vector<float2>& packed) {
    std::vector<float> values;
    for (const float2& pair : packed) {
      values.push_back(pair.x);
      values.push_back(pair.y);
    }
    return values;
  };
  return both(compareClose("call prices", unpack(dcall.download()), wantCall, tolerance),
              compareClose("put prices", unpack(dput.download()), wantPut, tolerance));
}

// ---- the table -------------------------------------------------------------------------------

struct Check {
  const char* file;   // in the corpus's Samples/
  const char* kernel; // as the source names it
  const char* what;   // why it is here
  Outcome (*run)(std::mt19937&);
};

const Check kChecks[] = {
    {"0_Introduction/vectorAdd/vectorAdd.cu", "vectorAdd", "ordinary kernel", checkVectorAdd},
    {"0_Introduction/clock/clock.cu", "timedReduction", "static __global__, clock_t*",
     checkTimedReduction},
    {"0_Introduction/simpleMultiGPU/simpleMultiGPU.cu", "reduceKernel",
     "static __global__, reduction", checkReduceKernel},
    {"0_Introduction/simpleTemplates/simpleTemplates.cu", "testKernel<float>",
     "template instantiated from host code", checkTestKernelFloat},
    {"0_Introduction/simpleTemplates/simpleTemplates.cu", "testKernel<int>",
     "template instantiated from host code", checkTestKernelInt},
    {"0_Introduction/matrixMul/matrixMul.cu", "MatrixMulCUDA<16>",
     "template from host code, matrix multiply, stream", checkMatrixMul16},
    {"0_Introduction/matrixMul/matrixMul.cu", "MatrixMulCUDA<32>",
     "template from host code, matrix multiply, stream", checkMatrixMul32},
    {"3_CUDA_Features/cdpSimpleQuicksort/cdpSimpleQuicksort.cu", "cdp_simple_quicksort",
     "dynamic parallelism", checkQuicksort},
    {"6_Performance/transpose/transpose.cu", "transposeCoalesced", "transpose, 2-D grid",
     checkTransposeCoalesced},
    {"6_Performance/transpose/transpose.cu", "transposeNoBankConflicts", "transpose, 2-D grid",
     checkTransposeNoBankConflicts},
    {"2_Concepts_and_Techniques/scan/scan.cu", "scanExclusiveShared", "scan, uint4*",
     checkScanExclusiveShared},
    {"2_Concepts_and_Techniques/scan/scan.cu", "scanExclusiveShared2", "scan",
     checkScanExclusiveShared2},
    {"2_Concepts_and_Techniques/scan/scan.cu", "uniformUpdate", "scan, uint4*", checkUniformUpdate},
    {"2_Concepts_and_Techniques/histogram/histogram256.cu", "histogram256Kernel", "histogram",
     checkHistogram256},
    {"2_Concepts_and_Techniques/histogram/histogram256.cu", "mergeHistogram256Kernel", "histogram",
     checkMergeHistogram256},
    {"2_Concepts_and_Techniques/scalarProd/scalarProd.cu", "scalarProdGPU", "dot products",
     checkScalarProd},
    {"2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu", "bitonicSortShared",
     "sorting network", checkBitonicSort},
    {"2_Concepts_and_Techniques/reduction/reduction_kernel.cu", "reduce6<int, 256, true>",
     "template from host code, reduction", checkReduce6Pow2},
    {"2_Concepts_and_Techniques/reduction/reduction_kernel.cu", "reduce6<int, 256, false>",
     "template from host code, reduction", checkReduce6AnyN},
    {"5_Domain_Specific/BlackScholes/BlackScholes.cu", "BlackScholesGPU",
     "float2*, __launch_bounds__", checkBlackScholes},
};

} // namespace

int main() {
  std::mt19937 random(gpu_seed());
  CHECK_RT(cudaSetDevice(0));
  int failed = 0, count = 0;
  for (const Check& check : kChecks) {
    Outcome outcome = check.run(random);
    ++count;
    failed += !outcome.ok;
    std::printf("%-4s %s: %s (%s): %s\n", outcome.ok ? "ok" : "FAIL", check.file, check.kernel,
                check.what, outcome.detail.c_str());
    std::fflush(stdout);
  }
  if (failed)
    std::printf("samples_corpus: FAIL: %d of %d kernels failed\n", failed, count);
  else
    std::printf("samples_corpus: all %d kernels ok\n", count);
  return failed ? 1 : 0;
}
