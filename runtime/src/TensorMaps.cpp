// Tensor maps: a launcher of a kernel with TMA parameters takes tensors, checks what only run
// time knows (address, dims, strides) against the rules the annotation implies, encodes each
// descriptor and launches. Each thread keeps the descriptors it encoded last, so launches that
// repeat the same tensors (the common case) pay neither the checks nor the encoding again.
#include "Launch.h"

#include "Driver.h"
#include "Errors.h"

#include <cstdint>

namespace tlc::runtime {

namespace {

constexpr uint64_t kMaxDim = uint64_t(1) << 32;
constexpr uint64_t kMaxStride = uint64_t(1) << 40;
// The most tensor maps one kernel may have: 32 descriptors of 128 bytes fill the 4 KiB of
// parameters every arch allows (tlc build checks it).
constexpr int kMaxMapsPerKernel = 32;

tlc_status badTensor(const Module& module, int kernel, const TensorMapInfo& info, const char* rule,
                     uint64_t value, int index) {
  const char* launcher = module.kernels[kernel].launcher;
  if (index < 0)
    return fail(TLC_ERROR_INVALID_VALUE, "%s_%s: tensor '%s': %s (got %llu)", module.name, launcher,
                info.parameter, rule, static_cast<unsigned long long>(value));
  return fail(TLC_ERROR_INVALID_VALUE, "%s_%s: tensor '%s': %s (index %d: %llu)", module.name,
              launcher, info.parameter, rule, index, static_cast<unsigned long long>(value));
}

// The driver's rules on the tensor itself, checked here to name the parameter and the rule.
tlc_status checkTensor(const Module& module, int kernel, const TensorMapInfo& info,
                       const tlc_tensor* tensor) {
  if (!tensor)
    return fail(TLC_ERROR_INVALID_VALUE, "%s_%s: tensor '%s' is NULL", module.name,
                module.kernels[kernel].launcher, info.parameter);
  // The multiples are powers of two: masks, not divisions.
  uint64_t address = reinterpret_cast<uintptr_t>(tensor->data);
  if (address & (info.addressAlignment - 1))
    return badTensor(module, kernel, info,
                     info.addressAlignment == 16 ? "the address must be 16-byte aligned"
                                                 : "the address must be 32-byte aligned",
                     address, -1);
  for (cuuint32_t i = 0; i < info.rank; ++i)
    if (tensor->dims[i] < 1 || tensor->dims[i] > kMaxDim)
      return badTensor(module, kernel, info, "dims must be in 1..2^32", tensor->dims[i], int(i));
  if (tensor->dims[0] & (info.dim0Multiple - 1))
    return badTensor(module, kernel, info,
                     "this data type needs dims[0] to be a multiple of its packing",
                     tensor->dims[0], 0);
  for (cuuint32_t i = 0; i + 1 < info.rank; ++i) {
    if (tensor->strides[i] & (info.strideMultiple - 1))
      return badTensor(module, kernel, info,
                       info.strideMultiple == 16 ? "strides must be multiples of 16 bytes"
                                                 : "strides must be multiples of 32 bytes",
                       tensor->strides[i], int(i));
    if (tensor->strides[i] >= kMaxStride)
      return badTensor(module, kernel, info, "strides must be under 2^40 bytes", tensor->strides[i],
                       int(i));
  }
  if (info.mode == TensorMapMode::Im2col) {
    // The bounding box of the spatial dims (1..rank-2) must not be empty.
    for (cuuint32_t d = 0; d + 2 < info.rank; ++d) {
      int64_t extent = int64_t(tensor->dims[d + 1]) - 1 + info.upper[d] - info.lower[d];
      if (extent < 0)
        return badTensor(module, kernel, info, "the im2col corners leave an empty bounding box",
                         tensor->dims[d + 1], int(d + 1));
    }
  }
  return TLC_SUCCESS;
}

// Whether two tensors encode alike under the same settings (only the first rank dims and
// rank - 1 strides count).
bool sameTensor(const tlc_tensor& a, const tlc_tensor& b, cuuint32_t rank) {
  if (a.data != b.data)
    return false;
  for (cuuint32_t i = 0; i < rank; ++i)
    if (a.dims[i] != b.dims[i] || (i + 1 < rank && a.strides[i] != b.strides[i]))
      return false;
  return true;
}

CUresult encode(const TensorMapInfo& info, const tlc_tensor& tensor, CUtensorMap* map) {
  const Driver& d = driver();
  if (info.mode == TensorMapMode::Im2col)
    return d.tensorMapEncodeIm2col(map, info.dtype, info.rank, tensor.data, tensor.dims,
                                   tensor.strides, info.lower, info.upper, info.channels,
                                   info.pixels, info.elementStrides, info.interleave, info.swizzle,
                                   info.l2Promotion, info.oobFill);
  return d.tensorMapEncodeTiled(map, info.dtype, info.rank, tensor.data, tensor.dims,
                                tensor.strides, info.box, info.elementStrides, info.interleave,
                                info.swizzle, info.l2Promotion, info.oobFill);
}

// This thread's last descriptors: per map parameter (its TensorMapInfo, unique in the process)
// a set of two entries, the least recently used replaced. A descriptor holds only what it was
// encoded from, so an entry stays right for as long as the same tensor comes back.
struct CachedMap {
  CUtensorMap map;
  const TensorMapInfo* info;
  tlc_tensor tensor;
  unsigned long long used; // this thread's launch count when last used
};
constexpr int kCacheSets = 16;
constexpr int kCacheWays = 2;
thread_local CachedMap tlsCache[kCacheSets][kCacheWays];
thread_local unsigned long long tlsLaunches;

CachedMap* cacheSet(const TensorMapInfo* info) {
  uintptr_t key = reinterpret_cast<uintptr_t>(info);
  return tlsCache[(key / sizeof(TensorMapInfo)) % kCacheSets];
}

// The entry holding `tensor` for `info`, or null.
CachedMap* findCached(const TensorMapInfo& info, const tlc_tensor& tensor) {
  CachedMap* set = cacheSet(&info);
  for (int way = 0; way < kCacheWays; ++way)
    if (set[way].info == &info && sameTensor(set[way].tensor, tensor, info.rank))
      return &set[way];
  return nullptr;
}

// The entry to encode into: the least recently used of the set, unless this launch already
// points at it (two parameters of one launch sharing a set), then null.
CachedMap* victimFor(const TensorMapInfo& info, unsigned long long launch) {
  CachedMap* set = cacheSet(&info);
  CachedMap* victim = set[0].used <= set[1].used ? &set[0] : &set[1];
  return victim->used == launch ? nullptr : victim;
}

// Points args[info.argument] at a descriptor for `tensor`: shared with an earlier map of the
// same group holding the same tensor, cached, or newly encoded (into the cache, else `storage`).
tlc_status bindTensorMap(const Module& module, int kernel, int index, void** args,
                         const tlc_tensor* const* tensors, CUtensorMap* storage,
                         unsigned long long launch) {
  const KernelInfo& kernelInfo = module.kernels[kernel];
  const TensorMapInfo* maps = module.tensorMaps + kernelInfo.firstTensorMap;
  const TensorMapInfo& info = maps[index];
  const tlc_tensor* tensor = tensors[index];
  void*& argument = args[info.argument];
  if (tensor) {
    for (int earlier = info.group; earlier < index; ++earlier)
      if (maps[earlier].group == info.group && tensors[earlier] &&
          sameTensor(*tensors[earlier], *tensor, info.rank)) {
        argument = args[maps[earlier].argument];
        return TLC_SUCCESS;
      }
    if (CachedMap* hit = findCached(info, *tensor)) {
      hit->used = launch;
      argument = &hit->map;
      return TLC_SUCCESS;
    }
  }
  tlc_status status = checkTensor(module, kernel, info, tensor);
  if (status != TLC_SUCCESS)
    return status;
  CachedMap* entry = victimFor(info, launch);
  CUtensorMap* map = entry ? &entry->map : &storage[index];
  if (entry)
    entry->info = nullptr; // invalid until the encoding succeeds
  CUresult result = encode(info, *tensor, map);
  if (result != CUDA_SUCCESS)
    return fail(TLC_ERROR_INVALID_VALUE, "%s_%s: tensor '%s': %s rejected it: %s (%s)", module.name,
                kernelInfo.launcher, info.parameter,
                info.mode == TensorMapMode::Im2col ? "cuTensorMapEncodeIm2col"
                                                   : "cuTensorMapEncodeTiled",
                errorName(result), errorText(result));
  if (entry) {
    entry->info = &info;
    entry->tensor = *tensor;
    entry->used = launch;
  }
  argument = map;
  return TLC_SUCCESS;
}

} // namespace

tlc_status launchWithTensors(Module& module, int kernel, const tlc_config* config, void** args,
                             const tlc_tensor* const* tensors) {
  LaunchRequest request;
  tlc_status status = describeLaunch(module, kernel, config, request);
  if (status != TLC_SUCCESS)
    return status;
  // A ready device also means an open driver, which encoding needs.
  ActiveDevice active;
  status = activate(module, config->device, active);
  if (status != TLC_SUCCESS)
    return status;
  const KernelInfo& info = module.kernels[kernel];
  if (info.tensorMapCount > kMaxMapsPerKernel)
    return fail(TLC_ERROR_INVALID_VALUE, "%s_%s: more than %d tensor maps", module.name,
                info.launcher, kMaxMapsPerKernel);
  CUtensorMap storage[kMaxMapsPerKernel]; // descriptors the cache has no room for
  unsigned long long launch = ++tlsLaunches;
  for (int i = 0; i < info.tensorMapCount; ++i) {
    status = bindTensorMap(module, kernel, i, args, tensors, storage, launch);
    if (status != TLC_SUCCESS)
      return status;
  }
  return launchOn(module, kernel, *config, request, active, args);
}

} // namespace tlc::runtime
