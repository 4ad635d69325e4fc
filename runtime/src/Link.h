// Relocatable device code on a device that needs PTX: a relocatable module's image holds, per
// PTX target, one relocatable PTX entry per input, which cannot be loaded as they are (their
// .extern functions live in each other). The runtime links them for the device with the
// driver's JIT linker (cuLink*) and loads the result instead.
#pragma once

#include "State.h"

#include <cstddef>

namespace tlc::runtime {

// Whether loading the image on `device` means linking its relocatable PTX first.
bool needsLink(const Module& module, const DeviceState& device);

// With `device`'s context current: links the relocatable PTX entries of the device's image
// target, read from `image` (`available` bytes may be read; SIZE_MAX where only the fatbin's
// header says), for that device. On success `linked` holds a malloc'd copy of the cubin, which
// the caller frees. The JIT's messages go to `log`, and any failure's message carries them.
tlc_status linkRelocatablePtx(const Module& module, const DeviceState& device, const void* image,
                              size_t available, void*& linked, char* log, size_t logSize);

// Whether a JIT log names the device runtime's entry points, which a kernel launching kernels
// (dynamic parallelism) calls and only the toolkit's libcudadevrt defines.
bool namesDeviceRuntime(const char* log);

} // namespace tlc::runtime
