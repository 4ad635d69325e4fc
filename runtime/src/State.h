// A module's state at run time: the image loaded once per process (cuLibraryLoadData, context
// independent), every kernel looked up once by its exact symbol, and each device set up at its
// first use: primary context retained, the image checked against it. A device's state is then
// published with one atomic store, and launches find it with one atomic load and take no lock.
//
// Unloading never races a launch: a launch counts itself in flight while it uses the state, and
// tlc_NAME_unload() closes the module, waits for the launches in flight (a few microseconds) and
// only then releases; a launch that finds the module closing waits for the unload and sets the
// device up again.
#pragma once

#include "Mutex.h"
#include "tlc/runtime.h"

#include <atomic>
#include <cstddef>
#include <mutex>

namespace tlc::runtime {

// What a device knows about one kernel.
struct KernelSlot {
  std::atomic<unsigned> sharedLimit{0}; // the dynamic shared memory limit in effect (0: not read)
  std::atomic<bool> nonPortableCluster{false}; // cluster sizes over 8 allowed
  // The kernel's function in the primary context, filled at first use: launching a CUfunction
  // spares the driver resolving the CUkernel for the current context on every launch.
  std::atomic<CUfunction> function{nullptr};
};

struct DeviceState {
  int ordinal = 0;
  CUdevice device = 0;
  int major = 0, minor = 0;
  int target = -1;            // the image target this device runs (Targets.h), -1 if none
  bool builtImage = true;     // the image is the one tlc built, so KernelInfo::targets holds
  size_t maxPersistingL2 = 0; // CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE
  size_t maxL2Window = 0;     // CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE
  char name[96] = {};
  std::atomic<CUcontext> primary{nullptr};
  Mutex mutex;                   // kernel attributes and limits on this device
  KernelSlot* kernels = nullptr; // [kernelCount]
};

struct ModuleState {
#ifdef TLC_RUNTIME_TEST_OTHER_LAYOUT
  // The isolation tests' second runtime, standing for another tlc version's, lays its state out
  // differently (test/runtime/IsolationTests.cpp): were any runtime symbol shared between two
  // libraries, one copy would read the other's state wrongly.
  char otherLayout[40] = {};
#endif
  Mutex mutex; // loading the image, setting devices up, unloading
  std::atomic<int> inFlight{0};
  std::atomic<bool> closing{false};
  int deviceCount = 0;
  std::atomic<std::atomic<DeviceState*>*> ready{nullptr}; // per device; null until launchable
  DeviceState** devices = nullptr; // per device; kept for the process's lifetime
  CUlibrary library = nullptr;
  CUkernel* kernels = nullptr; // [kernelCount], looked up by exact symbol at load
  void* imageCopy = nullptr;   // an image read from a file, kept while loaded
  void* linkedImage = nullptr; // a relocatable module's PTX linked for `loadedFor`, likewise
  int loadedFor = -1;          // the device the image was loaded for; -1 while not loaded
  char* imagePath = nullptr;   // set by tlc_NAME_set_image_path
  // The driver's JIT messages and the options naming them: kept while loaded, since the driver
  // may compile PTX lazily (when a kernel is first resolved in a context) and write the log,
  // and its length into the options, then.
  char jitLog[8192] = {};
  CUjit_option jitOptions[2] = {};
  void* jitOptionValues[2] = {};
};

// The module's state, made at first use; null (with a message) if host memory ran out.
ModuleState* stateOf(Module& module);

// A device in use by one launch (or get_function): counted in flight while it lives.
class ActiveDevice {
public:
  ActiveDevice() = default;
  ~ActiveDevice() { leave(); }
  ActiveDevice(const ActiveDevice&) = delete;
  ActiveDevice& operator=(const ActiveDevice&) = delete;

  ModuleState& module() const { return *State; }
  DeviceState& device() const { return *Device; }

private:
  friend tlc_status activate(Module& module, int ordinal, ActiveDevice& active);
  bool enter(ModuleState& state, int ordinal);
  void leave();

  ModuleState* State = nullptr;
  DeviceState* Device = nullptr;
};

// Makes device `ordinal` ready (opening the driver and loading the image the first time) and
// counts the caller in flight on it until `active` goes.
tlc_status activate(Module& module, int ordinal, ActiveDevice& active);

// Releases every device and the image; the next launch loads again.
tlc_status unloadModule(Module& module);

// The image target device `ordinal` runs (an index into module.targets), as a launch there would
// find it, opening the driver if needed but loading nothing: TLC_ERROR_NO_BINARY (with the
// message a launch would give) if the image has no code for the device, or if the image is
// loaded already and cannot serve it (a relocatable module's PTX linked for another device).
tlc_status deviceTarget(Module& module, int ordinal, int& target);

// Failures naming the module, a call and a device (-1: none) or a kernel.
tlc_status failCall(const Module& module, tlc_status status, int device, const char* call,
                    CUresult result);
tlc_status failKernel(const Module& module, tlc_status status, int kernel, int device,
                      const char* call, CUresult result);
// What a driver error means for the caller.
tlc_status statusFor(CUresult result, tlc_status otherwise);
// TLC_ERROR_NO_BINARY for a device the image (or one kernel of it) cannot serve: what the
// image holds, what the device is, and how to rebuild.
// Whether the image target `device` runs holds `kernel` (true where that is not known: an image
// the caller supplied, or a device no target serves).
bool holdsKernel(const Module& module, const DeviceState& device, int kernel);
tlc_status failNoBinary(const Module& module, const DeviceState& device, int kernel);

} // namespace tlc::runtime
