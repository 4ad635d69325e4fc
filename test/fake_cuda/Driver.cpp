// The fake driver's state, the per-call record and the choice and "JIT compilation" of code.
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
  record.code = FAKE_CUDA_CODE_NONE;
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

const DeviceCode* State::imageFor(const CUlib_st& library, int device) const {
  return codeForDevice(library.images, devices[device].major, devices[device].minor);
}

CodeChoice State::codeFor(CUlib_st& library, int device, fake_cuda_call& record) {
  CodeChoice choice;
  choice.code = imageFor(library, device);
  if (!choice.code) {
    choice.result = CUDA_ERROR_NO_BINARY_FOR_GPU;
    return choice;
  }
  record.code = static_cast<int>(choice.code->kind());
  record.sm = choice.code->sm();
  if (choice.code->kind() == CodeKind::Ptx) {
    auto compiled = library.jit.find(device);
    if (compiled == library.jit.end())
      compiled = library.jit
                     .emplace(device, compilePtx(choice.code->programs().front(), library.errorLog,
                                                 library.errorLogSize))
                     .first;
    choice.result = compiled->second;
  }
  if (choice.result == CUDA_SUCCESS)
    chosen[device] = choice.code;
  return choice;
}

bool State::takeFailure(const std::string& name, CUresult& result) {
  auto failure = failures.find(name);
  if (failure == failures.end() || failure->second.remaining == 0)
    return false;
  if (failure->second.remaining > 0)
    --failure->second.remaining;
  result = failure->second.result;
  return true;
}

CUresult State::compilePtx(const PtxProgram& program, char* log, size_t logSize) {
  ++jitCount;
  CUresult injected = CUDA_SUCCESS;
  if (takeFailure("jit", injected)) {
    writeLog(log, logSize, "ptxas fatal   : " FAKE_CUDA_JIT_INJECTED);
    return injected;
  }
  if (!program.valid()) {
    writeLog(log, logSize, program.error);
    return CUDA_ERROR_INVALID_PTX;
  }
  for (const std::string& name : program.externs)
    if (!program.exported.count(name)) {
      writeLog(log, logSize, "ptxas fatal   : Unresolved extern function '" + name + "'");
      return CUDA_ERROR_INVALID_PTX;
    }
  return CUDA_SUCCESS;
}

void writeLog(char* buffer, size_t size, const std::string& text) {
  if (!buffer || size == 0)
    return;
  size_t length = text.size() < size - 1 ? text.size() : size - 1;
  text.copy(buffer, length);
  buffer[length] = '\0';
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
  chosen.clear();
  latestLibrary = nullptr;
  jitCount = 0;
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
  CUresult injected = CUDA_SUCCESS;
  if (S.takeFailure(Record.function, injected))
    return injected;
  if (needsInit && !S.initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  return CUDA_SUCCESS;
}

} // namespace fake_cuda
