/* DLPack's C exchange API (dlpack.h 1.3, DLPackExchangeAPI), which a type offers as the capsule
 * __dlpack_c_exchange_api__ (torch >= 2.10): C functions that read a DLTensor view of an object
 * and the framework's current stream, without a Python call. Debian's DLPack headers predate
 * it; the layout is the DLPack 1.x ABI's. Its own header, so that the benchmarks' C stand-ins
 * and probes (bench/python) read the same layout as the binding. */
#ifndef TLC_PYTHON_DLPACK_EXCHANGE_H
#define TLC_PYTHON_DLPACK_EXCHANGE_H

#include <dlpack/dlpack.h>
#include <stdint.h>

struct tlc_dlpack_exchange_api {
  struct {
    uint32_t major, minor;
  } version;
  const void* previous;
  void* managed_tensor_allocator;
  void* managed_tensor_from_py_object_no_sync;
  void* managed_tensor_to_py_object_no_sync;
  int (*dltensor_from_py_object_no_sync)(void* object, DLTensor* out);
  int (*current_work_stream)(DLDeviceType type, int32_t device, void** stream);
};

#endif
