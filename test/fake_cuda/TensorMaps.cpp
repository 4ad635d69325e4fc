// cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col: the arguments are checked against the
// driver's documented limits (a subset), recorded, and the map gets a pattern naming the call.
#include "Driver.h"
#include "EntryPoints.h"

#include <algorithm>
#include <cstdint>

namespace fake_cuda {

namespace {

// An encoded map: the magic, the log index of the encode call, then filler.
constexpr cuuint64_t kMapMagic = 0x50414d54454b4146; // "FAKETMAP", little endian
constexpr cuuint64_t kMapFiller = 0xa5a5a5a5a5a5a5a5;
constexpr int kMapWords = sizeof(CUtensorMap) / sizeof(cuuint64_t);

void writePattern(CUtensorMap& map, long index) {
  map.opaque[0] = kMapMagic;
  map.opaque[1] = static_cast<cuuint64_t>(index);
  std::fill(map.opaque + 2, map.opaque + kMapWords, kMapFiller);
}

// What the tiled and im2col encodings have in common.
struct Layout {
  CUtensorMap* map;
  CUtensorMapDataType dataType;
  cuuint32_t rank;
  void* address;
  const cuuint64_t* dims;
  const cuuint64_t* strides;
  const cuuint32_t* elementStrides;
  CUtensorMapInterleave interleave;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2Promotion;
  CUtensorMapFloatOOBfill oobFill;
};

// Records the common arguments, as far as the pointers given allow.
void recordLayout(fake_cuda_tensor_map_call& out, const Layout& in) {
  out.map = in.map;
  out.data_type = in.dataType;
  out.rank = in.rank;
  out.address = in.address;
  out.interleave = in.interleave;
  out.swizzle = in.swizzle;
  out.l2_promotion = in.l2Promotion;
  out.oob_fill = in.oobFill;
  unsigned rank = std::min(in.rank, 5u);
  if (in.dims)
    std::copy_n(in.dims, rank, out.dims);
  if (in.strides && rank > 1)
    std::copy_n(in.strides, rank - 1, out.strides);
  if (in.elementStrides)
    std::copy_n(in.elementStrides, rank, out.element_strides);
}

CUresult checkLayout(const Layout& in, cuuint32_t minRank) {
  if (!in.map || !in.address || !in.dims || !in.elementStrides || (in.rank > 1 && !in.strides))
    return CUDA_ERROR_INVALID_VALUE;
  if (in.rank < minRank || in.rank > 5)
    return CUDA_ERROR_INVALID_VALUE;
  cuuint64_t alignment = in.interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
  if (reinterpret_cast<std::uintptr_t>(in.address) % alignment != 0)
    return CUDA_ERROR_INVALID_VALUE;
  for (cuuint32_t i = 0; i < in.rank; ++i) {
    if (in.dims[i] == 0 || in.dims[i] > (cuuint64_t{1} << 32))
      return CUDA_ERROR_INVALID_VALUE;
    if (in.elementStrides[i] == 0 || in.elementStrides[i] > 8)
      return CUDA_ERROR_INVALID_VALUE;
  }
  for (cuuint32_t i = 0; i + 1 < in.rank; ++i)
    if (in.strides[i] % alignment != 0 || in.strides[i] >= (cuuint64_t{1} << 40))
      return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

} // namespace

long tensorMapSource(const void* address) {
  if (!address)
    return -1;
  const auto* map = static_cast<const CUtensorMap*>(address);
  if (map->opaque[0] != kMapMagic)
    return -1;
  for (int i = 2; i < kMapWords; ++i)
    if (map->opaque[i] != kMapFiller)
      return -1;
  return static_cast<long>(map->opaque[1]);
}

CUresult CUDAAPI tensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType dataType,
                                      cuuint32_t rank, void* address, const cuuint64_t* dims,
                                      const cuuint64_t* strides, const cuuint32_t* box,
                                      const cuuint32_t* elementStrides,
                                      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                      CUtensorMapL2promotion l2Promotion,
                                      CUtensorMapFloatOOBfill oobFill) {
  Call call("cuTensorMapEncodeTiled");
  Layout layout = {map,        dataType, rank,        address, dims, strides, elementStrides,
                   interleave, swizzle,  l2Promotion, oobFill};
  fake_cuda_tensor_map_call& record = call.record().tensor_map;
  recordLayout(record, layout);
  if (box)
    std::copy_n(box, std::min(rank, 5u), record.box);
  if (CUresult early = call.start())
    return call.finish(early);
  if (CUresult refused = checkLayout(layout, 1))
    return call.finish(refused);
  if (!box)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  for (cuuint32_t i = 0; i < rank; ++i)
    if (box[i] == 0 || box[i] > 256)
      return call.finish(CUDA_ERROR_INVALID_VALUE);
  writePattern(*map, call.record().index);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI tensorMapEncodeIm2col(CUtensorMap* map, CUtensorMapDataType dataType,
                                       cuuint32_t rank, void* address, const cuuint64_t* dims,
                                       const cuuint64_t* strides, const int* lowerCorner,
                                       const int* upperCorner, cuuint32_t channelsPerPixel,
                                       cuuint32_t pixelsPerColumn, const cuuint32_t* elementStrides,
                                       CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                       CUtensorMapL2promotion l2Promotion,
                                       CUtensorMapFloatOOBfill oobFill) {
  Call call("cuTensorMapEncodeIm2col");
  Layout layout = {map,        dataType, rank,        address, dims, strides, elementStrides,
                   interleave, swizzle,  l2Promotion, oobFill};
  fake_cuda_tensor_map_call& record = call.record().tensor_map;
  recordLayout(record, layout);
  // The corners cover the spatial dimensions: all but the innermost (channels) and outermost
  // (batch) ones.
  unsigned spatial = rank >= 3 && rank <= 5 ? rank - 2 : 0;
  if (lowerCorner)
    std::copy_n(lowerCorner, spatial, record.lower_corner);
  if (upperCorner)
    std::copy_n(upperCorner, spatial, record.upper_corner);
  record.channels_per_pixel = channelsPerPixel;
  record.pixels_per_column = pixelsPerColumn;
  if (CUresult early = call.start())
    return call.finish(early);
  if (CUresult refused = checkLayout(layout, 3))
    return call.finish(refused);
  if (!lowerCorner || !upperCorner || channelsPerPixel == 0 || channelsPerPixel > 256 ||
      pixelsPerColumn == 0 || pixelsPerColumn > 1024)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  writePattern(*map, call.record().index);
  return call.finish(CUDA_SUCCESS);
}

} // namespace fake_cuda
