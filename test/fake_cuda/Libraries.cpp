// Libraries (cuLibrary*), their kernels and modules, and kernel attributes.
#include "Driver.h"
#include "EntryPoints.h"

#include <algorithm>
#include <cstdint>

namespace fake_cuda {

namespace {

CUlib_st* liveLibrary(const State& state, CUlibrary handle) {
  auto* library = state.find<CUlib_st>(handle, HandleKind::Library);
  return library && library->loaded ? library : nullptr;
}

// The kernel's parameters and cluster shape, from the first image that describes it.
void describe(CUkern_st& kernel) {
  for (const DeviceCode& image : kernel.library->images) {
    if (auto description = image.describeKernel(kernel.symbol)) {
      kernel.parameterSizes = description->parameterSizes;
      kernel.parameterCount = static_cast<int>(description->parameterSizes.size());
      std::copy_n(description->clusterDims, 3, kernel.clusterDims);
      return;
    }
  }
}

bool anyImageHas(const CUlib_st& library, const std::string& symbol) {
  for (const DeviceCode& image : library.images)
    if (image.hasSymbol(symbol))
      return true;
  return false;
}

// Whether `value` is one the fake accepts for a settable attribute on `device`.
CUresult checkSettable(CUfunction_attribute attribute, int value, const Device& device) {
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    return value >= 0 && value <= sharedMemoryOptin(device) ? CUDA_SUCCESS
                                                            : CUDA_ERROR_INVALID_VALUE;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    return value >= -1 && value <= 100 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    if (device.major < 9)
      return CUDA_ERROR_NOT_SUPPORTED;
    return value == 0 || value == 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE; // read-only, or unknown to the fake
  }
}

// The error log buffer among JIT options, as the driver reads them.
void readLogOption(unsigned count, const CUjit_option* options, void* const* values, char*& log,
                   size_t& size) {
  for (unsigned i = 0; options && values && i < count; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      log = static_cast<char*>(values[i]);
    else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      size = static_cast<size_t>(reinterpret_cast<uintptr_t>(values[i]));
  }
}

// Whether `symbol` can be looked up in `library` from `context` (null: none current). Seen on an
// H100: a device that runs PTX finds only what the JIT-compiled PTX entry holds.
bool findsSymbol(const State& state, const CUlib_st& library, const CUctx_st* context,
                 const std::string& symbol) {
  if (context) {
    const DeviceCode* code = state.imageFor(library, context->device);
    if (code && code->kind() == CodeKind::Ptx)
      return code->hasSymbol(symbol);
  }
  return anyImageHas(library, symbol);
}

} // namespace

CUresult CUDAAPI libraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions,
                                 void** jitOptionValues, unsigned int numJitOptions,
                                 CUlibraryOption*, void**, unsigned int) {
  Call call("cuLibraryLoadData");
  if (CUresult early = call.start())
    return call.finish(early);
  if (!library || !code)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  std::vector<DeviceCode> images = readDeviceImages(code);
  fake_cuda_call& record = call.record();
  record.image_count = static_cast<int>(images.size());
  for (size_t i = 0; i < images.size() && i < FAKE_CUDA_MAX_IMAGES; ++i) {
    record.image_codes[i] = static_cast<int>(images[i].kind());
    record.image_sms[i] = images[i].sm();
  }
  if (images.empty())
    return call.finish(CUDA_ERROR_INVALID_IMAGE);
  State& state = call.state();
  CUlib_st* made = state.makeLibrary();
  made->images = std::move(images);
  readLogOption(numJitOptions, jitOptions, jitOptionValues, made->errorLog, made->errorLogSize);
  state.latestLibrary = made;
  record.handle = made;
  *library = made;
  // Seen on an H100: with a context current, the load compiles PTX for its device at once,
  // fills the log and succeeds even if that fails; the next call needing the code fails.
  CUctx_st* context = currentContext();
  if (context && state.usable(context)) {
    record.device = context->device;
    state.codeFor(*made, context->device, record);
  }
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI libraryUnload(CUlibrary library) {
  Call call("cuLibraryUnload");
  call.record().handle = library;
  if (CUresult early = call.start())
    return call.finish(early);
  CUlib_st* unloaded = liveLibrary(call.state(), library);
  if (!unloaded) // never loaded, or unloaded already
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  unloaded->loaded = false;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI libraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
  Call call("cuLibraryGetKernel");
  if (name)
    copyText(call.record().symbol, name);
  if (CUresult early = call.start())
    return call.finish(early);
  if (!kernel || !name)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  CUlib_st* owner = liveLibrary(call.state(), library);
  if (!owner)
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  // Like the driver (seen on an H100): with a context current, the lookup also checks that the
  // library has an image for that context's device.
  State& state = call.state();
  CUctx_st* context = currentContext();
  if (context && state.usable(context)) {
    call.record().device = context->device;
    CodeChoice choice = state.codeFor(*owner, context->device, call.record());
    if (choice.result != CUDA_SUCCESS)
      return call.finish(choice.result);
  } else {
    context = nullptr;
  }
  CUkern_st*& found = owner->kernels[name];
  if (!found) {
    if (!findsSymbol(state, *owner, context, name)) {
      owner->kernels.erase(name);
      return call.finish(CUDA_ERROR_NOT_FOUND);
    }
    found = call.state().makeKernel();
    found->library = owner;
    found->symbol = name;
    describe(*found);
  }
  call.record().handle = found;
  *kernel = found;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI libraryGetModule(CUmodule* module, CUlibrary library) {
  Call call("cuLibraryGetModule");
  call.record().handle = library;
  CUctx_st* context = currentContext();
  if (context)
    call.record().device = context->device;
  if (CUresult early = call.start())
    return call.finish(early);
  if (!module)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  State& state = call.state();
  if (!state.usable(context))
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  CUlib_st* owner = liveLibrary(state, library);
  if (!owner)
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  CodeChoice choice = state.codeFor(*owner, context->device, call.record());
  if (choice.result != CUDA_SUCCESS)
    return call.finish(choice.result);
  CUmod_st*& made = owner->modules[context->device];
  if (!made) {
    made = state.makeModule();
    made->library = owner;
    made->device = context->device;
    made->sm = choice.code->sm();
  }
  *module = made;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI kernelGetFunction(CUfunction* function, CUkernel kernel) {
  Call call("cuKernelGetFunction");
  CUctx_st* context = currentContext();
  if (context)
    call.record().device = context->device;
  State& state = call.state();
  CUkern_st* source = state.liveKernel(kernel);
  if (source)
    copyText(call.record().symbol, source->symbol);
  if (CUresult early = call.start())
    return call.finish(early);
  if (!function)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!state.usable(context))
    return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (!source)
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  CodeChoice choice = state.codeFor(*source->library, context->device, call.record());
  if (choice.result != CUDA_SUCCESS)
    return call.finish(choice.result);
  if (!choice.code->hasSymbol(source->symbol) && choice.code->kind() == CodeKind::Ptx)
    return call.finish(CUDA_ERROR_NOT_FOUND);
  CUfunc_st*& made = source->functions[context];
  if (!made) {
    made = state.makeFunction();
    made->kernel = source;
    made->context = context;
  }
  call.record().handle = made;
  *function = made;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI kernelGetAttribute(int* value, CUfunction_attribute attribute, CUkernel kernel,
                                    CUdevice device) {
  Call call("cuKernelGetAttribute");
  call.record().device = device;
  call.record().attribute = attribute;
  CUkern_st* source = call.state().liveKernel(kernel);
  if (source)
    copyText(call.record().symbol, source->symbol);
  if (CUresult early = call.start())
    return call.finish(early);
  if (!value || attribute < 0 || attribute >= CU_FUNC_ATTRIBUTE_MAX)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (!source)
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  if (!call.state().validDevice(device))
    return call.finish(CUDA_ERROR_INVALID_DEVICE);
  *value = kernelAttribute(*source, device, attribute);
  call.record().value = *value;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI kernelSetAttribute(CUfunction_attribute attribute, int value, CUkernel kernel,
                                    CUdevice device) {
  Call call("cuKernelSetAttribute");
  call.record().device = device;
  call.record().attribute = attribute;
  call.record().value = value;
  CUkern_st* target = call.state().liveKernel(kernel);
  if (target)
    copyText(call.record().symbol, target->symbol);
  if (CUresult early = call.start())
    return call.finish(early);
  if (!target)
    return call.finish(CUDA_ERROR_INVALID_HANDLE);
  if (!call.state().validDevice(device))
    return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (CUresult refused = checkSettable(attribute, value, call.state().devices[device]))
    return call.finish(refused);
  target->attributes[device][attribute] = value;
  return call.finish(CUDA_SUCCESS);
}

} // namespace fake_cuda
