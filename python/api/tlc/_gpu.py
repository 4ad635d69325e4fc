"""The current GPU's architecture, asked of the CUDA driver (libcuda.so.1) through ctypes: no
torch, no CUDA toolkit. The device is the calling thread's current context's when there is one
(torch and CuPy make one), else device 0 (after CUDA_VISIBLE_DEVICES). For compute capability
9.0 and newer the arch-specific target (sm_90a): code for this very GPU may use all of it.
None where there is no driver or no GPU."""

import ctypes
import functools

_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76


def _device(cuda):
    device = ctypes.c_int()
    context = ctypes.c_void_p()
    if cuda.cuCtxGetCurrent(ctypes.byref(context)) == 0 and context.value:
        if cuda.cuCtxGetDevice(ctypes.byref(device)) == 0:
            return device.value
    count = ctypes.c_int()
    if cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value < 1:
        return None
    if cuda.cuDeviceGet(ctypes.byref(device), 0) != 0:
        return None
    return device.value


@functools.lru_cache(maxsize=None)
def _capability():
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    if cuda.cuInit(0) != 0:
        return None
    device = _device(cuda)
    if device is None:
        return None
    major, minor = ctypes.c_int(), ctypes.c_int()
    if (cuda.cuDeviceGetAttribute(ctypes.byref(major),
                                  _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != 0 or
            cuda.cuDeviceGetAttribute(ctypes.byref(minor),
                                      _CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != 0):
        return None
    return major.value, minor.value


def current_arch():
    """"sm_90a" for an H100 or H200, "sm_80" for an A100; None without a GPU."""
    capability = _capability()
    if capability is None:
        return None
    major, minor = capability
    return f"sm_{major}{minor}" + ("a" if major >= 9 else "")
