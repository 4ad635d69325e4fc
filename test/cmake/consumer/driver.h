/* The few CUDA driver calls the consumer programs need to check a launch's result. They are
   looked up at run time, as the launcher library itself does, so that the programs also start
   (and report TLC_ERROR_NO_DRIVER) on machines without a driver. C and C++. */
#ifndef CONSUMER_DRIVER_H
#define CONSUMER_DRIVER_H

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

typedef struct consumer_driver {
  CUresult (*init)(unsigned int flags);
  CUresult (*deviceGet)(CUdevice* device, int ordinal);
  CUresult (*primaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*ctxSetCurrent)(CUcontext context);
  CUresult (*ctxSynchronize)(void);
  CUresult (*memAlloc)(CUdeviceptr* pointer, size_t bytes);
  CUresult (*memFree)(CUdeviceptr pointer);
  CUresult (*memcpyDtoH)(void* host, CUdeviceptr device, size_t bytes);
} consumer_driver;

/* Writing through a void** is how POSIX suggests assigning dlsym's result to a function pointer;
   it reads the same in C and C++. */
#define CONSUMER_SYMBOL(library, field, name)                                                      \
  (*(void**)(&(field)) = dlsym((library), (name)), (field) != NULL)

/* Opens the driver and makes device 0's primary context current (the launcher launches in the
   caller's context when it is on the config's device). Returns 0 on success. */
static int consumer_driver_open(consumer_driver* driver) {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  CUdevice device;
  CUcontext context;
  if (!library || !CONSUMER_SYMBOL(library, driver->init, "cuInit") ||
      !CONSUMER_SYMBOL(library, driver->deviceGet, "cuDeviceGet") ||
      !CONSUMER_SYMBOL(library, driver->primaryCtxRetain, "cuDevicePrimaryCtxRetain") ||
      !CONSUMER_SYMBOL(library, driver->ctxSetCurrent, "cuCtxSetCurrent") ||
      !CONSUMER_SYMBOL(library, driver->ctxSynchronize, "cuCtxSynchronize") ||
      !CONSUMER_SYMBOL(library, driver->memAlloc, "cuMemAlloc_v2") ||
      !CONSUMER_SYMBOL(library, driver->memFree, "cuMemFree_v2") ||
      !CONSUMER_SYMBOL(library, driver->memcpyDtoH, "cuMemcpyDtoH_v2")) {
    fprintf(stderr, "cannot open the CUDA driver: %s\n", dlerror());
    return 1;
  }
  if (driver->init(0) != CUDA_SUCCESS || driver->deviceGet(&device, 0) != CUDA_SUCCESS ||
      driver->primaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      driver->ctxSetCurrent(context) != CUDA_SUCCESS) {
    fprintf(stderr, "cannot set up device 0\n");
    return 1;
  }
  return 0;
}

#endif
