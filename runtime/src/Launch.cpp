// Launching: config checks, the context a launch runs in, kernel attributes set once per device,
// cuLaunchKernel / cuLaunchKernelEx, and messages that say which limit a refused launch broke.
#include "Launch.h"

#include "Driver.h"
#include "Errors.h"

#include <algorithm>
#include <cstring>

namespace tlc::runtime {

namespace {

// The size of the first tlc_config layout: what a zero `size` means.
constexpr unsigned kFirstConfigSize = sizeof(tlc_config);

// A config from a caller built against a newer tlc may be larger; the fields this library does
// not know must then be zero, or the launch would silently ignore what the caller asked for.
tlc_status checkConfigSize(const Module& module, int kernel, const tlc_config& config) {
  unsigned size = config.size;
  if (size == 0 || size == sizeof(tlc_config))
    return TLC_SUCCESS;
  const char* launcher = module.kernels[kernel].launcher;
  if (size < kFirstConfigSize)
    return fail(TLC_ERROR_INVALID_VALUE,
                "%s_%s: config.size is %u, smaller than any tlc_config (%u); set it to "
                "sizeof(tlc_config) or 0",
                module.name, launcher, size, kFirstConfigSize);
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&config);
  for (unsigned i = sizeof(tlc_config); i < size; ++i)
    if (bytes[i])
      return fail(TLC_ERROR_INVALID_VALUE,
                  "%s_%s: the config sets fields this library does not know (byte %u of %u): "
                  "it was built by an older tlc than the caller's header",
                  module.name, launcher, i, size);
  return TLC_SUCCESS;
}

// dim3 semantics: y and z default to 1; x must be given.
bool shapeOf(const unsigned (&dims)[3], Dim3& out) {
  out = {dims[0], dims[1] ? dims[1] : 1u, dims[2] ? dims[2] : 1u};
  return out.x != 0;
}

tlc_status checkCluster(const Module& module, const KernelInfo& info, const tlc_config& config,
                        LaunchRequest& request) {
  const Dim3 compiled = {info.cluster[0], info.cluster[1], info.cluster[2]};
  if (config.cluster[0]) {
    shapeOf(config.cluster, request.cluster);
    bool isCompiled = compiled.x != 0;
    bool same = isCompiled && request.cluster.x == compiled.x && request.cluster.y == compiled.y &&
                request.cluster.z == compiled.z;
    // A cluster shape compiled in with __cluster_dims__ cannot be changed at launch.
    if (isCompiled && !same)
      return fail(TLC_ERROR_INVALID_VALUE,
                  "%s_%s: the kernel was compiled with __cluster_dims__(%u, %u, %u); a launch "
                  "cannot change it to (%u, %u, %u)",
                  module.name, info.launcher, compiled.x, compiled.y, compiled.z, request.cluster.x,
                  request.cluster.y, request.cluster.z);
    request.clusterOverride = !isCompiled;
  } else if (compiled.x) {
    request.cluster = compiled;
  }
  const Dim3& grid = request.grid;
  const Dim3& cluster = request.cluster;
  if (cluster.x && (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z))
    return fail(TLC_ERROR_INVALID_VALUE,
                "%s_%s: the grid (%u, %u, %u) is not a multiple of the cluster (%u, %u, %u)",
                module.name, info.launcher, grid.x, grid.y, grid.z, cluster.x, cluster.y,
                cluster.z);
  return TLC_SUCCESS;
}

// The context a launch runs in: the caller's current context if it is on the config's device,
// else the device's primary context, pushed now and popped after, so the caller's current
// context is never changed.
class DeviceContext {
public:
  explicit DeviceContext(const DeviceState& device) : D(driver()) {
    CUcontext primary = device.primary.load(std::memory_order_relaxed);
    CUcontext current = nullptr;
    if (D.ctxGetCurrent(&current) == CUDA_SUCCESS && current) {
      if (current == primary)
        return;
      CUdevice owner = -1;
      if (D.ctxGetDevice(&owner) == CUDA_SUCCESS && owner == device.device) {
        Primary = false; // the caller's own context on this device
        return;
      }
    }
    Result = D.ctxPushCurrent(primary);
    Pushed = Result == CUDA_SUCCESS;
  }
  ~DeviceContext() {
    if (Pushed) {
      CUcontext popped = nullptr;
      D.ctxPopCurrent(&popped);
    }
  }
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  CUresult result() const { return Result; }
  bool primary() const { return Primary; } // the device's primary context is current

private:
  const Driver& D;
  CUresult Result = CUDA_SUCCESS;
  bool Pushed = false;
  bool Primary = true;
};

// What to launch for `kernel` in the current context: its function in the primary context
// (resolved once; racing threads store the same handle), or in another context of the device
// the context-independent CUkernel, which the driver resolves there.
CUfunction functionFor(const ActiveDevice& active, const DeviceContext& context, int kernel) {
  CUkernel handle = active.module().kernels[kernel];
  if (!context.primary())
    return reinterpret_cast<CUfunction>(handle);
  KernelSlot& slot = active.device().kernels[kernel];
  CUfunction function = slot.function.load(std::memory_order_acquire);
  if (function)
    return function;
  if (driver().kernelGetFunction(&function, handle) != CUDA_SUCCESS)
    return reinterpret_cast<CUfunction>(handle); // the launch will report what is wrong
  slot.function.store(function, std::memory_order_release);
  return function;
}

// A launch asking for more dynamic shared memory than the kernel allows raises the limit, once
// per device, kernel and size; smaller launches after that find the limit in an atomic.
tlc_status ensureSharedLimit(const Module& module, const ActiveDevice& active, int kernel,
                             unsigned bytes) {
  DeviceState& device = active.device();
  KernelSlot& slot = device.kernels[kernel];
  std::lock_guard<Mutex> lock(device.mutex);
  unsigned limit = slot.sharedLimit.load(std::memory_order_relaxed);
  if (bytes <= limit)
    return TLC_SUCCESS;
  const Driver& d = driver();
  CUkernel handle = active.module().kernels[kernel];
  if (limit == 0) {
    int current = 0;
    CUresult result = d.kernelGetAttribute(
        &current, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, handle, device.device);
    if (result != CUDA_SUCCESS)
      return failKernel(module, TLC_ERROR_DRIVER, kernel, device.ordinal, "cuKernelGetAttribute",
                        result);
    limit = current > 0 ? static_cast<unsigned>(current) : 0u;
    if (bytes <= limit) {
      slot.sharedLimit.store(limit, std::memory_order_release);
      return TLC_SUCCESS;
    }
  }
  CUresult result = d.kernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         static_cast<int>(bytes), handle, device.device);
  if (result != CUDA_SUCCESS)
    return fail(TLC_ERROR_INVALID_VALUE,
                "%s_%s: device %d cannot give kernel %s %u bytes of dynamic shared memory "
                "(cuKernelSetAttribute: %s)",
                module.name, module.kernels[kernel].launcher, device.ordinal,
                module.kernels[kernel].symbol, bytes, errorName(result));
  slot.sharedLimit.store(bytes, std::memory_order_release);
  return TLC_SUCCESS;
}

// Cluster sizes over 8 blocks need an opt-in, set once per device and kernel.
tlc_status allowNonPortableCluster(const Module& module, const ActiveDevice& active, int kernel) {
  DeviceState& device = active.device();
  KernelSlot& slot = device.kernels[kernel];
  if (slot.nonPortableCluster.load(std::memory_order_acquire))
    return TLC_SUCCESS;
  std::lock_guard<Mutex> lock(device.mutex);
  if (slot.nonPortableCluster.load(std::memory_order_relaxed))
    return TLC_SUCCESS; // another thread set it while this one waited
  CUresult result = driver().kernelSetAttribute(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                                1, active.module().kernels[kernel], device.device);
  if (result != CUDA_SUCCESS)
    return failKernel(module, TLC_ERROR_LAUNCH, kernel, device.ordinal, "cuKernelSetAttribute",
                      result);
  slot.nonPortableCluster.store(true, std::memory_order_release);
  return TLC_SUCCESS;
}

// An L2 persistence window only persists what the context's persisting L2 limit sets aside: the
// launch raises the limit to cover the window (up to the device's maximum), never lowers it.
// The limit is read at every window launch, in the context the launch runs in: a caller may
// have reset it (docs/launcher-api.md says how to give the L2 back), and a remembered value
// would then leave later windows with nothing set aside.
tlc_status ensurePersistingL2(const Module& module, int kernel, const tlc_config& config,
                              DeviceState& device) {
  if (device.maxPersistingL2 == 0)
    return TLC_SUCCESS; // no persisting L2 on this device: the window is only a hint
  double persisting = static_cast<double>(config.l2_persist_bytes) * config.l2_persist_hit_ratio;
  size_t wanted = std::min(device.maxPersistingL2, static_cast<size_t>(persisting + 0.5));
  const Driver& d = driver();
  size_t current = 0;
  CUresult result = d.ctxGetLimit(&current, CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
  if (result == CUDA_SUCCESS && current >= wanted)
    return TLC_SUCCESS;
  if (result == CUDA_SUCCESS) {
    // Raised under the device's lock, so that two launches never lower each other's limit.
    std::lock_guard<Mutex> lock(device.mutex);
    result = d.ctxGetLimit(&current, CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
    if (result == CUDA_SUCCESS && current < wanted)
      result = d.ctxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, wanted);
  }
  if (result != CUDA_SUCCESS)
    return failKernel(module, TLC_ERROR_LAUNCH, kernel, device.ordinal,
                      "cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)", result);
  return TLC_SUCCESS;
}

// The launch attributes of a validated request; `count` says how many were written.
tlc_status launchAttributes(const Module& module, int kernel, const tlc_config& config,
                            const LaunchRequest& request, const ActiveDevice& active,
                            CUlaunchAttribute (&attributes)[4], unsigned& count) {
  count = 0;
  if (request.clusterOverride) {
    const Dim3& cluster = request.cluster;
    if (cluster.x * cluster.y * cluster.z > 8) {
      tlc_status status = allowNonPortableCluster(module, active, kernel);
      if (status != TLC_SUCCESS)
        return status;
    }
    CUlaunchAttribute& attribute = attributes[count++];
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = cluster.x;
    attribute.value.clusterDim.y = cluster.y;
    attribute.value.clusterDim.z = cluster.z;
  }
  if (config.cooperative) {
    CUlaunchAttribute& attribute = attributes[count++];
    attribute.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attribute.value.cooperative = 1;
  }
  if (config.programmatic_dependent_launch) {
    CUlaunchAttribute& attribute = attributes[count++];
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
  }
  if (config.l2_persist_bytes) {
    const DeviceState& device = active.device();
    if (device.maxL2Window && config.l2_persist_bytes > device.maxL2Window)
      return fail(TLC_ERROR_INVALID_VALUE,
                  "%s_%s: an L2 persistence window of %zu bytes exceeds device %d's maximum of "
                  "%zu (CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE)",
                  module.name, module.kernels[kernel].launcher, config.l2_persist_bytes,
                  device.ordinal, device.maxL2Window);
    // A launch attribute rather than a stream attribute: it applies to this launch only, so
    // there is nothing to restore afterwards and no race with other launches on the stream.
    CUlaunchAttribute& attribute = attributes[count++];
    attribute.id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
    attribute.value.accessPolicyWindow.base_ptr = const_cast<void*>(config.l2_persist_base);
    attribute.value.accessPolicyWindow.num_bytes = config.l2_persist_bytes;
    attribute.value.accessPolicyWindow.hitRatio = config.l2_persist_hit_ratio;
    attribute.value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    attribute.value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
  }
  return TLC_SUCCESS;
}

// A refused launch: the driver's error, and, where a kernel limit explains it, which one.
tlc_status failLaunch(const Module& module, int kernel, const LaunchRequest& request,
                      const ActiveDevice& active, CUresult result) {
  const DeviceState& device = active.device();
  failKernel(module, statusFor(result, TLC_ERROR_LAUNCH), kernel, device.ordinal,
             request.extended ? "cuLaunchKernelEx" : "cuLaunchKernel", result);
  if (result != CUDA_ERROR_INVALID_VALUE && result != CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    return statusFor(result, TLC_ERROR_LAUNCH);
  const Dim3& block = request.block;
  unsigned long long threads = 1ull * block.x * block.y * block.z;
  int maxThreads = 0;
  CUkernel handle = active.module().kernels[kernel];
  if (driver().kernelGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, handle,
                                  device.device) == CUDA_SUCCESS &&
      maxThreads > 0 && threads > static_cast<unsigned long long>(maxThreads))
    appendToError("; a block of %llu threads exceeds the %d this kernel allows on device %d",
                  threads, maxThreads, device.ordinal);
  return statusFor(result, TLC_ERROR_LAUNCH);
}

} // namespace

tlc_status describeLaunch(const Module& module, int kernel, const tlc_config* config,
                          LaunchRequest& request) {
  const KernelInfo& info = module.kernels[kernel];
  if (!config)
    return fail(TLC_ERROR_INVALID_VALUE, "%s_%s: config is NULL", module.name, info.launcher);
  if (config->size != 0) {
    tlc_status status = checkConfigSize(module, kernel, *config);
    if (status != TLC_SUCCESS)
      return status;
  }
  if (!shapeOf(config->grid, request.grid) || !shapeOf(config->block, request.block))
    return fail(TLC_ERROR_INVALID_VALUE, "%s_%s: grid[0] and block[0] must be at least 1",
                module.name, info.launcher);
  if (config->cluster[0] || info.cluster[0]) {
    tlc_status status = checkCluster(module, info, *config, request);
    if (status != TLC_SUCCESS)
      return status;
  }
  if (config->l2_persist_bytes &&
      (!config->l2_persist_base || !(config->l2_persist_hit_ratio >= 0.0f) ||
       config->l2_persist_hit_ratio > 1.0f))
    return fail(TLC_ERROR_INVALID_VALUE,
                "%s_%s: an L2 persistence window needs a base address and a hit ratio in [0, 1]",
                module.name, info.launcher);
  request.extended = request.clusterOverride || config->cooperative ||
                     config->programmatic_dependent_launch || config->l2_persist_bytes;
  return TLC_SUCCESS;
}

tlc_status checkKernelTarget(const Module& module, int kernel, const DeviceState& device) {
  if (holdsKernel(module, device, kernel))
    return TLC_SUCCESS;
  return failNoBinary(module, device, kernel);
}

tlc_status launchOn(const Module& module, int kernel, const tlc_config& config,
                    const LaunchRequest& request, const ActiveDevice& active, void** args) {
  tlc_status status = checkKernelTarget(module, kernel, active.device());
  if (status != TLC_SUCCESS)
    return status;
  CUlaunchAttribute attributes[4];
  unsigned attributeCount = 0;
  if (request.extended) {
    status = launchAttributes(module, kernel, config, request, active, attributes, attributeCount);
    if (status != TLC_SUCCESS)
      return status;
  }
  DeviceState& device = active.device();
  if (config.shared_bytes > device.kernels[kernel].sharedLimit.load(std::memory_order_acquire)) {
    status = ensureSharedLimit(module, active, kernel, config.shared_bytes);
    if (status != TLC_SUCCESS)
      return status;
  }
  DeviceContext context(device);
  if (context.result() != CUDA_SUCCESS)
    return failKernel(module, TLC_ERROR_DRIVER, kernel, device.ordinal, "cuCtxPushCurrent",
                      context.result());
  if (config.l2_persist_bytes) {
    status = ensurePersistingL2(module, kernel, config, device);
    if (status != TLC_SUCCESS)
      return status;
  }
  CUfunction function = functionFor(active, context, kernel);
  const Dim3& grid = request.grid;
  const Dim3& block = request.block;
  const Driver& d = driver();
  CUresult result;
  if (!request.extended) {
    result = d.launchKernel(function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                            config.shared_bytes, config.stream, args, nullptr);
  } else {
    CUlaunchConfig launchConfig = {};
    launchConfig.gridDimX = grid.x;
    launchConfig.gridDimY = grid.y;
    launchConfig.gridDimZ = grid.z;
    launchConfig.blockDimX = block.x;
    launchConfig.blockDimY = block.y;
    launchConfig.blockDimZ = block.z;
    launchConfig.sharedMemBytes = config.shared_bytes;
    launchConfig.hStream = config.stream;
    launchConfig.attrs = attributes;
    launchConfig.numAttrs = attributeCount;
    result = d.launchKernelEx(&launchConfig, function, args, nullptr);
  }
  if (result != CUDA_SUCCESS)
    return failLaunch(module, kernel, request, active, result);
  return TLC_SUCCESS;
}

tlc_status launch(Module& module, int kernel, const tlc_config* config, void** args) {
  LaunchRequest request;
  tlc_status status = describeLaunch(module, kernel, config, request);
  if (status != TLC_SUCCESS)
    return status;
  ActiveDevice active;
  status = activate(module, config->device, active);
  if (status != TLC_SUCCESS)
    return status;
  return launchOn(module, kernel, *config, request, active, args);
}

tlc_status launchEncoded(Module& module, int kernel, const tlc_config* config, void** args) {
  const KernelInfo& info = module.kernels[kernel];
  for (int i = 0; i < info.tensorMapCount; ++i) {
    const TensorMapInfo& map = module.tensorMaps[info.firstTensorMap + i];
    if (!args || !args[map.argument])
      return fail(TLC_ERROR_INVALID_VALUE, "%s_%s: tensor map '%s' is NULL", module.name,
                  info.launcher, map.parameter);
  }
  return launch(module, kernel, config, args);
}

tlc_status launchKernel(Module& module, const tlc_config* config, int kernel, void** args) {
  if (kernel < 0 || kernel >= module.kernelCount)
    return fail(TLC_ERROR_INVALID_VALUE, "tlc_%s_launch_kernel: no kernel %d (there are %d)",
                module.name, kernel, module.kernelCount);
  return launchEncoded(module, kernel, config, args);
}

tlc_status getFunction(Module& module, int kernel, int device, CUfunction* function) {
  if (kernel < 0 || kernel >= module.kernelCount || !function)
    return fail(TLC_ERROR_INVALID_VALUE,
                "tlc_%s_get_function: no kernel %d (there are %d) or no result pointer",
                module.name, kernel, module.kernelCount);
  ActiveDevice active;
  tlc_status status = activate(module, device, active);
  if (status != TLC_SUCCESS)
    return status;
  status = checkKernelTarget(module, kernel, active.device());
  if (status != TLC_SUCCESS)
    return status;
  DeviceContext context(active.device());
  if (context.result() != CUDA_SUCCESS)
    return failKernel(module, TLC_ERROR_DRIVER, kernel, device, "cuCtxPushCurrent",
                      context.result());
  CUresult result = driver().kernelGetFunction(function, active.module().kernels[kernel]);
  if (result != CUDA_SUCCESS)
    return failKernel(module, statusFor(result, TLC_ERROR_DRIVER), kernel, device,
                      "cuKernelGetFunction", result);
  return TLC_SUCCESS;
}

} // namespace tlc::runtime
