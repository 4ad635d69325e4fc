// The fake's one exported driver symbol, cuGetProcAddress_v2, its table of entry points, and
// the error names and strings.
#include "Driver.h"
#include "EntryPoints.h"

#include <cstring>

namespace fake_cuda {

namespace {

struct ErrorText {
  CUresult code;
  const char* name;
  const char* text;
};

#define FAKE_CUDA_ERROR(code, text) {code, #code, text}
constexpr ErrorText kErrors[] = {
    FAKE_CUDA_ERROR(CUDA_SUCCESS, "no error"),
    FAKE_CUDA_ERROR(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    FAKE_CUDA_ERROR(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    FAKE_CUDA_ERROR(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    FAKE_CUDA_ERROR(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    FAKE_CUDA_ERROR(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    FAKE_CUDA_ERROR(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    FAKE_CUDA_ERROR(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    FAKE_CUDA_ERROR(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    FAKE_CUDA_ERROR(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution "
                                                  "on the device"),
    FAKE_CUDA_ERROR(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"),
    FAKE_CUDA_ERROR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the provided PTX was compiled with an "
                                                        "unsupported toolchain"),
    FAKE_CUDA_ERROR(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler library not found"),
    FAKE_CUDA_ERROR(CUDA_ERROR_JIT_COMPILATION_DISABLED, "PTX JIT compilation was disabled"),
    FAKE_CUDA_ERROR(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed"),
    FAKE_CUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    FAKE_CUDA_ERROR(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    FAKE_CUDA_ERROR(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
    FAKE_CUDA_ERROR(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for "
                                                        "launch"),
    FAKE_CUDA_ERROR(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
    FAKE_CUDA_ERROR(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative "
                                                             "launch"),
    FAKE_CUDA_ERROR(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    FAKE_CUDA_ERROR(CUDA_ERROR_INVALID_CLUSTER_SIZE, "invalid cluster size"),
    FAKE_CUDA_ERROR(CUDA_ERROR_UNKNOWN, "unknown error"),
};
#undef FAKE_CUDA_ERROR

const ErrorText* findError(CUresult code) {
  for (const ErrorText& error : kErrors)
    if (error.code == code)
      return &error;
  return nullptr;
}

struct EntryPoint {
  const char* name;
  int version; // the CUDA release that gave the entry point the signature the fake implements
  void* function;
};

template <typename Function> void* address(Function* function) {
  return reinterpret_cast<void*>(function);
}

const EntryPoint kEntryPoints[] = {
    {"cuInit", 2000, address(&init)},
    {"cuGetErrorName", 6000, address(&getErrorName)},
    {"cuGetErrorString", 6000, address(&getErrorString)},
    {"cuDeviceGetCount", 2000, address(&deviceGetCount)},
    {"cuDeviceGet", 2000, address(&deviceGet)},
    {"cuDeviceGetAttribute", 2000, address(&deviceGetAttribute)},
    {"cuDeviceGetName", 2000, address(&deviceGetName)},
    {"cuDevicePrimaryCtxRetain", 7000, address(&primaryCtxRetain)},
    {"cuDevicePrimaryCtxRelease", 11000, address(&primaryCtxRelease)},
    {"cuCtxGetCurrent", 4000, address(&ctxGetCurrent)},
    {"cuCtxGetDevice", 2000, address(&ctxGetDevice)},
    {"cuCtxPushCurrent", 4000, address(&ctxPushCurrent)},
    {"cuCtxPopCurrent", 4000, address(&ctxPopCurrent)},
    {"cuCtxGetLimit", 3010, address(&ctxGetLimit)},
    {"cuCtxSetLimit", 3010, address(&ctxSetLimit)},
    {"cuLibraryLoadData", 12000, address(&libraryLoadData)},
    {"cuLibraryUnload", 12000, address(&libraryUnload)},
    {"cuLibraryGetKernel", 12000, address(&libraryGetKernel)},
    {"cuLibraryGetModule", 12000, address(&libraryGetModule)},
    {"cuKernelGetFunction", 12000, address(&kernelGetFunction)},
    {"cuKernelGetAttribute", 12000, address(&kernelGetAttribute)},
    {"cuKernelSetAttribute", 12000, address(&kernelSetAttribute)},
    {"cuLinkCreate", 6050, address(&linkCreate)},
    {"cuLinkAddData", 6050, address(&linkAddData)},
    {"cuLinkComplete", 5050, address(&linkComplete)},
    {"cuLinkDestroy", 5050, address(&linkDestroy)},
    {"cuLaunchKernel", 4000, address(&launchKernel)},
    {"cuLaunchKernelEx", 11060, address(&launchKernelEx)},
    {"cuTensorMapEncodeTiled", 12000, address(&tensorMapEncodeTiled)},
    {"cuTensorMapEncodeIm2col", 12000, address(&tensorMapEncodeIm2col)},
};

const EntryPoint* findEntryPoint(const char* name) {
  for (const EntryPoint& entry : kEntryPoints)
    if (std::strcmp(entry.name, name) == 0)
      return &entry;
  return nullptr;
}

// cuGetErrorName and cuGetErrorString: one field of the error's entry.
CUresult describeError(const char* function, const char* ErrorText::* field, CUresult error,
                       const char** out) {
  Call call(function);
  call.record().value = error;
  if (CUresult early = call.start(false))
    return call.finish(early);
  if (!out)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  const ErrorText* found = findError(error);
  *out = found ? found->*field : nullptr;
  return call.finish(found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

} // namespace

CUresult CUDAAPI getErrorName(CUresult error, const char** name) {
  return describeError("cuGetErrorName", &ErrorText::name, error, name);
}

CUresult CUDAAPI getErrorString(CUresult error, const char** text) {
  return describeError("cuGetErrorString", &ErrorText::text, error, text);
}

} // namespace fake_cuda

// Like the real driver's: works before cuInit, and answers an entry point asked for at a CUDA
// version older than the one that gave it its signature with VERSION_NOT_SUFFICIENT. Logged
// as "cuGetProcAddress", with the entry point in `symbol` and the version in `version`.
extern "C" FAKE_CUDA_API CUresult CUDAAPI
cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                    CUdriverProcAddressQueryResult* symbolStatus) {
  using namespace fake_cuda;
  Call call("cuGetProcAddress");
  if (symbol)
    copyText(call.record().symbol, symbol);
  call.record().version = version;
  call.record().value = static_cast<int>(flags);
  auto answer = [&](CUresult result, CUdriverProcAddressQueryResult status) {
    if (symbolStatus)
      *symbolStatus = status;
    return call.finish(result);
  };
  if (CUresult early = call.start(false))
    return answer(early, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  if (!symbol || !pfn)
    return answer(CUDA_ERROR_INVALID_VALUE, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  *pfn = nullptr;
  const EntryPoint* entry = findEntryPoint(symbol);
  if (!entry || call.state().hidden.count(symbol))
    return answer(CUDA_ERROR_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  if (version < entry->version)
    return answer(CUDA_ERROR_NOT_FOUND, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  *pfn = entry->function;
  return answer(CUDA_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS);
}
