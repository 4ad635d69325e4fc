// The fake's driver entry points, reached only through cuGetProcAddress (ProcAddress.cpp).
// Each has the signature of the PFN type of the version the fake's table gives it.
#ifndef TLC_FAKE_CUDA_ENTRY_POINTS_H
#define TLC_FAKE_CUDA_ENTRY_POINTS_H

#include <cuda.h>

namespace fake_cuda {

// Contexts.cpp
CUresult CUDAAPI init(unsigned int flags);
CUresult CUDAAPI deviceGetCount(int* count);
CUresult CUDAAPI deviceGet(CUdevice* device, int ordinal);
CUresult CUDAAPI deviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device);
CUresult CUDAAPI deviceGetName(char* name, int length, CUdevice device);
CUresult CUDAAPI primaryCtxRetain(CUcontext* context, CUdevice device);
CUresult CUDAAPI primaryCtxRelease(CUdevice device);
CUresult CUDAAPI ctxGetCurrent(CUcontext* context);
CUresult CUDAAPI ctxGetDevice(CUdevice* device);
CUresult CUDAAPI ctxPushCurrent(CUcontext context);
CUresult CUDAAPI ctxPopCurrent(CUcontext* context);
CUresult CUDAAPI ctxGetLimit(size_t* value, CUlimit limit);
CUresult CUDAAPI ctxSetLimit(CUlimit limit, size_t value);

// Libraries.cpp
CUresult CUDAAPI libraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions,
                                 void** jitOptionValues, unsigned int numJitOptions,
                                 CUlibraryOption* libraryOptions, void** libraryOptionValues,
                                 unsigned int numLibraryOptions);
CUresult CUDAAPI libraryUnload(CUlibrary library);
CUresult CUDAAPI libraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name);
CUresult CUDAAPI libraryGetModule(CUmodule* module, CUlibrary library);
CUresult CUDAAPI kernelGetFunction(CUfunction* function, CUkernel kernel);
CUresult CUDAAPI kernelGetAttribute(int* value, CUfunction_attribute attribute, CUkernel kernel,
                                    CUdevice device);
CUresult CUDAAPI kernelSetAttribute(CUfunction_attribute attribute, int value, CUkernel kernel,
                                    CUdevice device);

// Linker.cpp
CUresult CUDAAPI linkCreate(unsigned int numOptions, CUjit_option* options, void** optionValues,
                            CUlinkState* stateOut);
CUresult CUDAAPI linkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size,
                             const char* name, unsigned int numOptions, CUjit_option* options,
                             void** optionValues);
CUresult CUDAAPI linkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut);
CUresult CUDAAPI linkDestroy(CUlinkState state);

// Launches.cpp
CUresult CUDAAPI launchKernel(CUfunction function, unsigned int gridDimX, unsigned int gridDimY,
                              unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                              unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream stream,
                              void** kernelParams, void** extra);
CUresult CUDAAPI launchKernelEx(const CUlaunchConfig* config, CUfunction function,
                                void** kernelParams, void** extra);

// TensorMaps.cpp
CUresult CUDAAPI tensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType dataType,
                                      cuuint32_t rank, void* address, const cuuint64_t* dims,
                                      const cuuint64_t* strides, const cuuint32_t* box,
                                      const cuuint32_t* elementStrides,
                                      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                      CUtensorMapL2promotion l2Promotion,
                                      CUtensorMapFloatOOBfill oobFill);
CUresult CUDAAPI tensorMapEncodeIm2col(CUtensorMap* map, CUtensorMapDataType dataType,
                                       cuuint32_t rank, void* address, const cuuint64_t* dims,
                                       const cuuint64_t* strides, const int* lowerCorner,
                                       const int* upperCorner, cuuint32_t channelsPerPixel,
                                       cuuint32_t pixelsPerColumn, const cuuint32_t* elementStrides,
                                       CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                       CUtensorMapL2promotion l2Promotion,
                                       CUtensorMapFloatOOBfill oobFill);

// ProcAddress.cpp
CUresult CUDAAPI getErrorName(CUresult error, const char** name);
CUresult CUDAAPI getErrorString(CUresult error, const char** text);

} // namespace fake_cuda

#endif
