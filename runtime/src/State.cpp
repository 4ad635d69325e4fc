// Loading the image, setting devices up and unloading, under the module's lock; the lock-free
// lookup of a ready device that every launch does.
#include "State.h"

#include "Driver.h"
#include "Errors.h"
#include "Heap.h"
#include "Link.h"
#include "Targets.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace tlc::runtime {

namespace {

// Guards making a module's state; everything after that has the module's own lock.
Mutex gStateCreation;

bool builtImage(const ModuleState& state) {
  return !state.imagePath;
}

} // namespace

ModuleState* stateOf(Module& module) {
  if (ModuleState* state = __atomic_load_n(&module.state, __ATOMIC_ACQUIRE))
    return state;
  std::lock_guard<Mutex> lock(gStateCreation);
  ModuleState* state = __atomic_load_n(&module.state, __ATOMIC_RELAXED);
  if (!state) {
    state = makeObject<ModuleState>();
    if (!state) {
      fail(TLC_ERROR_DRIVER, "%s: out of host memory", module.name);
      return nullptr;
    }
    __atomic_store_n(&module.state, state, __ATOMIC_RELEASE);
  }
  return state;
}

tlc_status failCall(const Module& module, tlc_status status, int device, const char* call,
                    CUresult result) {
  if (device < 0)
    return fail(status, "%s: %s failed: %s (%s)", module.name, call, errorName(result),
                errorText(result));
  return fail(status, "%s: %s failed on device %d: %s (%s)", module.name, call, device,
              errorName(result), errorText(result));
}

tlc_status failKernel(const Module& module, tlc_status status, int kernel, int device,
                      const char* call, CUresult result) {
  const KernelInfo& info = module.kernels[kernel];
  return fail(status, "%s_%s: %s failed for kernel %s on device %d: %s (%s)", module.name,
              info.launcher, call, info.symbol, device, errorName(result), errorText(result));
}

tlc_status statusFor(CUresult result, tlc_status otherwise) {
  switch (result) {
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return TLC_ERROR_NO_BINARY;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
    return TLC_ERROR_NO_DEVICE;
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_JIT_COMPILATION_DISABLED:
  case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
    return TLC_ERROR_IMAGE;
  default:
    return otherwise;
  }
}

bool holdsKernel(const Module& module, const DeviceState& device, int kernel) {
  return !device.builtImage || device.target < 0 ||
         (module.kernels[kernel].targets >> device.target & 1u);
}

tlc_status failNoBinary(const Module& module, const DeviceState& device, int kernel) {
  char holds[512];
  describeTargets(module.targets, module.targetCount, holds, sizeof holds);
  if (kernel >= 0) {
    const KernelInfo& info = module.kernels[kernel];
    return fail(TLC_ERROR_NO_BINARY,
                "%s_%s: kernel %s has no code for device %d (%s, compute capability %d.%d, "
                "which runs %s): the image holds it only for other targets (code under "
                "#if __CUDA_ARCH__ ...); the image holds %s",
                module.name, info.launcher, info.symbol, device.ordinal, device.name, device.major,
                device.minor,
                device.target >= 0 ? module.targets[device.target].name : "none of its targets",
                holds);
  }
  return fail(TLC_ERROR_NO_BINARY,
              "%s: no code for device %d (%s, compute capability %d.%d): the image holds %s; "
              "SASS runs only on its own major version (sm_XYa only on X.Y) and PTX only on its "
              "arch or newer, so rebuild with --arch sm_%d%d for this device, or with a PTX "
              "target such as compute_%d%d that the driver JIT-compiles for it",
              module.name, device.ordinal, device.name, device.major, device.minor, holds,
              device.major, device.minor, device.major, device.minor);
}

namespace {

// ---------------------------------------------------------------------------------------------
// The image, loaded once per process under the module's lock.
// ---------------------------------------------------------------------------------------------

// The folder holding this shared library, where an external image is installed beside it.
bool libraryFolder(char* out, size_t size) {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&libraryFolder), &info) || !info.dli_fname)
    return false;
  const char* slash = std::strrchr(info.dli_fname, '/');
  if (!slash)
    return std::snprintf(out, size, ".") > 0;
  int length = static_cast<int>(slash - info.dli_fname);
  return std::snprintf(out, size, "%.*s", length, info.dli_fname) < static_cast<int>(size);
}

// The largest image read from a file (all of it is read into memory): far beyond any real
// fatbin, small enough that a wrong path never takes the host's memory.
constexpr unsigned long long kMaxImageBytes = 4ull << 30;

const char* fileKind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  return "not a regular file";
}

// Reads the image at `path` into state.imageCopy. Opened without blocking and read only when it
// is a regular file of a bounded size: a FIFO given to set_image_path would stop the launching
// thread in open() for ever, /dev/zero would be read until memory ran out.
tlc_status readImageFile(const Module& module, ModuleState& state, const char* path, size_t& size) {
  int fd = ::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fail(TLC_ERROR_IMAGE, "%s: cannot open the device image %s: %s", module.name, path,
                std::strerror(errno));
  struct stat info{};
  tlc_status status = TLC_SUCCESS;
  void* data = nullptr;
  if (::fstat(fd, &info) != 0) {
    status = fail(TLC_ERROR_IMAGE, "%s: cannot read the device image %s: %s", module.name, path,
                  std::strerror(errno));
  } else if (!S_ISREG(info.st_mode)) {
    status = fail(TLC_ERROR_IMAGE, "%s: cannot read the device image %s: %s, not a regular file",
                  module.name, path, fileKind(info.st_mode));
  } else if (info.st_size <= 0) {
    status = fail(TLC_ERROR_IMAGE, "%s: the device image %s is empty", module.name, path);
  } else if (static_cast<unsigned long long>(info.st_size) > kMaxImageBytes) {
    status = fail(TLC_ERROR_IMAGE,
                  "%s: the device image %s is %lld bytes, more than the %llu a device image may "
                  "have",
                  module.name, path, static_cast<long long>(info.st_size), kMaxImageBytes);
  } else if (!(data = std::malloc(static_cast<size_t>(info.st_size)))) {
    status = fail(TLC_ERROR_IMAGE, "%s: out of host memory reading the device image %s",
                  module.name, path);
  } else {
    size = static_cast<size_t>(info.st_size);
    size_t done = 0;
    while (done < size) {
      ssize_t got = ::read(fd, static_cast<char*>(data) + done, size - done);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        status = fail(TLC_ERROR_IMAGE, "%s: cannot read the device image %s: %s", module.name, path,
                      got < 0 ? std::strerror(errno) : "it was cut short while read");
        std::free(data);
        data = nullptr;
        break;
      }
      done += static_cast<size_t>(got);
    }
  }
  ::close(fd);
  if (status == TLC_SUCCESS)
    state.imageCopy = data;
  return status;
}

// The image's bytes: embedded, from NAME_set_image_path's path, or from beside the library.
// `available`: how many may be read (an embedded image's size is known only from its headers).
tlc_status imageBytes(const Module& module, ModuleState& state, const void*& image,
                      size_t& available, char* path, size_t pathSize) {
  std::snprintf(path, pathSize, "embedded");
  available = SIZE_MAX;
  if (!state.imagePath && module.image) {
    image = module.image;
    return TLC_SUCCESS;
  }
  if (state.imagePath) {
    std::snprintf(path, pathSize, "%s", state.imagePath);
  } else {
    char folder[4096];
    if (!libraryFolder(folder, sizeof folder))
      return fail(TLC_ERROR_IMAGE, "%s: cannot find the folder of lib%s.so to load %s from",
                  module.name, module.name, module.imageFile);
    if (std::snprintf(path, pathSize, "%s/%s", folder, module.imageFile) >=
        static_cast<int>(pathSize))
      return fail(TLC_ERROR_IMAGE, "%s: the path of %s in %s is too long", module.name,
                  module.imageFile, folder);
  }
  tlc_status status = readImageFile(module, state, path, available);
  image = state.imageCopy;
  return status;
}

bool isJitFailure(CUresult result) {
  return result == CUDA_ERROR_INVALID_PTX || result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         result == CUDA_ERROR_JIT_COMPILER_NOT_FOUND ||
         result == CUDA_ERROR_JIT_COMPILATION_DISABLED;
}

// A failure to JIT-compile the image's PTX for `device`, with the JIT's own log.
tlc_status failJit(const Module& module, const ModuleState& state, const DeviceState& device,
                   const char* call, CUresult result) {
  fail(TLC_ERROR_IMAGE,
       "%s: the driver could not JIT-compile the image's PTX (%s) for device %d (%s, compute "
       "capability %d.%d): %s failed: %s (%s)",
       module.name, device.target >= 0 ? module.targets[device.target].name : "none fits",
       device.ordinal, device.name, device.major, device.minor, call, errorName(result),
       errorText(result));
  if (state.jitLog[0])
    appendToError("; JIT log: %s", state.jitLog);
  return TLC_ERROR_IMAGE;
}

// The image's bytes as the device will load them: a relocatable module's PTX is linked for the
// device first (with the device's context current).
tlc_status bytesToLoad(const Module& module, ModuleState& state, const DeviceState& device,
                       const void*& image, char* path, size_t pathSize) {
  size_t available = 0;
  tlc_status status = imageBytes(module, state, image, available, path, pathSize);
  if (status != TLC_SUCCESS || !needsLink(module, device))
    return status;
  status = linkRelocatablePtx(module, device, image, available, state.linkedImage, state.jitLog,
                              sizeof state.jitLog);
  std::free(state.imageCopy); // only the linked code is loaded
  state.imageCopy = nullptr;
  image = state.linkedImage;
  return status;
}

void freeImages(ModuleState& state) {
  std::free(state.imageCopy);
  state.imageCopy = nullptr;
  std::free(state.linkedImage);
  state.linkedImage = nullptr;
}

// Under the module's lock: loads the image and looks every kernel up. The driver may check the
// image against the current context's device here, so `device` names it in a failure.
tlc_status loadImage(const Module& module, ModuleState& state, const DeviceState& device) {
  const void* image = nullptr;
  char path[4096];
  tlc_status status = bytesToLoad(module, state, device, image, path, sizeof path);
  if (status != TLC_SUCCESS) {
    freeImages(state);
    return status;
  }
  const Driver& d = driver();
  // The log and its options live as long as the library (State.h says why).
  state.jitLog[0] = '\0';
  state.jitOptions[0] = CU_JIT_ERROR_LOG_BUFFER;
  state.jitOptionValues[0] = state.jitLog;
  state.jitOptions[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
  state.jitOptionValues[1] = reinterpret_cast<void*>(sizeof state.jitLog);
  CUlibrary library = nullptr;
  CUresult result = d.libraryLoadData(&library, image, state.jitOptions, state.jitOptionValues, 2,
                                      nullptr, nullptr, 0);
  int missing = -1; // the kernel whose lookup failed, if one did
  for (int kernel = 0; result == CUDA_SUCCESS && kernel < module.kernelCount; ++kernel) {
    result = d.libraryGetKernel(&state.kernels[kernel], library, module.kernels[kernel].symbol);
    // A kernel compiled only for other targets (code under #if __CUDA_ARCH__) is not in the
    // code the driver chose for this device: its launches fail with its own message instead.
    if (result == CUDA_ERROR_NOT_FOUND && !holdsKernel(module, device, kernel)) {
      state.kernels[kernel] = nullptr;
      result = CUDA_SUCCESS;
    }
    if (result != CUDA_SUCCESS) {
      missing = kernel;
      d.libraryUnload(library);
    }
  }
  if (result == CUDA_SUCCESS) {
    state.library = library;
    state.loadedFor = device.ordinal;
    return TLC_SUCCESS;
  }
  freeImages(state);
  if (result == CUDA_ERROR_NO_BINARY_FOR_GPU)
    return failNoBinary(module, device, -1);
  // With a context current the driver compiles PTX during the load, yet reports a failure only
  // at the first lookup (seen on an H100).
  if (isJitFailure(result))
    return failJit(module, state, device, missing >= 0 ? "cuLibraryGetKernel" : "cuLibraryLoadData",
                   result);
  if (missing >= 0)
    return fail(TLC_ERROR_IMAGE, "%s: kernel %s is not in the device image (%s): %s", module.name,
                module.kernels[missing].symbol, path, errorName(result));
  return fail(statusFor(result, TLC_ERROR_IMAGE), "%s: cannot load the device image (%s): %s (%s)",
              module.name, path, errorName(result), errorText(result));
}

// ---------------------------------------------------------------------------------------------
// Devices, set up under the module's lock.
// ---------------------------------------------------------------------------------------------

tlc_status readAttribute(const Module& module, const DeviceState& device,
                         CUdevice_attribute attribute, int& value) {
  CUresult result = driver().deviceGetAttribute(&value, attribute, device.device);
  if (result != CUDA_SUCCESS)
    return failCall(module, statusFor(result, TLC_ERROR_DRIVER), device.ordinal,
                    "cuDeviceGetAttribute", result);
  return TLC_SUCCESS;
}

// Which device `ordinal` is and which image target it runs.
tlc_status identifyDevice(const Module& module, DeviceState& device) {
  const Driver& d = driver();
  CUresult result = d.deviceGet(&device.device, device.ordinal);
  if (result != CUDA_SUCCESS)
    return failCall(module, statusFor(result, TLC_ERROR_DRIVER), device.ordinal, "cuDeviceGet",
                    result);
  if (d.deviceGetName(device.name, sizeof device.name, device.device) != CUDA_SUCCESS)
    std::snprintf(device.name, sizeof device.name, "device %d", device.ordinal);
  tlc_status status =
      readAttribute(module, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device.major);
  if (status == TLC_SUCCESS)
    status =
        readAttribute(module, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device.minor);
  device.target = chooseTarget(module.targets, module.targetCount, device.major, device.minor);
  return status;
}

// Which device `ordinal` is, what it can run and what it allows.
tlc_status describeDevice(const Module& module, DeviceState& device) {
  int persisting = 0, window = 0;
  tlc_status status = identifyDevice(module, device);
  if (status == TLC_SUCCESS)
    status =
        readAttribute(module, device, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, persisting);
  if (status == TLC_SUCCESS)
    status =
        readAttribute(module, device, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, window);
  device.maxPersistingL2 = persisting > 0 ? static_cast<size_t>(persisting) : 0;
  device.maxL2Window = window > 0 ? static_cast<size_t>(window) : 0;
  return status;
}

// A relocatable module's image, once loaded for one device, serves another only with the same
// code: the runtime links relocatable PTX once per process, for the device the image is first
// loaded on, and that linked code is SASS for that device's compute capability.
tlc_status checkRelocatable(const Module& module, const ModuleState& state,
                            const DeviceState& device) {
  if (!module.relocatable || state.loadedFor < 0 || state.loadedFor == device.ordinal ||
      device.target < 0)
    return TLC_SUCCESS;
  const DeviceState& first = *state.devices[state.loadedFor];
  const char* needs = module.targets[device.target].name;
  if (state.linkedImage) {
    if (device.target == first.target && device.major == first.major && device.minor >= first.minor)
      return TLC_SUCCESS;
    return fail(TLC_ERROR_NO_BINARY,
                "%s: no code for device %d (%s, compute capability %d.%d, which needs %s): the "
                "module's relocatable PTX (%s) was linked for device %d (%s, compute capability "
                "%d.%d) when the image was loaded, and the runtime links it once per process; "
                "use devices of one compute capability, or build SASS for compute capability "
                "%d.%d (--arch sm_%d%d)",
                module.name, device.ordinal, device.name, device.major, device.minor, needs,
                module.targets[first.target].name, first.ordinal, first.name, first.major,
                first.minor, device.major, device.minor, device.major, device.minor);
  }
  if (!needsLink(module, device))
    return TLC_SUCCESS;
  return fail(TLC_ERROR_NO_BINARY,
              "%s: no code for device %d (%s, compute capability %d.%d): it needs the module's "
              "relocatable PTX (%s) linked for it, but the image was loaded for device %d (%s, "
              "compute capability %d.%d, which runs %s), and the runtime links relocatable PTX "
              "only for the device it first loads the image on; build SASS for compute "
              "capability %d.%d (--arch sm_%d%d)",
              module.name, device.ordinal, device.name, device.major, device.minor, needs,
              first.ordinal, first.name, first.major, first.minor,
              module.targets[first.target].name, device.major, device.minor, device.major,
              device.minor);
}

// The first kernel this device's target holds, to make the driver load the image there.
int firstKernelFor(const Module& module, const ModuleState& state, const DeviceState& device) {
  for (int kernel = 0; kernel < module.kernelCount; ++kernel)
    if (!builtImage(state) || holdsKernel(module, device, kernel))
      return kernel;
  return -1;
}

// With the device's primary context current: makes sure the image can serve this device, so a
// device it cannot serve fails here and not at some later launch. The first device gets the
// image loaded in its context, where the driver checks it while looking the kernels up; a later
// device resolves one kernel, which loads the image there. (cuLibraryGetModule would tell the
// same for every device but makes getting ready take 1.6 times as long: bench/launch.)
tlc_status checkDeviceImage(const Module& module, ModuleState& state, DeviceState& device) {
  if (builtImage(state) && device.target < 0)
    return failNoBinary(module, device, -1);
  if (!state.library)
    return loadImage(module, state, device);
  tlc_status status = checkRelocatable(module, state, device);
  if (status != TLC_SUCCESS)
    return status;
  int kernel = firstKernelFor(module, state, device);
  if (kernel < 0)
    return failNoBinary(module, device, -1);
  CUfunction function = nullptr;
  CUresult result = driver().kernelGetFunction(&function, state.kernels[kernel]);
  if (result == CUDA_SUCCESS) {
    device.kernels[kernel].function.store(function, std::memory_order_relaxed);
    return TLC_SUCCESS;
  }
  if (result == CUDA_ERROR_NO_BINARY_FOR_GPU)
    return failNoBinary(module, device, -1);
  if (isJitFailure(result))
    return failJit(module, state, device, "cuKernelGetFunction", result);
  return failCall(module, statusFor(result, TLC_ERROR_DRIVER), device.ordinal,
                  "cuKernelGetFunction", result);
}

// Retains the device's primary context and checks the image against it.
tlc_status attachDevice(const Module& module, ModuleState& state, DeviceState& device) {
  const Driver& d = driver();
  CUcontext primary = nullptr;
  CUresult result = d.primaryCtxRetain(&primary, device.device);
  if (result != CUDA_SUCCESS)
    return failCall(module, statusFor(result, TLC_ERROR_DRIVER), device.ordinal,
                    "cuDevicePrimaryCtxRetain", result);
  device.primary.store(primary, std::memory_order_relaxed);
  for (int kernel = 0; kernel < module.kernelCount; ++kernel) {
    device.kernels[kernel].sharedLimit.store(0, std::memory_order_relaxed);
    device.kernels[kernel].nonPortableCluster.store(false, std::memory_order_relaxed);
    device.kernels[kernel].function.store(nullptr, std::memory_order_relaxed);
  }
  tlc_status status = TLC_SUCCESS;
  result = d.ctxPushCurrent(primary);
  if (result == CUDA_SUCCESS) {
    status = checkDeviceImage(module, state, device);
    CUcontext popped = nullptr;
    d.ctxPopCurrent(&popped);
  } else {
    status = failCall(module, statusFor(result, TLC_ERROR_DRIVER), device.ordinal,
                      "cuCtxPushCurrent", result);
  }
  if (status != TLC_SUCCESS) {
    d.primaryCtxRelease(device.device);
    device.primary.store(nullptr, std::memory_order_relaxed);
  }
  return status;
}

// Under the module's lock, the first time: the driver, and the tables sized by it.
tlc_status openModule(const Module& module, ModuleState& state) {
  if (state.ready.load(std::memory_order_relaxed))
    return TLC_SUCCESS;
  const Driver* d = nullptr;
  tlc_status status = openDriver(module.name, d);
  if (status != TLC_SUCCESS)
    return status;
  int count = 0;
  CUresult result = d->deviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return failCall(module, TLC_ERROR_DRIVER, -1, "cuDeviceGetCount", result);
  size_t slots = count > 0 ? static_cast<size_t>(count) : 1;
  auto* ready = makeArray<std::atomic<DeviceState*>>(slots);
  state.devices = makeArray<DeviceState*>(slots);
  state.kernels = makeArray<CUkernel>(static_cast<size_t>(module.kernelCount));
  if (!ready || !state.devices || !state.kernels) {
    freeArray(ready);
    freeArray(state.devices);
    freeArray(state.kernels);
    state.devices = nullptr;
    state.kernels = nullptr;
    return fail(TLC_ERROR_DRIVER, "%s: out of host memory", module.name);
  }
  state.deviceCount = count;
  state.ready.store(ready, std::memory_order_release);
  return TLC_SUCCESS;
}

// The slow path of a launch on a device that is not ready, and of NAME_load.
tlc_status prepareDevice(const Module& module, ModuleState& state, int ordinal) {
  std::lock_guard<Mutex> lock(state.mutex);
  tlc_status status = openModule(module, state);
  if (status != TLC_SUCCESS)
    return status;
  if (ordinal < 0 || ordinal >= state.deviceCount)
    return fail(TLC_ERROR_NO_DEVICE, "%s: there is no CUDA device %d (this host has %d)",
                module.name, ordinal, state.deviceCount);
  std::atomic<DeviceState*>& slot = state.ready.load(std::memory_order_relaxed)[ordinal];
  if (slot.load(std::memory_order_relaxed))
    return TLC_SUCCESS;
  DeviceState*& device = state.devices[ordinal];
  if (!device) {
    device = makeObject<DeviceState>();
    if (!device)
      return fail(TLC_ERROR_DRIVER, "%s: out of host memory", module.name);
    device->ordinal = ordinal;
  }
  // Made apart from the state: if memory ran out between the two, the state stays without its
  // table, and a later launch makes the table here.
  if (!device->kernels) {
    device->kernels = makeArray<KernelSlot>(static_cast<size_t>(module.kernelCount));
    if (!device->kernels)
      return fail(TLC_ERROR_DRIVER, "%s: out of host memory", module.name);
  }
  status = describeDevice(module, *device);
  device->builtImage = builtImage(state);
  if (status == TLC_SUCCESS)
    status = attachDevice(module, state, *device);
  if (status == TLC_SUCCESS)
    slot.store(device, std::memory_order_release);
  return status;
}

} // namespace

bool ActiveDevice::enter(ModuleState& state, int ordinal) {
  state.inFlight.fetch_add(1, std::memory_order_seq_cst);
  if (!state.closing.load(std::memory_order_seq_cst)) {
    std::atomic<DeviceState*>* ready = state.ready.load(std::memory_order_acquire);
    if (ready && ordinal >= 0 && ordinal < state.deviceCount) {
      if (DeviceState* device = ready[ordinal].load(std::memory_order_acquire)) {
        State = &state;
        Device = device;
        return true;
      }
    }
  }
  state.inFlight.fetch_sub(1, std::memory_order_release);
  return false;
}

void ActiveDevice::leave() {
  if (State)
    State->inFlight.fetch_sub(1, std::memory_order_release);
  State = nullptr;
  Device = nullptr;
}

tlc_status activate(Module& module, int ordinal, ActiveDevice& active) {
  ModuleState* state = stateOf(module);
  if (!state)
    return TLC_ERROR_DRIVER;
  // Ready devices take the first branch; otherwise set up (waiting for an unload in progress)
  // and try again. Only an unload between the two can send a launch round more than once.
  while (!active.enter(*state, ordinal)) {
    tlc_status status = prepareDevice(module, *state, ordinal);
    if (status != TLC_SUCCESS)
      return status;
  }
  return TLC_SUCCESS;
}

tlc_status unloadModule(Module& module) {
  ModuleState* state = __atomic_load_n(&module.state, __ATOMIC_ACQUIRE);
  if (!state)
    return TLC_SUCCESS;
  std::lock_guard<Mutex> lock(state->mutex);
  std::atomic<DeviceState*>* ready = state->ready.load(std::memory_order_relaxed);
  if (!ready)
    return TLC_SUCCESS;
  // Close, then wait for the launches in flight: from here on nothing reads the state.
  state->closing.store(true, std::memory_order_seq_cst);
  while (state->inFlight.load(std::memory_order_seq_cst) != 0)
    std::this_thread::yield();
  const Driver& d = driver();
  tlc_status status = TLC_SUCCESS;
  for (int ordinal = 0; ordinal < state->deviceCount; ++ordinal) {
    DeviceState* device = ready[ordinal].exchange(nullptr, std::memory_order_relaxed);
    if (!device)
      continue;
    CUresult result = d.primaryCtxRelease(device->device);
    device->primary.store(nullptr, std::memory_order_relaxed);
    // A driver already shut down (at process exit) is not an error.
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED && status == TLC_SUCCESS)
      status = failCall(module, TLC_ERROR_DRIVER, ordinal, "cuDevicePrimaryCtxRelease", result);
  }
  if (state->library) {
    CUresult result = d.libraryUnload(state->library);
    state->library = nullptr;
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED && status == TLC_SUCCESS)
      status = failCall(module, TLC_ERROR_DRIVER, -1, "cuLibraryUnload", result);
  }
  freeImages(*state);
  state->loadedFor = -1;
  state->closing.store(false, std::memory_order_seq_cst);
  return status;
}

tlc_status deviceTarget(Module& module, int ordinal, int& target) {
  const Driver* d = nullptr;
  tlc_status status = openDriver(module.name, d);
  if (status != TLC_SUCCESS)
    return status;
  ModuleState* state = stateOf(module);
  if (!state)
    return TLC_ERROR_DRIVER;
  DeviceState device;
  device.ordinal = ordinal;
  status = identifyDevice(module, device);
  if (status != TLC_SUCCESS)
    return status;
  if (device.target < 0)
    return failNoBinary(module, device, -1);
  std::lock_guard<Mutex> lock(state->mutex);
  status = checkRelocatable(module, *state, device);
  if (status == TLC_SUCCESS)
    target = device.target;
  return status;
}

tlc_status setImagePath(Module& module, const char* path) {
  ModuleState* state = stateOf(module);
  if (!state)
    return TLC_ERROR_DRIVER;
  std::lock_guard<Mutex> lock(state->mutex);
  if (state->library)
    return fail(TLC_ERROR_INVALID_VALUE,
                "%s: the image is already loaded; call tlc_%s_unload() before "
                "tlc_%s_set_image_path()",
                module.name, module.name, module.name);
  if (path && std::strlen(path) >= 4096)
    return fail(TLC_ERROR_INVALID_VALUE,
                "tlc_%s_set_image_path: the path is longer than 4095 bytes", module.name);
  char* copy = nullptr;
  if (path && !(copy = strdup(path)))
    return fail(TLC_ERROR_DRIVER, "%s: out of host memory", module.name);
  std::free(state->imagePath);
  state->imagePath = copy;
  return TLC_SUCCESS;
}

} // namespace tlc::runtime
