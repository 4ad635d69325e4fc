// cuLaunchKernel and cuLaunchKernelEx: recorded, and checked as the driver would check them.
#include "Driver.h"
#include "EntryPoints.h"

#include <algorithm>
#include <cstring>

namespace fake_cuda {

namespace {

struct Shape {
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedBytes;
  CUstream stream;
};

// Where a launch runs: the driver takes a CUkernel wherever it takes a CUfunction; a kernel
// runs in the current context, a function in the context it was made for.
struct Target {
  CUkern_st* kernel = nullptr;
  CUctx_st* context = nullptr;
};

CUresult resolveTarget(const State& state, CUfunction handle, Target& target) {
  if (auto* function = state.find<CUfunc_st>(handle, HandleKind::Function)) {
    if (!function->kernel->library->loaded)
      return CUDA_ERROR_INVALID_HANDLE;
    if (function->context != currentContext())
      return CUDA_ERROR_INVALID_CONTEXT;
    target = {function->kernel, function->context};
  } else if (CUkern_st* kernel = state.liveKernel(handle)) {
    target = {kernel, currentContext()};
  } else {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  return state.usable(target.context) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

void recordShape(fake_cuda_call& record, const Shape& shape) {
  std::copy(shape.grid, shape.grid + 3, record.grid);
  std::copy(shape.block, shape.block + 3, record.block);
  record.shared_bytes = shape.sharedBytes;
  record.stream = shape.stream;
}

// The parameter pointers as passed, what they point at, and which of them point at a tensor
// map the fake encoded. Read now: the launcher's copies are gone once the launch returns.
void recordParameters(fake_cuda_call& record, const CUkern_st& kernel, void** params) {
  record.param_count = kernel.parameterCount;
  if (!params)
    return;
  int kept = std::min(kernel.parameterCount, FAKE_CUDA_MAX_PARAMS);
  for (int i = 0; i < kept; ++i) {
    record.params[i] = params[i];
    if (!params[i])
      continue;
    uint32_t size = kernel.parameterSizes[i];
    std::memcpy(&record.param_values[i], params[i],
                std::min<size_t>(size, sizeof record.param_values[i]));
    if (size == sizeof(CUtensorMap))
      record.param_tensor_map[i] = tensorMapSource(params[i]);
  }
}

CUresult checkShape(const Target& target, const Shape& shape, void** params) {
  const unsigned* grid = shape.grid;
  const unsigned* block = shape.block;
  if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2])
    return CUDA_ERROR_INVALID_VALUE;
  int device = target.context->device;
  if (block[0] * block[1] * block[2] >
      static_cast<unsigned>(
          kernelAttribute(*target.kernel, device, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)))
    return CUDA_ERROR_INVALID_VALUE;
  // The driver refuses more dynamic shared memory than the kernel's attribute allows; that is
  // why a launcher has to raise the attribute first.
  if (shape.sharedBytes >
      static_cast<unsigned>(
          kernelAttribute(*target.kernel, device, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)))
    return CUDA_ERROR_INVALID_VALUE;
  if (target.kernel->parameterCount > 0 && !params)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

// Clusters need sm_90, must tile the grid, and may hold more than 8 blocks (at most 16) only
// once the kernel allows non-portable sizes on the device.
CUresult checkCluster(const State& state, const Target& target, const Shape& shape,
                      const unsigned (&dims)[3]) {
  int device = target.context->device;
  if (state.devices[device].major < 9)
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  for (int i = 0; i < 3; ++i)
    if (dims[i] == 0 || shape.grid[i] % dims[i] != 0)
      return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  unsigned blocks = dims[0] * dims[1] * dims[2];
  bool nonPortable = kernelAttribute(*target.kernel, device,
                                     CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) != 0;
  if (blocks > 16 || (blocks > 8 && !nonPortable))
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  return CUDA_SUCCESS;
}

const CUlaunchAttribute* findAttribute(const CUlaunchAttribute* attributes, unsigned count,
                                       CUlaunchAttributeID id) {
  for (unsigned i = 0; i < count; ++i)
    if (attributes[i].id == id)
      return &attributes[i];
  return nullptr;
}

// The cluster shape comes from a launch attribute or from the kernel's __cluster_dims__; a
// kernel compiled with a shape cannot be launched with another.
CUresult checkClusters(const State& state, const Target& target, const Shape& shape,
                       const CUlaunchAttribute* attributes, unsigned count) {
  const unsigned (&compiled)[3] = target.kernel->clusterDims;
  const CUlaunchAttribute* requested =
      findAttribute(attributes, count, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  if (!requested)
    return compiled[0] ? checkCluster(state, target, shape, compiled) : CUDA_SUCCESS;
  const auto& cluster = requested->value.clusterDim;
  const unsigned dims[3] = {cluster.x, cluster.y, cluster.z};
  if (compiled[0] && !std::equal(dims, dims + 3, compiled))
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  return checkCluster(state, target, shape, dims);
}

CUresult checkPolicyWindow(const CUlaunchAttribute* attributes, unsigned count) {
  const CUlaunchAttribute* window =
      findAttribute(attributes, count, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW);
  if (!window)
    return CUDA_SUCCESS;
  const CUaccessPolicyWindow& policy = window->value.accessPolicyWindow;
  bool valid = policy.base_ptr && policy.hitRatio >= 0.0f && policy.hitRatio <= 1.0f;
  return valid ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The checks and records both launch entry points share.
CUresult launch(Call& call, CUfunction function, const Shape& shape, void** params, void** extra,
                const CUlaunchAttribute* attributes, unsigned attributeCount) {
  fake_cuda_call& record = call.record();
  recordShape(record, shape);
  record.handle = function;
  State& state = call.state();
  Target target;
  CUresult resolved = resolveTarget(state, function, target);
  if (target.kernel) {
    copyText(record.symbol, target.kernel->symbol);
    recordParameters(record, *target.kernel, params);
  }
  if (target.context) {
    record.device = target.context->device;
    if (const DeviceCode* code = state.imageFor(*target.kernel->library, record.device)) {
      record.code = static_cast<int>(code->kind());
      record.sm = code->sm();
    }
  }
  if (CUresult early = call.start())
    return early;
  if (resolved != CUDA_SUCCESS)
    return resolved;
  if (extra)
    return CUDA_ERROR_NOT_SUPPORTED; // the fake takes parameters only through kernelParams
  CodeChoice choice = state.codeFor(*target.kernel->library, record.device, record);
  if (choice.result != CUDA_SUCCESS)
    return choice.result;
  if (CUresult refused = checkShape(target, shape, params))
    return refused;
  if (attributeCount && !attributes)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult refused = checkClusters(state, target, shape, attributes, attributeCount))
    return refused;
  return checkPolicyWindow(attributes, attributeCount);
}

} // namespace

CUresult CUDAAPI launchKernel(CUfunction function, unsigned int gridDimX, unsigned int gridDimY,
                              unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                              unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream stream,
                              void** kernelParams, void** extra) {
  Call call("cuLaunchKernel");
  Shape shape = {
      {gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ}, sharedMemBytes, stream};
  return call.finish(launch(call, function, shape, kernelParams, extra, nullptr, 0));
}

CUresult CUDAAPI launchKernelEx(const CUlaunchConfig* config, CUfunction function,
                                void** kernelParams, void** extra) {
  Call call("cuLaunchKernelEx");
  if (!config) {
    if (CUresult early = call.start())
      return call.finish(early);
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  }
  fake_cuda_call& record = call.record();
  record.attribute_count = config->numAttrs;
  if (config->attrs)
    std::copy_n(config->attrs,
                std::min(config->numAttrs, unsigned{FAKE_CUDA_MAX_LAUNCH_ATTRIBUTES}),
                record.attributes);
  Shape shape = {{config->gridDimX, config->gridDimY, config->gridDimZ},
                 {config->blockDimX, config->blockDimY, config->blockDimZ},
                 config->sharedMemBytes,
                 config->hStream};
  return call.finish(
      launch(call, function, shape, kernelParams, extra, config->attrs, config->numAttrs));
}

} // namespace fake_cuda
