#include "Driver.h"

namespace fake_cuda {

namespace {

// Bumped by reset(): a thread whose stack is from an older generation finds it empty.
std::atomic<unsigned> gGeneration{0};

int threadNumber() {
  static std::atomic<int> threads{0};
  thread_local int number = ++threads;
  return number;
}

fake_cuda_call emptyRecord(const char* function, long index) {
  fake_cuda_call record = {};
  record.index = index;
  record.thread = threadNumber();
  copyText(record.function, function);
  record.context = currentContext();
  record.device = -1;
  record.sm = -1;
  record.param_count = -1;
  for (long& source : record.param_tensor_map)
    source = -1;
  return record;
}

} // namespace

State& state() {
  // Never destroyed: a launcher may still call in from its own atexit handlers.
  static State* instance = [] {
    auto* made = new State;
    made->reset();
    return made;
  }();
  return *instance;
}

std::vector<CUctx_st*>& contextStack() {
  thread_local unsigned generation = 0;
  thread_local std::vector<CUctx_st*> stack;
  unsigned now = gGeneration.load();
  if (generation != now) {
    stack.clear();
    generation = now;
  }
  return stack;
}

int sharedMemoryOptin(const Device& device) {
  if (device.major >= 9)
    return 227 * 1024;
  if (device.major == 8)
    return device.minor == 0 || device.minor == 7 ? 163 * 1024 : 99 * 1024;
  return 48 * 1024;
}

int kernelAttribute(const CUkern_st& kernel, int device, CUfunction_attribute attribute) {
  auto perDevice = kernel.attributes.find(device);
  if (perDevice != kernel.attributes.end()) {
    auto set = perDevice->second.find(attribute);
    if (set != perDevice->second.end())
      return set->second;
  }
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    return 48 * 1024;
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    return 1024;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    return -1;
  default:
    return 0;
  }
}

CUctx_st* State::makeContext(int device, bool primary) {
  CUctx_st* context = make<CUctx_st, HandleKind::Context>(contexts);
  context->device = device;
  context->primary = primary;
  return context;
}

bool State::usable(const CUctx_st* context) const {
  if (!context || context->destroyed)
    return false;
  return !context->primary || devices[context->device].retains > 0;
}

const ElfImage* State::imageFor(const CUlib_st& library, int device) const {
  return imageForDevice(library.images, devices[device].major, devices[device].minor);
}

void State::setDevices(const std::vector<std::pair<int, int>>& capabilities) {
  for (Device& device : devices)
    device.primary->destroyed = true;
  devices.clear();
  for (const auto& [major, minor] : capabilities) {
    Device device;
    device.major = major;
    device.minor = minor;
    device.primary = makeContext(static_cast<int>(devices.size()), true);
    devices.push_back(device);
  }
}

void State::reset() {
  initialized = false;
  failures.clear();
  hidden.clear();
  log.clear();
  chosenSm.clear();
  latestLibrary = nullptr;
  for (CUctx_st& context : contexts)
    context.destroyed = true;
  for (CUlib_st& library : libraries)
    library.loaded = false;
  setDevices({{9, 0}});
  ++gGeneration;
}

Call::Call(const char* function)
    : S(fake_cuda::state()), Lock(S.mutex),
      Record(emptyRecord(function, static_cast<long>(S.log.size()))) {
}

Call::~Call() {
  S.log.push_back(Record);
}

CUresult Call::start(bool needsInit) {
  auto failure = S.failures.find(Record.function);
  if (failure != S.failures.end() && failure->second.remaining != 0) {
    if (failure->second.remaining > 0)
      --failure->second.remaining;
    return failure->second.result;
  }
  if (needsInit && !S.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  return CUDA_SUCCESS;
}

} // namespace fake_cuda
