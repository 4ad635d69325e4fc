// Initialisation, devices, primary contexts and the per-thread context stack.
#include "Driver.h"
#include "EntryPoints.h"

#include <cstdio>

namespace fake_cuda {

namespace {

// The device attributes the fake knows; false for any other.
bool deviceAttribute(const Device& device, CUdevice_attribute attribute, int& value) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    value = device.major;
    return true;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    value = device.minor;
    return true;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    value = 100;
    return true;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    value = 32;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    value = 1024;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    value = 48 * 1024;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    value = sharedMemoryOptin(device);
    return true;
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
    value = 1;
    return true;
  case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
    value = device.major >= 9;
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE:
    value = maxPersistingL2(device);
    return true;
  case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE:
    value = maxAccessPolicyWindow(device);
    return true;
  default:
    return false;
  }
}

} // namespace

CUresult CUDAAPI init(unsigned int flags) {
  Call call("cuInit");
  call.record().value = static_cast<int>(flags);
  if (CUresult early = call.start(false))
    return call.finish(early);
  if (flags != 0)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (call.state().devices.empty())
    return call.finish(CUDA_ERROR_NO_DEVICE);
  call.state().initialized = true;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI deviceGetCount(int* count) {
  Call call("cuDeviceGetCount");
  if (CUresult early = call.start())
    return call.finish(early);
  if (!count)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  *count = static_cast<int>(call.state().devices.size());
  call.record().value = *count;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI deviceGet(CUdevice* device, int ordinal) {
  Call call("cuDeviceGet");
  call.record().device = ordinal;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!device)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!call.state().validDevice(ordinal))
    return call.finish(CUDA_ERROR_INVALID_DEVICE);
  *device = ordinal; // the fake's CUdevice is the ordinal
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI deviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  Call call("cuDeviceGetAttribute");
  call.record().device = device;
  call.record().attribute = attribute;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!value)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!call.state().validDevice(device))
    return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (!deviceAttribute(call.state().devices[device], attribute, *value))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  call.record().value = *value;
  return call.finish(CUDA_SUCCESS);
}

int maxPersistingL2(const Device& device) {
  return device.major >= 8 ? 30 << 20 : 0;
}
int maxAccessPolicyWindow(const Device& device) {
  return device.major >= 8 ? 128 << 20 : 0;
}

CUresult CUDAAPI deviceGetName(char* name, int length, CUdevice device) {
  Call call("cuDeviceGetName");
  call.record().device = device;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!name || length <= 0)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!call.state().validDevice(device))
    return call.finish(CUDA_ERROR_INVALID_DEVICE);
  const Device& state = call.state().devices[device];
  std::snprintf(name, static_cast<size_t>(length), "Fake CUDA device %d.%d", state.major,
                state.minor);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI primaryCtxRetain(CUcontext* context, CUdevice device) {
  Call call("cuDevicePrimaryCtxRetain");
  call.record().device = device;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!context)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!call.state().validDevice(device))
    return call.finish(CUDA_ERROR_INVALID_DEVICE);
  Device& state = call.state().devices[device];
  ++state.retains;
  *context = state.primary;
  call.record().handle = state.primary;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI primaryCtxRelease(CUdevice device) {
  Call call("cuDevicePrimaryCtxRelease");
  call.record().device = device;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!call.state().validDevice(device))
    return call.finish(CUDA_ERROR_INVALID_DEVICE);
  Device& state = call.state().devices[device];
  call.record().handle = state.primary;
  if (state.retains == 0) // released more often than retained
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  --state.retains;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI ctxGetCurrent(CUcontext* context) {
  Call call("cuCtxGetCurrent");
  if (CUresult early = call.start())
    return call.finish(early);
  if (!context)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  *context = currentContext();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI ctxGetDevice(CUdevice* device) {
  Call call("cuCtxGetDevice");
  CUctx_st* current = currentContext();
  if (current)
    call.record().device = current->device;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!device)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!current || current->destroyed)
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  *device = current->device;
  return call.finish(CUDA_SUCCESS);
}

// Only CU_LIMIT_PERSISTING_L2_CACHE_SIZE, per context; `value` logs it (in bytes, as an int).
CUresult CUDAAPI ctxGetLimit(size_t* value, CUlimit limit) {
  Call call("cuCtxGetLimit");
  CUctx_st* current = currentContext();
  call.record().attribute = limit;
  if (current)
    call.record().device = current->device;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!value || limit != CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!current || current->destroyed)
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  *value = current->persistingL2;
  call.record().value = static_cast<int>(*value);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI ctxSetLimit(CUlimit limit, size_t value) {
  Call call("cuCtxSetLimit");
  CUctx_st* current = currentContext();
  call.record().attribute = limit;
  call.record().value = static_cast<int>(value);
  if (current)
    call.record().device = current->device;
  if (CUresult early = call.start())
    return call.finish(early);
  if (limit != CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!current || current->destroyed)
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (value > static_cast<size_t>(maxPersistingL2(call.state().devices[current->device])))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  current->persistingL2 = value;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI ctxPushCurrent(CUcontext context) {
  Call call("cuCtxPushCurrent");
  call.record().handle = context;
  if (CUresult early = call.start())
    return call.finish(early);
  CUctx_st* pushed = call.state().find<CUctx_st>(context, HandleKind::Context);
  if (!pushed || pushed->destroyed)
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  call.record().device = pushed->device;
  contextStack().push_back(pushed);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI ctxPopCurrent(CUcontext* context) {
  Call call("cuCtxPopCurrent");
  if (CUresult early = call.start())
    return call.finish(early);
  auto& stack = contextStack();
  if (stack.empty())
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  CUctx_st* popped = stack.back();
  stack.pop_back();
  call.record().handle = popped;
  call.record().device = popped->device;
  if (context)
    *context = popped;
  return call.finish(CUDA_SUCCESS);
}

} // namespace fake_cuda
