// Opening libcuda.so.1 with dlopen and resolving every entry point through cuGetProcAddress.
#include "Driver.h"

#include "Errors.h"
#include "Mutex.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace tlc::runtime {

namespace {

// Constant-initialised and trivially destructible: nothing runs at exit, when the driver may be
// shutting down already.
struct DriverState {
  Mutex mutex;
  std::atomic<bool> opened{false};
  bool tried = false;
  tlc_status status = TLC_SUCCESS;
  char message[kMessageSize] = {};
  Driver entries = {};
};
DriverState gDriver;

struct EntryPoint {
  const char* name;
  int version; // the CUDA version whose signature the PFN type has
  void** slot;
};

template <typename Function> EntryPoint entry(const char* name, int version, Function& slot) {
  return {name, version, reinterpret_cast<void**>(&slot)};
}

// For tests only: a path to load instead of libcuda.so.1 (tlc's fake driver). Ignored in
// set-user-ID programs (secure_getenv).
constexpr const char* kTestDriverVariable = "TLC_TEST_LIBCUDA";

tlc_status resolve(void* handle, const char* path, const char* module, Driver& d) {
  auto getProcAddress =
      reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(handle, "cuGetProcAddress_v2"));
  if (!getProcAddress)
    return fail(TLC_ERROR_NO_DRIVER,
                "%s: the CUDA driver in %s is older than CUDA 12.0 (no cuGetProcAddress_v2)",
                module, path);
  const EntryPoint entryPoints[] = {
      entry("cuInit", 2000, d.init),
      entry("cuGetErrorName", 6000, d.getErrorName),
      entry("cuGetErrorString", 6000, d.getErrorString),
      entry("cuDeviceGetCount", 2000, d.deviceGetCount),
      entry("cuDeviceGet", 2000, d.deviceGet),
      entry("cuDeviceGetAttribute", 2000, d.deviceGetAttribute),
      entry("cuDeviceGetName", 2000, d.deviceGetName),
      entry("cuDevicePrimaryCtxRetain", 7000, d.primaryCtxRetain),
      entry("cuDevicePrimaryCtxRelease", 11000, d.primaryCtxRelease),
      entry("cuCtxGetCurrent", 4000, d.ctxGetCurrent),
      entry("cuCtxGetDevice", 2000, d.ctxGetDevice),
      entry("cuCtxPushCurrent", 4000, d.ctxPushCurrent),
      entry("cuCtxPopCurrent", 4000, d.ctxPopCurrent),
      entry("cuCtxGetLimit", 3010, d.ctxGetLimit),
      entry("cuCtxSetLimit", 3010, d.ctxSetLimit),
      entry("cuLibraryLoadData", 12000, d.libraryLoadData),
      entry("cuLibraryUnload", 12000, d.libraryUnload),
      entry("cuLibraryGetKernel", 12000, d.libraryGetKernel),
      entry("cuKernelGetFunction", 12000, d.kernelGetFunction),
      entry("cuKernelGetAttribute", 12000, d.kernelGetAttribute),
      entry("cuKernelSetAttribute", 12000, d.kernelSetAttribute),
      entry("cuLinkCreate", 6050, d.linkCreate),
      entry("cuLinkAddData", 6050, d.linkAddData),
      entry("cuLinkComplete", 5050, d.linkComplete),
      entry("cuLinkDestroy", 5050, d.linkDestroy),
      entry("cuLaunchKernel", 4000, d.launchKernel),
      entry("cuLaunchKernelEx", 11060, d.launchKernelEx),
      entry("cuTensorMapEncodeTiled", 12000, d.tensorMapEncodeTiled),
      entry("cuTensorMapEncodeIm2col", 12000, d.tensorMapEncodeIm2col),
  };
  for (const EntryPoint& entryPoint : entryPoints) {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult result = getProcAddress(entryPoint.name, entryPoint.slot, entryPoint.version,
                                     CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (result != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !*entryPoint.slot)
      return fail(TLC_ERROR_NO_DRIVER, "%s: the CUDA driver in %s lacks %s (CUDA %d.%d)", module,
                  path, entryPoint.name, entryPoint.version / 1000, entryPoint.version % 1000 / 10);
  }
  CUresult result = d.init(0);
  const char* name = nullptr;
  if (d.getErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "CUDA_ERROR_UNKNOWN";
  if (result == CUDA_ERROR_NO_DEVICE)
    return fail(TLC_ERROR_NO_DEVICE, "%s: the CUDA driver found no device (cuInit: %s)", module,
                name);
  if (result != CUDA_SUCCESS)
    return fail(TLC_ERROR_NO_DRIVER, "%s: the CUDA driver failed to initialise (cuInit: %s)",
                module, name);
  return TLC_SUCCESS;
}

// Fills `d`; on failure keeps nothing of the library open.
tlc_status load(const char* module, Driver& d) {
  const char* path = "libcuda.so.1";
  if (const char* testing = secure_getenv(kTestDriverVariable); testing && *testing)
    path = testing;
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return fail(TLC_ERROR_NO_DRIVER, "%s: no CUDA driver: cannot load %s (%s)", module, path,
                dlerror());
  tlc_status status = resolve(handle, path, module, d);
  if (status != TLC_SUCCESS) {
    d = {}; // nothing may call into the library once it is closed
    dlclose(handle);
  }
  return status;
}

} // namespace

tlc_status openDriver(const char* module, const Driver*& out) {
  out = &gDriver.entries;
  if (gDriver.opened.load(std::memory_order_acquire))
    return TLC_SUCCESS;
  std::lock_guard<Mutex> lock(gDriver.mutex);
  if (!gDriver.tried) {
    gDriver.tried = true;
    gDriver.status = load(module, gDriver.entries);
    if (gDriver.status == TLC_SUCCESS)
      gDriver.opened.store(true, std::memory_order_release);
    else
      std::snprintf(gDriver.message, sizeof gDriver.message, "%s", tlsLastError);
  }
  if (gDriver.status != TLC_SUCCESS)
    return fail(gDriver.status, "%s", gDriver.message);
  return TLC_SUCCESS;
}

const Driver& driver() {
  return gDriver.entries;
}

const char* errorName(CUresult result) {
  const char* name = nullptr;
  const Driver& d = gDriver.entries;
  if (d.getErrorName && d.getErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA_ERROR_UNKNOWN";
}

const char* errorText(CUresult result) {
  const char* text = nullptr;
  const Driver& d = gDriver.entries;
  if (d.getErrorString && d.getErrorString(result, &text) == CUDA_SUCCESS && text)
    return text;
  return "unknown error";
}

} // namespace tlc::runtime
