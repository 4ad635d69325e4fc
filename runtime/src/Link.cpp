// Linking a relocatable module's PTX entries for one device (cuLinkCreate, cuLinkAddData per
// entry, cuLinkComplete), and what a failure means for the caller.
#include "Link.h"

#include "Driver.h"
#include "Errors.h"
#include "Fatbin.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tlc::runtime {

namespace {

// A link in progress: its options live as long as it does (the driver writes the log's length
// back into them), and it is destroyed on every way out.
class Linker {
public:
  explicit Linker(const Driver& d) : D(d) {}
  ~Linker() {
    if (State)
      D.linkDestroy(State);
  }
  Linker(const Linker&) = delete;
  Linker& operator=(const Linker&) = delete;

  CUresult create(char* log, size_t logSize) {
    Options[0] = CU_JIT_ERROR_LOG_BUFFER;
    Values[0] = log;
    Options[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
    Values[1] = reinterpret_cast<void*>(logSize);
    return D.linkCreate(2, Options, Values, &State);
  }
  CUlinkState state() const { return State; }

private:
  const Driver& D;
  CUlinkState State = nullptr;
  CUjit_option Options[2];
  void* Values[2];
};

// Starts the message of a failed link; the caller appends why.
tlc_status startFailure(const Module& module, const DeviceState& device, tlc_status status) {
  return fail(status,
              "%s: cannot link the relocatable PTX (%s) for device %d (%s, compute capability "
              "%d.%d): ",
              module.name, module.targets[device.target].name, device.ordinal, device.name,
              device.major, device.minor);
}

// The image cannot give the linker what it needs.
tlc_status failImage(const Module& module, const DeviceState& device, const char* why) {
  startFailure(module, device, TLC_ERROR_IMAGE);
  appendToError("%s", why);
  return TLC_ERROR_IMAGE;
}

// Likewise, for one entry.
tlc_status failEntry(const Module& module, const DeviceState& device, const FatbinEntry& entry,
                     const char* problem) {
  char why[256];
  std::snprintf(why, sizeof why, "its PTX entry at offset %zu %s", entry.offset, problem);
  return failImage(module, device, why);
}

// A linker call failed; its log says why.
tlc_status failStep(const Module& module, const DeviceState& device, const char* call,
                    CUresult result, const char* log) {
  tlc_status status = statusFor(result, TLC_ERROR_IMAGE);
  startFailure(module, device, status);
  appendToError("%s failed: %s (%s)", call, errorName(result), errorText(result));
  if (log[0])
    appendToError("; JIT log: %s", log);
  return status;
}

// A kernel launching kernels needs the device runtime, which a driver alone cannot link in.
tlc_status failDynamicParallelism(const Module& module, const DeviceState& device,
                                  const char* log) {
  fail(TLC_ERROR_NO_BINARY,
       "%s: device %d (%s, compute capability %d.%d) would run the module's PTX (%s), but the "
       "module launches kernels from the device (dynamic parallelism), and the PTX fallback of "
       "a dynamic-parallelism module is not supported: linking it needs CUDA's device runtime "
       "(libcudadevrt), which only the toolkit has; build SASS for the device (--arch sm_%d%d)",
       module.name, device.ordinal, device.name, device.major, device.minor,
       module.targets[device.target].name, device.major, device.minor);
  appendToError("; JIT log: %s", log);
  return TLC_ERROR_NO_BINARY;
}

bool belongsTo(const FatbinEntry& entry, const ImageTarget& target) {
  return entry.kind == FatbinEntry::Ptx && entry.arch == target.arch &&
         entry.variant == target.variant;
}

// Adds every PTX entry of `target` to the link; `added` counts them.
tlc_status addEntries(const Module& module, const DeviceState& device, FatbinReader& reader,
                      const Linker& linker, int& added, const char* log) {
  const ImageTarget& target = module.targets[device.target];
  const Driver& d = driver();
  FatbinEntry entry;
  while (reader.next(entry)) {
    if (!belongsTo(entry, target))
      continue;
    if (entry.compressed)
      return failEntry(module, device, entry,
                       "is compressed, which the runtime cannot undo; build the image "
                       "uncompressed (fatbinary --compress=false)");
    size_t length = 0;
    bool terminated = false;
    ptxText(entry, length, terminated);
    if (!terminated)
      return failEntry(module, device, entry, "does not end in a NUL");
    char name[256];
    std::snprintf(name, sizeof name, "%s.%s.%d.ptx", module.name, target.name, ++added);
    // The driver only reads the text; its signature predates const.
    void* text = const_cast<unsigned char*>(entry.payload);
    CUresult result = d.linkAddData(linker.state(), CU_JIT_INPUT_PTX, text, length + 1, name, 0,
                                    nullptr, nullptr);
    if (result != CUDA_SUCCESS)
      return failStep(module, device, "cuLinkAddData", result, log);
  }
  if (reader.error()[0]) {
    startFailure(module, device, TLC_ERROR_IMAGE);
    appendToError("its fatbin cannot be read: %s", reader.error());
    return TLC_ERROR_IMAGE;
  }
  if (added == 0)
    return failImage(module, device, "the image holds no PTX entry for it");
  return TLC_SUCCESS;
}

} // namespace

bool needsLink(const Module& module, const DeviceState& device) {
  return module.relocatable && device.target >= 0 && module.targets[device.target].ptx;
}

bool namesDeviceRuntime(const char* log) {
  // CUDA 12's device runtime (__cudaCDP2LaunchDeviceV2, ...) and the older names.
  return std::strstr(log, "cudaCDP") || std::strstr(log, "cudaGetParameterBuffer") ||
         std::strstr(log, "cudaLaunchDevice");
}

tlc_status linkRelocatablePtx(const Module& module, const DeviceState& device, const void* image,
                              size_t available, void*& linked, char* log, size_t logSize) {
  log[0] = '\0';
  FatbinReader reader(image, available);
  if (!reader.isFatbin())
    return failImage(module, device, "the image is not a fatbin, so it holds no PTX");
  if (reader.error()[0]) {
    startFailure(module, device, TLC_ERROR_IMAGE);
    appendToError("its fatbin cannot be read: %s", reader.error());
    return TLC_ERROR_IMAGE;
  }
  const Driver& d = driver();
  Linker linker(d);
  CUresult result = linker.create(log, logSize);
  if (result != CUDA_SUCCESS)
    return failCall(module, statusFor(result, TLC_ERROR_DRIVER), device.ordinal, "cuLinkCreate",
                    result);
  int added = 0;
  tlc_status status = addEntries(module, device, reader, linker, added, log);
  if (status != TLC_SUCCESS)
    return status;
  void* cubin = nullptr;
  size_t size = 0;
  result = d.linkComplete(linker.state(), &cubin, &size);
  if (result != CUDA_SUCCESS)
    return namesDeviceRuntime(log) ? failDynamicParallelism(module, device, log)
                                   : failStep(module, device, "cuLinkComplete", result, log);
  // The cubin belongs to the link state; the library may need it for as long as it is loaded.
  linked = std::malloc(size);
  if (!linked)
    return fail(TLC_ERROR_DRIVER, "%s: out of host memory", module.name);
  std::memcpy(linked, cubin, size);
  return TLC_SUCCESS;
}

} // namespace tlc::runtime
