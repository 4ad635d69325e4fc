// torch ops with no Python between torch's dispatcher and the launcher (register_torch_ops).
//
// torch >= 2.10 exports a stable C ABI from libtorch (torch/csrc/stable/c/shim.h and
// torch/csrc/inductor/aoti_torch/c/shim.h): a boxed kernel `void(uint64_t* stack, uint64_t
// inputs, uint64_t outputs)` can be registered for an op's dispatch key, and tensors are read
// through C functions. Each launcher gets such a kernel (a generated trampoline that names its
// launcher, NAME_python.c), which converts the stack and calls the typed launcher without the
// GIL: the op costs what torch's own C++ ops cost (docs/benchmarks.md). Nothing here includes
// torch's headers (torch need not be installed when tlc builds): the functions are looked up in
// the libtorch the process has loaded, by the names and C signatures of that ABI, and a torch
// without them keeps the Python registration (register_torch_ops falls back per launcher).
//
// The stack, for the schemas register_torch_ops defines (python/package/tlc/__init__.py): the
// launcher's parameters (Tensor: an owned tensor handle; int: int64; float: double; bool), then
// int[1] grid, int[1] block (owned list handles: torch makes an int given for an int[1] a list of
// it), int shared_mem, and for the default overload (not .basic) int[1]? cluster (0 for None,
// else an owned heap StableIValue holding a list handle), bool cooperative, bool
// programmatic_dependent_launch. One kernel serves both overloads: the stack's size says which. The
// kernel owns every input and releases each, whatever happens. Errors are thrown as
// std::runtime_error (torch's stable ABI has no other way; Python sees RuntimeError), with the
// message the Python launcher would give.
#include "Binding.h"

#include <dlfcn.h>

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using StableIValue = uint64_t;
using AbiError = int32_t; // AOTITorchError: 0 is success
using Handle = void*;     // AtenTensorHandle, StableListHandle, TorchLibraryHandle

// The extension build version torch_library_impl asks for: the torch whose conversions this
// file implements (2.10.0: lists are list handles, optionals heap StableIValues).
constexpr uint64_t kTorchAbi_2_10 = (2ull << 56) | (10ull << 48);

// The functions of torch's stable ABI this file calls, found once in the loaded libtorch.
struct TorchAbi {
  uint64_t (*abiVersion)();
  AbiError (*libraryInitImpl)(const char* ns, const char* key, const char* file, uint32_t line,
                              Handle* library);
  AbiError (*libraryImpl)(Handle library, const char* name,
                          void (*kernel)(StableIValue*, uint64_t, uint64_t), uint64_t version);
  AbiError (*dataPtr)(Handle tensor, void** data);
  AbiError (*deviceType)(Handle tensor, int32_t* type);
  AbiError (*deviceIndex)(Handle tensor, int32_t* index);
  AbiError (*dtype)(Handle tensor, int32_t* dtype);
  AbiError (*deleteTensor)(Handle tensor);
  AbiError (*listSize)(Handle list, size_t* size);
  AbiError (*listItem)(Handle list, size_t index, StableIValue* item);
  AbiError (*deleteList)(Handle list);
  AbiError (*currentStream)(int32_t device, void** stream);
  int32_t cudaDeviceType;
  unsigned char elementType[256]; // torch's ScalarType code -> tlc_py_dtype (0: other)
};

TorchAbi gAbi;
bool gAbiFound = false;

template <typename Function>
bool find(void* const* libraries, int count, const char* name, Function& function) {
  for (int i = 0; i < count; ++i)
    if (void* symbol = libraries[i] ? dlsym(libraries[i], name) : nullptr) {
      function = reinterpret_cast<Function>(symbol);
      return true;
    }
  return false;
}

// torch's dtypes by the functions that give their ScalarType codes (aoti_torch_dtype_<name>);
// one this torch lacks is an element type none of its tensors has.
struct DtypeName {
  const char* function;
  int dtype;
};
constexpr DtypeName kDtypes[] = {
    {"aoti_torch_dtype_bool", TLC_PY_DT_BOOL},
    {"aoti_torch_dtype_int8", TLC_PY_DT_I8},
    {"aoti_torch_dtype_uint8", TLC_PY_DT_U8},
    {"aoti_torch_dtype_int16", TLC_PY_DT_I16},
    {"aoti_torch_dtype_uint16", TLC_PY_DT_U16},
    {"aoti_torch_dtype_int32", TLC_PY_DT_I32},
    {"aoti_torch_dtype_uint32", TLC_PY_DT_U32},
    {"aoti_torch_dtype_int64", TLC_PY_DT_I64},
    {"aoti_torch_dtype_uint64", TLC_PY_DT_U64},
    {"aoti_torch_dtype_float16", TLC_PY_DT_F16},
    {"aoti_torch_dtype_bfloat16", TLC_PY_DT_BF16},
    {"aoti_torch_dtype_float32", TLC_PY_DT_F32},
    {"aoti_torch_dtype_float64", TLC_PY_DT_F64},
    {"aoti_torch_dtype_complex32", TLC_PY_DT_C32},
    {"aoti_torch_dtype_complex64", TLC_PY_DT_C64},
    {"aoti_torch_dtype_complex128", TLC_PY_DT_C128},
    {"aoti_torch_dtype_float8_e4m3fn", TLC_PY_DT_F8_E4M3FN},
    {"aoti_torch_dtype_float8_e5m2", TLC_PY_DT_F8_E5M2},
    {"aoti_torch_dtype_float8_e4m3fnuz", TLC_PY_DT_F8_E4M3FNUZ},
    {"aoti_torch_dtype_float8_e5m2fnuz", TLC_PY_DT_F8_E5M2FNUZ},
    {"aoti_torch_dtype_float8_e8m0fnu", TLC_PY_DT_F8_E8M0FNU},
    {"aoti_torch_dtype_float4_e2m1fn_x2", TLC_PY_DT_F4_E2M1FN_X2},
};

// Looks the ABI up in the libtorch libraries named (already loaded by `import torch`; opened
// without loading anything). False where this torch predates it.
bool findTorchAbi(const std::vector<std::string>& paths) {
  if (gAbiFound)
    return true;
  std::vector<void*> libraries;
  for (const std::string& path : paths)
    libraries.push_back(dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL));
  void* const* all = libraries.data();
  int count = static_cast<int>(libraries.size());
  TorchAbi abi{};
  int32_t (*cuda)() = nullptr;
  bool found = find(all, count, "aoti_torch_abi_version", abi.abiVersion) &&
               find(all, count, "aoti_torch_library_init_impl", abi.libraryInitImpl) &&
               find(all, count, "torch_library_impl", abi.libraryImpl) &&
               find(all, count, "aoti_torch_get_data_ptr", abi.dataPtr) &&
               find(all, count, "aoti_torch_get_device_type", abi.deviceType) &&
               find(all, count, "aoti_torch_get_device_index", abi.deviceIndex) &&
               find(all, count, "aoti_torch_get_dtype", abi.dtype) &&
               find(all, count, "aoti_torch_delete_tensor_object", abi.deleteTensor) &&
               find(all, count, "torch_list_size", abi.listSize) &&
               find(all, count, "torch_list_get_item", abi.listItem) &&
               find(all, count, "torch_delete_list", abi.deleteList) &&
               find(all, count, "aoti_torch_get_current_cuda_stream", abi.currentStream) &&
               find(all, count, "aoti_torch_device_type_cuda", cuda) &&
               abi.abiVersion() >= kTorchAbi_2_10;
  if (found) {
    abi.cudaDeviceType = cuda();
    for (const DtypeName& dtype : kDtypes) {
      int32_t (*code)() = nullptr;
      if (find(all, count, dtype.function, code) && code() >= 0 && code() < 256)
        abi.elementType[code()] = static_cast<unsigned char>(dtype.dtype);
    }
  }
  // The handles only counted references: the libraries stay loaded by torch.
  for (void* library : libraries)
    if (library)
      dlclose(library);
  if (found) {
    gAbi = abi;
    gAbiFound = true;
  }
  return found;
}

// What a launcher's op takes beyond its parameters (register_torch_ops's schemas): the .basic
// overload takes the first kBasicOptionCount.
enum Option { kGrid, kBlock, kSharedMem, kCluster, kCooperative, kPdl, kOptionCount };
constexpr uint64_t kBasicOptionCount = kCluster;
constexpr char kBasicOverload[] = ".basic";
const char* const kOptionNames[] = {"grid",    "block",       "shared_mem",
                                    "cluster", "cooperative", "programmatic_dependent_launch"};

// The most parameters a native kernel converts (on its stack).
constexpr int kMaxParams = 256;

// Whether a launcher's op can run here: every parameter a tensor or a number, and at least one
// tensor (the op is registered for the CUDA key, where a tensor says the device).
bool runsNatively(const tlc_py_launcher& launcher) {
  if (launcher.param_count > kMaxParams)
    return false;
  bool tensor = false;
  for (int p = 0; p < launcher.param_count; ++p) {
    const tlc_py_param& param = launcher.params[p];
    if (param.kind == TLC_PY_POINTER)
      tensor = true;
    else if (param.kind != TLC_PY_SCALAR || param.scalar == TLC_PY_F16X2 ||
             param.scalar == TLC_PY_BF16X2)
      return false;
  }
  return tensor;
}

// Owns the inputs on the stack and releases them all on the way out, thrown or not.
class OwnedInputs {
public:
  OwnedInputs(const tlc_py_launcher& launcher, StableIValue* stack, uint64_t inputs)
      : launcher_(launcher), stack_(stack), inputs_(inputs) {}
  OwnedInputs(const OwnedInputs&) = delete;
  OwnedInputs& operator=(const OwnedInputs&) = delete;
  ~OwnedInputs() {
    uint64_t params = static_cast<uint64_t>(launcher_.param_count);
    for (uint64_t i = 0; i < params && i < inputs_; ++i)
      if (launcher_.params[i].kind == TLC_PY_POINTER && stack_[i])
        gAbi.deleteTensor(reinterpret_cast<Handle>(stack_[i]));
    for (uint64_t o = 0; o < kOptionCount && params + o < inputs_; ++o) {
      StableIValue value = stack_[params + o];
      if ((o == kGrid || o == kBlock) && value) {
        gAbi.deleteList(reinterpret_cast<Handle>(value));
      } else if (o == kCluster && value) {
        auto* boxed = reinterpret_cast<StableIValue*>(value);
        if (*boxed)
          gAbi.deleteList(reinterpret_cast<Handle>(*boxed));
        delete boxed;
      }
    }
  }

private:
  const tlc_py_launcher& launcher_;
  StableIValue* stack_;
  uint64_t inputs_;
};

[[noreturn]] void fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

[[noreturn]] void fail(const char* format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  throw std::runtime_error(message);
}

// "launcher(): argument 'x' (const float *) " + detail, as the Python launcher says it.
[[noreturn]] void argumentError(const char* launcher, const tlc_py_param& param,
                                const std::string& detail) {
  fail("%s(): argument '%s' (%s) %s", launcher, param.name, param.type, detail.c_str());
}

void check(AbiError error, const char* launcher, const char* what) {
  if (error != 0)
    fail("%s(): torch could not give %s", launcher, what);
}

template <typename T> T bitsAs(StableIValue value) {
  T result;
  std::memcpy(&result, &value, sizeof result);
  return result;
}

// "float32 or complex64", for messages.
std::string acceptedNames(unsigned long long accepts) {
  std::string names;
  for (int dtype = 0; dtype < TLC_PY_DT_COUNT; ++dtype)
    if (accepts & TLC_PY_ACCEPTS(dtype))
      names += (names.empty() ? "" : " or ") + std::string(tlc_py_dtype_names[dtype]);
  return names;
}

// A tensor argument: its address, on the launch's device (the first tensor's), of an element
// type the parameter takes.
void* tensorAddress(const char* launcher, const tlc_py_param& param, StableIValue value,
                    int* device) {
  auto tensor = reinterpret_cast<Handle>(value);
  int32_t type = 0, index = 0, dtype = 0;
  check(gAbi.deviceType(tensor, &type), launcher, "a tensor's device");
  if (type != gAbi.cudaDeviceType)
    argumentError(launcher, param,
                  "is a tensor outside CUDA memory (on the CPU or the meta device); pass a CUDA "
                  "tensor");
  check(gAbi.deviceIndex(tensor, &index), launcher, "a tensor's device");
  if (*device < 0)
    *device = index;
  else if (index != *device)
    argumentError(launcher, param,
                  "is on device " + std::to_string(index) + ", but the launch is on device " +
                      std::to_string(*device) + " (the device of the first array argument)");
  if (param.accepts != TLC_PY_ACCEPTS_ANY) {
    check(gAbi.dtype(tensor, &dtype), launcher, "a tensor's dtype");
    int element = dtype >= 0 && dtype < 256 ? gAbi.elementType[dtype] : int{TLC_PY_DT_OTHER};
    if (!(param.accepts & TLC_PY_ACCEPTS(element)))
      argumentError(launcher, param,
                    "takes an array of " + acceptedNames(param.accepts) + ", not " +
                        (element == TLC_PY_DT_OTHER ? "torch's dtype " + std::to_string(dtype)
                                                    : std::string(tlc_py_dtype_names[element])) +
                        "; to pass its memory as it is, pass its address as an int (e.g. "
                        "tensor.data_ptr())");
  }
  void* data = nullptr;
  check(gAbi.dataPtr(tensor, &data), launcher, "a tensor's data pointer");
  return data;
}

void integerInRange(const char* launcher, const tlc_py_param& param, int64_t value, int64_t min,
                    int64_t max) {
  if (value < min || value > max)
    argumentError(launcher, param,
                  "= " + std::to_string(value) + " is out of range (" + std::to_string(min) + ".." +
                      std::to_string(max) + ")");
}

// A finite double as Python's repr() spells it (the shortest text that reads back the same,
// 1000000.0 with its ".0"), so that messages match the Python launcher's.
std::string pythonRepr(double value) {
  char text[64];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*e", digits - 1, value);
    if (std::strtod(text, nullptr) == value)
      break;
  }
  std::snprintf(text, sizeof text, "%.*e", digits - 1, value);
  int exponent = std::atoi(std::strchr(text, 'e') + 1);
  if (exponent < -4 || exponent >= 16)
    return text; // 1e+16, 1.5e-05: Python's spelling too
  int decimals = digits - 1 - exponent > 0 ? digits - 1 - exponent : 0;
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  std::string result = text;
  if (result.find('.') == std::string::npos)
    result += ".0";
  return result;
}

// A number in its C type's union member; int64 and double are what torch's schema gives.
void scalarValue(const char* launcher, const tlc_py_param& param, StableIValue value,
                 tlc_py_value* out) {
  int64_t integer = bitsAs<int64_t>(value);
  double real = bitsAs<double>(value);
  uint16_t bits = 0;
  bool inRange = true;
  switch (param.scalar) {
  case TLC_PY_BOOL:
    out->b = bitsAs<bool>(value);
    return;
  case TLC_PY_I8:
    integerInRange(launcher, param, integer, INT8_MIN, INT8_MAX);
    out->i8 = static_cast<int8_t>(integer);
    return;
  case TLC_PY_U8:
    integerInRange(launcher, param, integer, 0, UINT8_MAX);
    out->u8 = static_cast<uint8_t>(integer);
    return;
  case TLC_PY_I16:
    integerInRange(launcher, param, integer, INT16_MIN, INT16_MAX);
    out->i16 = static_cast<int16_t>(integer);
    return;
  case TLC_PY_U16:
    integerInRange(launcher, param, integer, 0, UINT16_MAX);
    out->u16 = static_cast<uint16_t>(integer);
    return;
  case TLC_PY_I32:
    integerInRange(launcher, param, integer, INT32_MIN, INT32_MAX);
    out->i32 = static_cast<int32_t>(integer);
    return;
  case TLC_PY_U32:
    integerInRange(launcher, param, integer, 0, UINT32_MAX);
    out->u32 = static_cast<uint32_t>(integer);
    return;
  case TLC_PY_I64:
    out->i64 = integer;
    return;
  case TLC_PY_U64: // torch's int is int64: 0..2**63 - 1
    integerInRange(launcher, param, integer, 0, INT64_MAX);
    out->u64 = static_cast<uint64_t>(integer);
    return;
  case TLC_PY_F64:
    out->f64 = real;
    return;
  case TLC_PY_F32:
    out->f32 = static_cast<float>(real);
    inRange = !(std::isinf(out->f32) && std::isfinite(real));
    break;
  case TLC_PY_F16:
    inRange = tlc_py_half_bits(real, &bits) == 0;
    out->f16.bits = bits;
    break;
  case TLC_PY_BF16:
    inRange = tlc_py_bfloat16_bits(real, &bits) == 0;
    out->bf16.bits = bits;
    break;
  default:
    argumentError(launcher, param, "has no torch schema type");
  }
  if (!inRange)
    argumentError(launcher, param,
                  "= " + pythonRepr(real) + " is beyond " + param.type + "'s range");
}

// grid, block, cluster: 1 to 3 dimensions of 0..2**32 - 1 (as the Python launcher takes them).
void dim3Option(const char* launcher, const char* option, StableIValue list, unsigned out[3]) {
  auto handle = reinterpret_cast<Handle>(list);
  size_t size = 0;
  check(gAbi.listSize(handle, &size), launcher, "a list's size");
  if (size < 1 || size > 3)
    fail("%s(): option '%s' takes 1 to 3 dimensions, not %zu", launcher, option, size);
  out[0] = out[1] = out[2] = 1;
  for (size_t i = 0; i < size; ++i) {
    StableIValue item = 0;
    check(gAbi.listItem(handle, i, &item), launcher, "a list's item");
    int64_t value = bitsAs<int64_t>(item);
    if (value < 0 || value > UINT32_MAX)
      fail("%s(): option '%s' = %" PRId64 " is out of range (0..%u)", launcher, option, value,
           UINT32_MAX);
    out[i] = static_cast<unsigned>(value);
  }
}

// The launch's configuration from the `count` options given (kBasicOptionCount or all); the
// stream is torch's current on `device`.
void configure(const char* launcher, const StableIValue* options, uint64_t count, int device,
               tlc_config* config) {
  std::memset(config, 0, sizeof *config);
  config->size = sizeof *config;
  dim3Option(launcher, kOptionNames[kGrid], options[kGrid], config->grid);
  dim3Option(launcher, kOptionNames[kBlock], options[kBlock], config->block);
  int64_t shared = bitsAs<int64_t>(options[kSharedMem]);
  if (shared < 0 || shared > UINT32_MAX)
    fail("%s(): option 'shared_mem' = %" PRId64 " is out of range (0..%u)", launcher, shared,
         UINT32_MAX);
  config->shared_bytes = static_cast<unsigned>(shared);
  if (count == kOptionCount) {
    if (options[kCluster])
      dim3Option(launcher, kOptionNames[kCluster],
                 *reinterpret_cast<const StableIValue*>(options[kCluster]), config->cluster);
    config->cooperative = bitsAs<bool>(options[kCooperative]);
    config->programmatic_dependent_launch = bitsAs<bool>(options[kPdl]);
  }
  config->l2_persist_hit_ratio = 1.0f;
  config->device = device;
  void* stream = nullptr;
  check(gAbi.currentStream(device, &stream), launcher, "its current CUDA stream");
  config->stream = static_cast<CUstream>(stream);
}

} // namespace

extern "C" void tlc_py_torch_boxed(const tlc_py_module* module, int index, tlc_py_invoke invoke,
                                   StableIValue* stack, uint64_t inputs, uint64_t outputs) {
  const tlc_py_launcher& launcher = module->launchers[index];
  OwnedInputs owned(launcher, stack, inputs);
  uint64_t params = static_cast<uint64_t>(launcher.param_count);
  if ((inputs != params + kOptionCount && inputs != params + kBasicOptionCount) || outputs != 0)
    fail("%s(): torch passed %" PRIu64 " arguments and wants %" PRIu64
         " results, where the schemas have %" PRIu64 " or %" PRIu64 " and none",
         launcher.name, inputs, outputs, params + kBasicOptionCount, params + kOptionCount);
  tlc_py_value values[kMaxParams];
  int device = -1;
  for (uint64_t p = 0; p < params; ++p) {
    const tlc_py_param& param = launcher.params[p];
    if (param.kind == TLC_PY_POINTER)
      values[p].pointer = tensorAddress(launcher.name, param, stack[p], &device);
    else
      scalarValue(launcher.name, param, stack[p], &values[p]);
  }
  tlc_config config;
  configure(launcher.name, stack + params, inputs - params, device, &config);
  tlc_status status = invoke(&config, values);
  if (status != TLC_SUCCESS) {
    const char* message = module->last_error();
    fail("%s: %s", module->status_string(status),
         message && *message ? message : module->status_string(status));
  }
}

// _ext.register_torch_kernels(namespace, names, libraries): registers the native kernel of each
// launcher named that can run natively, for the CUDA key of `namespace`, as the kernel of both
// its overloads (NAME.basic and NAME); returns the overloads registered, by those names ([]
// where this torch has no stable ABI: the caller registers the rest in Python).
extern "C" PyObject* tlc_py_register_torch_kernels(PyObject* self, PyObject* args) {
  const char* ns = nullptr;
  PyObject* names = nullptr;
  PyObject* libraries = nullptr;
  if (!PyArg_ParseTuple(args, "sOO", &ns, &names, &libraries))
    return nullptr;
  std::vector<std::string> paths;
  PyObject* iterator = PyObject_GetIter(libraries);
  while (PyObject* item = iterator ? PyIter_Next(iterator) : nullptr) {
    const char* path = PyUnicode_AsUTF8AndSize(item, nullptr);
    if (path)
      paths.emplace_back(path);
    Py_DECREF(item);
    if (!path)
      break;
  }
  Py_XDECREF(iterator);
  if (PyErr_Occurred())
    return nullptr;
  PyObject* registered = PyList_New(0);
  if (!registered || !findTorchAbi(paths))
    return registered;
  const tlc_py_module* module = tlc_py_state_of(self)->module;
  Handle library = nullptr;
  if (gAbi.libraryInitImpl(ns, "CUDA", "tlc", 0, &library) != 0 || !library)
    return registered;
  // The library object is never deleted: torch keeps the registrations while it lives, and
  // the ops live as long as the process (as register_torch_ops's Python registrations do).
  for (int i = 0; i < module->launcher_count; ++i) {
    const tlc_py_launcher& launcher = module->launchers[i];
    PyObject* name = PyUnicode_FromString(launcher.name);
    int wanted = name ? PySequence_Contains(names, name) : -1;
    if (wanted == 1 && runsNatively(launcher)) {
      std::string basic = std::string(launcher.name) + kBasicOverload;
      for (const char* overload : {basic.c_str(), launcher.name}) {
        if (gAbi.libraryImpl(library, overload, module->torch_kernels[i], kTorchAbi_2_10) != 0)
          continue;
        PyObject* registeredName = PyUnicode_FromString(overload);
        if (!registeredName || PyList_Append(registered, registeredName) < 0)
          wanted = -1;
        Py_XDECREF(registeredName);
      }
    }
    Py_XDECREF(name);
    if (wanted < 0) {
      Py_DECREF(registered);
      return nullptr;
    }
  }
  return registered;
}
