// The CUDA driver, opened at first use. A launcher library has no DT_NEEDED on libcuda, so it
// loads on hosts without a driver, where every call returns TLC_ERROR_NO_DRIVER. Entry points
// come through cuGetProcAddress at the ABI version each was written against, so a newer driver
// can never hand back a function with a different signature.
#pragma once

#include "tlc/launcher.h"

#include <cudaTypedefs.h>

namespace tlc::runtime {

struct Driver {
  PFN_cuInit_v2000 init;
  PFN_cuGetErrorName_v6000 getErrorName;
  PFN_cuGetErrorString_v6000 getErrorString;
  PFN_cuDeviceGetCount_v2000 deviceGetCount;
  PFN_cuDeviceGet_v2000 deviceGet;
  PFN_cuDeviceGetAttribute_v2000 deviceGetAttribute;
  PFN_cuDeviceGetName_v2000 deviceGetName;
  PFN_cuDevicePrimaryCtxRetain_v7000 primaryCtxRetain;
  PFN_cuDevicePrimaryCtxRelease_v11000 primaryCtxRelease;
  PFN_cuCtxGetCurrent_v4000 ctxGetCurrent;
  PFN_cuCtxGetDevice_v2000 ctxGetDevice;
  PFN_cuCtxPushCurrent_v4000 ctxPushCurrent;
  PFN_cuCtxPopCurrent_v4000 ctxPopCurrent;
  PFN_cuCtxGetLimit_v3010 ctxGetLimit;
  PFN_cuCtxSetLimit_v3010 ctxSetLimit;
  PFN_cuLibraryLoadData_v12000 libraryLoadData;
  PFN_cuLibraryUnload_v12000 libraryUnload;
  PFN_cuLibraryGetKernel_v12000 libraryGetKernel;
  PFN_cuKernelGetFunction_v12000 kernelGetFunction;
  PFN_cuKernelGetAttribute_v12000 kernelGetAttribute;
  PFN_cuKernelSetAttribute_v12000 kernelSetAttribute;
  PFN_cuLinkCreate_v6050 linkCreate;
  PFN_cuLinkAddData_v6050 linkAddData;
  PFN_cuLinkComplete_v5050 linkComplete;
  PFN_cuLinkDestroy_v5050 linkDestroy;
  PFN_cuLaunchKernel_v4000 launchKernel;
  PFN_cuLaunchKernelEx_v11060 launchKernelEx;
  PFN_cuTensorMapEncodeTiled_v12000 tensorMapEncodeTiled;
  PFN_cuTensorMapEncodeIm2col_v12000 tensorMapEncodeIm2col;
};

// The process's driver: opened, resolved and initialised by the first call, whose outcome every
// later call repeats (a host without a driver answers at once, with the same message). `module`
// names the caller in messages. Thread safe.
tlc_status openDriver(const char* module, const Driver*& driver);

// The driver once openDriver has succeeded (else every entry is null).
const Driver& driver();

const char* errorName(CUresult result);
const char* errorText(CUresult result);

} // namespace tlc::runtime
