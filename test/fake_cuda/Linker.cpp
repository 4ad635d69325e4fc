// The JIT linker (cuLink*) over PTX inputs: each input read as the fake reads PTX, .extern .func
// resolved against what the other inputs define, and a "cubin" the fake's cuLibraryLoadData runs.
#include "Driver.h"
#include "EntryPoints.h"

#include <cstdint>
#include <cstring>

namespace fake_cuda {

namespace {

CUlinkState_st* liveLinkState(const State& state, CUlinkState handle) {
  auto* link = state.find<CUlinkState_st>(handle, HandleKind::LinkState);
  return link && !link->destroyed ? link : nullptr;
}

// The problems that keep the inputs from linking, one log line each, as nvlink words them.
std::string resolve(const std::vector<std::pair<std::string, PtxProgram>>& inputs) {
  std::string log;
  auto addLine = [&](const std::string& line) { log += (log.empty() ? "" : "\n") + line; };
  std::map<std::string, std::string> definedIn; // non-weak definitions, by name
  for (const auto& [name, program] : inputs) {
    for (const std::string& symbol : program.exported) {
      if (program.weak.count(symbol))
        continue;
      auto [first, inserted] = definedIn.emplace(symbol, name);
      if (!inserted)
        addLine("error   : Multiple definition of '" + symbol + "' in '" + name +
                "', first defined in '" + first->second + "'");
    }
  }
  for (const auto& [name, program] : inputs)
    for (const std::string& symbol : program.externs) {
      bool defined = false;
      for (const auto& other : inputs)
        defined = defined || other.second.exported.count(symbol) != 0;
      if (!defined)
        addLine("error   : Undefined reference to '" + symbol + "' in '" + name + "'");
    }
  return log;
}

} // namespace

CUresult CUDAAPI linkCreate(unsigned int numOptions, CUjit_option* options, void** optionValues,
                            CUlinkState* stateOut) {
  Call call("cuLinkCreate");
  CUctx_st* context = currentContext();
  if (context)
    call.record().device = context->device;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!stateOut || (numOptions && (!options || !optionValues)))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  State& state = call.state();
  if (!state.usable(context))
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  CUlinkState_st* made = state.makeLinkState();
  made->device = context->device;
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      made->errorLog = static_cast<char*>(optionValues[i]);
    else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      made->errorLogSize = static_cast<size_t>(reinterpret_cast<uintptr_t>(optionValues[i]));
  }
  call.record().handle = made;
  *stateOut = made;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI linkAddData(CUlinkState link, CUjitInputType type, void* data, size_t size,
                             const char* name, unsigned int, CUjit_option*, void**) {
  Call call("cuLinkAddData");
  fake_cuda_call& record = call.record();
  record.handle = link;
  record.value = type;
  if (name)
    copyText(record.symbol, name);
  if (CUresult early = call.start())
    return call.finish(early);
  State& state = call.state();
  CUlinkState_st* target = liveLinkState(state, link);
  if (!target)
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  record.device = target->device;
  if (!data || size == 0)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (type != CU_JIT_INPUT_PTX)
    return call.finish(CUDA_ERROR_NOT_SUPPORTED); // the fake links PTX only
  const char* text = static_cast<const char*>(data);
  std::string ptx(text, strnlen(text, size));
  PtxProgram program = parsePtx(ptx);
  // Each input is compiled as it is added; unresolved references wait for cuLinkComplete.
  ++state.jitCount;
  CUresult injected = CUDA_SUCCESS;
  if (state.takeFailure("jit", injected)) {
    writeLog(target->errorLog, target->errorLogSize, "ptxas fatal   : " FAKE_CUDA_JIT_INJECTED);
    return call.finish(injected);
  }
  if (!program.valid()) {
    writeLog(target->errorLog, target->errorLogSize, program.error);
    return call.finish(CUDA_ERROR_INVALID_PTX);
  }
  const Device& device = state.devices[target->device];
  if (!DeviceCode::ptx(program.sm, program.variant, ptx).runsOn(device.major, device.minor)) {
    writeLog(target->errorLog, target->errorLogSize,
             "ptxas fatal   : SM version specified by .target is higher than the device's (sm_" +
                 std::to_string(device.major * 10 + device.minor) + ")");
    return call.finish(CUDA_ERROR_INVALID_PTX);
  }
  target->inputs.emplace_back(name ? name : "", std::move(ptx));
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI linkComplete(CUlinkState link, void** cubinOut, size_t* sizeOut) {
  Call call("cuLinkComplete");
  call.record().handle = link;
  if (CUresult early = call.start())
    return call.finish(early);
  State& state = call.state();
  CUlinkState_st* target = liveLinkState(state, link);
  if (!target)
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  call.record().device = target->device;
  call.record().value = static_cast<int>(target->inputs.size());
  if (!cubinOut || !sizeOut || target->inputs.empty())
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  std::vector<std::pair<std::string, PtxProgram>> programs;
  std::vector<std::string> texts;
  for (const auto& [name, text] : target->inputs) {
    programs.emplace_back(name, parsePtx(text));
    texts.push_back(text);
  }
  std::string problems = resolve(programs);
  if (!problems.empty()) {
    writeLog(target->errorLog, target->errorLogSize, problems);
    return call.finish(CUDA_ERROR_UNKNOWN); // what the real driver returns (seen on an H100)
  }
  const Device& device = state.devices[target->device];
  target->output = makeLinkedImage(device.major * 10 + device.minor, texts);
  *cubinOut = &target->output[0];
  *sizeOut = target->output.size();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI linkDestroy(CUlinkState link) {
  Call call("cuLinkDestroy");
  call.record().handle = link;
  if (CUresult early = call.start())
    return call.finish(early);
  CUlinkState_st* target = liveLinkState(call.state(), link);
  if (!target)
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  target->destroyed = true;
  // The cubin dies with the link state: a caller still holding it reads garbage.
  std::memset(&target->output[0], 0xdd, target->output.size());
  return call.finish(CUDA_SUCCESS);
}

} // namespace fake_cuda
