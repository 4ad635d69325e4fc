// The control API declared in fake_cuda.h. Nothing here is logged.
#include "Driver.h"

#include <cctype>

using namespace fake_cuda;

namespace {

std::unique_lock<std::mutex> lockState() {
  return std::unique_lock<std::mutex>(state().mutex);
}

// "9.0,8.6" -> {{9, 0}, {8, 6}}; false if malformed.
bool parseCapabilities(const std::string& spec, std::vector<std::pair<int, int>>& out) {
  size_t at = 0;
  auto number = [&](int& value) {
    if (at >= spec.size() || !std::isdigit(static_cast<unsigned char>(spec[at])))
      return false;
    value = 0;
    while (at < spec.size() && std::isdigit(static_cast<unsigned char>(spec[at])) && value < 100)
      value = value * 10 + (spec[at++] - '0');
    return true;
  };
  auto expect = [&](char c) { return at < spec.size() && spec[at++] == c; };
  while (at < spec.size()) {
    int major = 0, minor = 0;
    if (!number(major) || !expect('.') || !number(minor))
      return false;
    out.emplace_back(major, minor);
    if (at < spec.size() && !expect(','))
      return false;
  }
  return true;
}

// A live context of the fake, or null.
CUctx_st* liveContext(const State& s, CUcontext handle) {
  auto* context = s.find<CUctx_st>(handle, HandleKind::Context);
  return context && !context->destroyed ? context : nullptr;
}

} // namespace

extern "C" {

void fake_cuda_reset(void) {
  auto lock = lockState();
  state().reset();
}

int fake_cuda_set_devices(const char* spec) {
  std::vector<std::pair<int, int>> capabilities;
  if (!spec || !parseCapabilities(spec, capabilities))
    return -1;
  auto lock = lockState();
  state().setDevices(capabilities);
  return 0;
}

void fake_cuda_fail(const char* function, CUresult result, int times) {
  if (!function)
    return;
  auto lock = lockState();
  if (times == 0)
    state().failures.erase(function);
  else
    state().failures[function] = {result, times < 0 ? FAKE_CUDA_ALWAYS : times};
}

void fake_cuda_hide(const char* function) {
  if (!function)
    return;
  auto lock = lockState();
  state().hidden.insert(function);
}

long fake_cuda_log_size(void) {
  auto lock = lockState();
  return static_cast<long>(state().log.size());
}

int fake_cuda_log_entry(long index, fake_cuda_call* out) {
  auto lock = lockState();
  const auto& log = state().log;
  if (!out || index < 0 || index >= static_cast<long>(log.size()))
    return 0;
  *out = log[static_cast<size_t>(index)];
  return 1;
}

int fake_cuda_count(const char* function) {
  if (!function)
    return 0;
  auto lock = lockState();
  int count = 0;
  for (const fake_cuda_call& call : state().log)
    count += std::string(call.function) == function;
  return count;
}

void fake_cuda_clear_log(void) {
  auto lock = lockState();
  state().log.clear();
}

CUcontext fake_cuda_create_context(int device) {
  auto lock = lockState();
  if (!state().validDevice(device))
    return nullptr;
  return state().makeContext(device, false);
}

int fake_cuda_destroy_context(CUcontext handle) {
  auto lock = lockState();
  CUctx_st* context = liveContext(state(), handle);
  if (!context || context->primary)
    return -1;
  context->destroyed = true;
  auto& stack = contextStack();
  if (!stack.empty() && stack.back() == context)
    stack.pop_back();
  return 0;
}

int fake_cuda_set_current(CUcontext handle) {
  auto lock = lockState();
  auto& stack = contextStack();
  if (!handle) {
    if (!stack.empty())
      stack.pop_back();
    return 0;
  }
  CUctx_st* context = liveContext(state(), handle);
  if (!context)
    return -1;
  if (stack.empty())
    stack.push_back(context);
  else
    stack.back() = context;
  return 0;
}

CUcontext fake_cuda_current_context(void) {
  return currentContext();
}

int fake_cuda_context_depth(void) {
  return static_cast<int>(contextStack().size());
}

int fake_cuda_context_device(CUcontext handle) {
  auto lock = lockState();
  auto* context = state().find<CUctx_st>(handle, HandleKind::Context);
  return context ? context->device : -1;
}

CUcontext fake_cuda_primary_context(int device) {
  auto lock = lockState();
  return state().validDevice(device) ? state().devices[device].primary : nullptr;
}

int fake_cuda_primary_retains(int device) {
  auto lock = lockState();
  return state().validDevice(device) ? state().devices[device].retains : -1;
}

int fake_cuda_loaded_libraries(void) {
  auto lock = lockState();
  int loaded = 0;
  for (const CUlib_st& library : state().libraries)
    loaded += library.loaded;
  return loaded;
}

int fake_cuda_chosen_sm(int device) {
  auto lock = lockState();
  auto chosen = state().chosen.find(device);
  return chosen == state().chosen.end() ? -1 : chosen->second->sm();
}

int fake_cuda_chosen_code(int device) {
  auto lock = lockState();
  auto chosen = state().chosen.find(device);
  return chosen == state().chosen.end() ? FAKE_CUDA_CODE_NONE
                                        : static_cast<int>(chosen->second->kind());
}

int fake_cuda_jit_count(void) {
  auto lock = lockState();
  return state().jitCount;
}

int fake_cuda_kernel_attribute(const char* symbol, int device, CUfunction_attribute attribute,
                               int* value) {
  auto lock = lockState();
  const CUlib_st* library = state().latestLibrary;
  if (!symbol || !value || !library || !state().validDevice(device))
    return -1;
  auto kernel = library->kernels.find(symbol);
  if (kernel == library->kernels.end())
    return -1;
  *value = kernelAttribute(*kernel->second, device, attribute);
  return 0;
}

long fake_cuda_tensor_map_source(const CUtensorMap* map) {
  return tensorMapSource(map);
}

} // extern "C"
