// The launch path shared by every launcher: check the config, find the device ready, launch in
// a context of that device with cuLaunchKernel, or cuLaunchKernelEx when the launch asks for a
// cluster shape, a cooperative or programmatic dependent launch, or an L2 window.
#pragma once

#include "State.h"

namespace tlc::runtime {

struct Dim3 {
  unsigned x, y, z;
};

// What a launch asks of the driver beyond cuLaunchKernel, validated before anything is set.
struct LaunchRequest {
  Dim3 grid = {0, 0, 0}, block = {0, 0, 0};
  bool clusterOverride = false; // a cluster shape the kernel was not compiled with
  Dim3 cluster = {0, 0, 0};
  bool extended = false; // needs cuLaunchKernelEx
};

// Checks `config` for `kernel` (NULL, size, shapes, cluster, L2 window) into `request`.
tlc_status describeLaunch(const Module& module, int kernel, const tlc_config* config,
                          LaunchRequest& request);

// Launches a described request on an active device.
tlc_status launchOn(const Module& module, int kernel, const tlc_config& config,
                    const LaunchRequest& request, const ActiveDevice& active, void** args);

// Whether the device's image target holds `kernel` (code under #if __CUDA_ARCH__ may exist for
// some targets only); TLC_ERROR_NO_BINARY naming both if not.
tlc_status checkKernelTarget(const Module& module, int kernel, const DeviceState& device);

} // namespace tlc::runtime
