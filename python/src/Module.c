/* The extension module NAME.tlc._ext: its state (interned keywords, the Error class, caches),
 * the launchers as functions, the module API (load, unload, image_target, status_string), the
 * parameter tables for NAME.tlc.register_torch_ops, and turning a failed status into
 * NAME.tlc.Error. */
#include "Binding.h"

#include <stdarg.h>
#include <stdlib.h>

#define TLC_PY_OPTION_NAME(id, name) name,
const char* const tlc_py_option_names[OPTION_COUNT] = {TLC_PY_LAUNCH_OPTIONS(TLC_PY_OPTION_NAME)};
#undef TLC_PY_OPTION_NAME

const char* const tlc_py_dtype_names[TLC_PY_DT_COUNT] = {
    "other",
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex32",
    "complex64",
    "complex128",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e8m0fnu",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float6_e2m3fn (packed)",
    "float6_e3m2fn (packed)",
    "float4_e2m1fn",
    "float4_e2m1fn_x2",
};
_Static_assert(TLC_PY_DT_COUNT <= 64, "tlc_py_param.accepts has a bit per dtype");

static const char* const kKindNames[] = {"pointer", "scalar", "record", "tensor_map"};
static const char* const kScalarNames[] = {"bool", "i8",  "u8",  "i16",   "u16",
                                           "i32",  "u32", "i64", "u64",   "f16",
                                           "bf16", "f32", "f64", "f16x2", "bf16x2"};

TLC_PY_HOT tlc_py_state* tlc_py_state_of(PyObject* module) {
  return (tlc_py_state*)PyModule_GetState(module);
}

PyObject* tlc_py_type_name(PyObject* object) {
  PyObject* type = (PyObject*)Py_TYPE(object);
  PyObject* module = PyObject_GetAttrString(type, "__module__");
  PyObject* name = PyObject_GetAttrString(type, "__qualname__");
  PyObject* result = NULL;
  if (name && module && PyUnicode_Check(module) &&
      PyUnicode_CompareWithASCIIString(module, "builtins") != 0)
    result = PyUnicode_FromFormat("%U.%U", module, name);
  else if (name)
    result = (Py_INCREF(name), name);
  Py_XDECREF(module);
  Py_XDECREF(name);
  if (!result) {
    PyErr_Clear();
    result = PyUnicode_FromString("?");
  }
  return result;
}

int tlc_py_argument_error(PyObject* exception, const tlc_py_where* where, const char* format, ...) {
  va_list args;
  va_start(args, format);
  PyObject* detail = PyUnicode_FromFormatV(format, args);
  va_end(args);
  if (!detail)
    return -1;
  if (where->type)
    PyErr_Format(exception, "%s(): argument '%s' (%s) %U", where->launcher, where->argument,
                 where->type, detail);
  else
    PyErr_Format(exception, "%s(): option '%s' %U", where->launcher, where->argument, detail);
  Py_DECREF(detail);
  return -1;
}

/* NAME.tlc.Error(message) with .status, .status_name and .message set. */
static PyObject* raise_status(tlc_py_state* state, tlc_status status) {
  const tlc_py_module* module = state->module;
  const char* name = module->status_string(status);
  const char* message = module->last_error();
  if (!message || !*message)
    message = name;
  PyObject* text = PyUnicode_FromFormat("%s: %s", name, message);
  PyObject* error = text ? PyObject_CallFunctionObjArgs(state->error, text, NULL) : NULL;
  Py_XDECREF(text);
  if (!error)
    return NULL;
  PyObject* code = PyLong_FromLong((long)status);
  PyObject* status_name = PyUnicode_FromString(name);
  PyObject* message_text = PyUnicode_FromString(message);
  if (code && status_name && message_text && PyObject_SetAttrString(error, "status", code) == 0 &&
      PyObject_SetAttrString(error, "status_name", status_name) == 0 &&
      PyObject_SetAttrString(error, "message", message_text) == 0)
    PyErr_SetObject(state->error, error);
  Py_XDECREF(code);
  Py_XDECREF(status_name);
  Py_XDECREF(message_text);
  Py_DECREF(error);
  return NULL;
}

TLC_PY_HOT PyObject* tlc_py_finish(PyObject* self, tlc_status status) {
  if (status == TLC_SUCCESS)
    Py_RETURN_NONE;
  return raise_status(tlc_py_state_of(self), status);
}

TLC_PY_HOT PyObject* tlc_py_launch(PyObject* self, int launcher, PyObject* const* args,
                                   Py_ssize_t nargs, PyObject* kwnames, tlc_py_call* call,
                                   tlc_py_invoke invoke) {
  if (tlc_py_parse(self, launcher, args, nargs, kwnames, call) < 0)
    return NULL;
  tlc_status status;
  Py_BEGIN_ALLOW_THREADS status = invoke(&call->config, call->values);
  Py_END_ALLOW_THREADS return tlc_py_finish(self, status);
}

/* ---- the module API --------------------------------------------------------------------- */

static PyObject* call_load(PyObject* self, PyObject* args) {
  int device = 0;
  if (!PyArg_ParseTuple(args, "|i:load", &device))
    return NULL;
  tlc_py_state* state = tlc_py_state_of(self);
  tlc_status status;
  Py_BEGIN_ALLOW_THREADS status = state->module->load(device);
  Py_END_ALLOW_THREADS return tlc_py_finish(self, status);
}

static PyObject* call_unload(PyObject* self, PyObject* args) {
  (void)args;
  tlc_py_state* state = tlc_py_state_of(self);
  tlc_status status;
  Py_BEGIN_ALLOW_THREADS status = state->module->unload();
  Py_END_ALLOW_THREADS return tlc_py_finish(self, status);
}

static PyObject* call_image_target(PyObject* self, PyObject* args) {
  int device = 0;
  if (!PyArg_ParseTuple(args, "|i:image_target", &device))
    return NULL;
  tlc_py_state* state = tlc_py_state_of(self);
  const char* target = NULL;
  tlc_status status;
  Py_BEGIN_ALLOW_THREADS status = state->module->image_target(device, &target);
  Py_END_ALLOW_THREADS if (status != TLC_SUCCESS) return tlc_py_finish(self, status);
  return PyUnicode_FromString(target ? target : "");
}

static PyObject* call_status_string(PyObject* self, PyObject* args) {
  int status = 0;
  if (!PyArg_ParseTuple(args, "i:status_string", &status))
    return NULL;
  return PyUnicode_FromString(tlc_py_state_of(self)->module->status_string((tlc_status)status));
}

static PyMethodDef kModuleApi[] = {
    {"load", call_load, METH_VARARGS,
     "load(device=0)\n--\n\nLoads the image on `device` now instead of at its first launch."},
    {"unload", call_unload, METH_NOARGS,
     "unload()\n--\n\nUnloads the image from every device; the next launch loads it again."},
    {"image_target", call_image_target, METH_VARARGS,
     "image_target(device=0)\n--\n\nThe image target `device` runs: SASS for its arch "
     "(\"sm_90a\") or PTX the driver JIT-compiles (\"compute_80\")."},
    {"status_string", call_status_string, METH_VARARGS,
     "status_string(status)\n--\n\nThe name of a tlc_status code, e.g. \"TLC_ERROR_LAUNCH\"."},
    {"register_torch_kernels", tlc_py_register_torch_kernels, METH_VARARGS,
     "register_torch_kernels(namespace, names, libraries)\n--\n\nRegisters, for the CUDA key of "
     "`namespace`, the native torch kernel of each launcher named that takes only tensors and "
     "numbers, through the stable C ABI of the libtorch `libraries` (torch >= 2.10); returns "
     "the names registered."},
    {NULL, NULL, 0, NULL},
};

/* ---- module state ----------------------------------------------------------------------- */

static void free_state(void* module) {
  tlc_py_state* state = tlc_py_state_of((PyObject*)module);
  if (!state)
    return;
  Py_CLEAR(state->error);
  if (state->keywords && state->first_keyword) {
    int count = state->first_keyword[state->module->launcher_count];
    for (int i = 0; i < count; ++i)
      Py_CLEAR(state->keywords[i]);
  }
  tlc_py_free_sites(state);
  PyMem_Free(state->keywords);
  PyMem_Free(state->first_keyword);
  state->keywords = NULL;
  state->first_keyword = NULL;
  for (int i = 0; i < OPTION_COUNT; ++i)
    Py_CLEAR(state->options[i]);
  PyObject** strings = (PyObject**)&state->strings;
  for (size_t i = 0; i < sizeof state->strings / sizeof(PyObject*); ++i)
    Py_CLEAR(strings[i]);
  Py_CLEAR(state->torch_tensor);
  Py_CLEAR(state->torch_current_stream);
  Py_CLEAR(state->cupy_ndarray);
  state->cupy_current_stream = NULL;
  state->cupy_looked = 0;
  for (int i = 0; i < state->cupy_dtype_count; ++i)
    Py_CLEAR(state->cupy_dtypes[i]);
  state->cupy_dtype_count = 0;
  tlc_py_release_types(state);
  Py_CLEAR(state->empty_tuple);
  Py_CLEAR(state->dlpack_max_version);
  for (int i = 0; i < state->torch_dtype_count; ++i)
    Py_CLEAR(state->torch_dtypes[i]);
}

/* Each extension links its own copy of this library, so this definition is its module's. */
static PyModuleDef gDefinition = {
    PyModuleDef_HEAD_INIT,
    NULL,
    NULL,
    sizeof(tlc_py_state),
    kModuleApi,
    NULL,
    NULL,
    NULL,
    free_state,
};

static int intern(PyObject** slot, const char* text) {
  *slot = PyUnicode_InternFromString(text);
  return *slot ? 0 : -1;
}

static int init_strings(tlc_py_strings* strings) {
  struct {
    PyObject** slot;
    const char* text;
  } names[] = {
      {&strings->data_ptr, "data_ptr"},
      {&strings->get_device, "get_device"},
      {&strings->element_size, "element_size"},
      {&strings->stride, "stride"},
      {&strings->shape, "shape"},
      {&strings->cuda_array_interface, "__cuda_array_interface__"},
      {&strings->data, "data"},
      {&strings->strides, "strides"},
      {&strings->typestr, "typestr"},
      {&strings->mask, "mask"},
      {&strings->stream, "stream"},
      {&strings->dlpack, "__dlpack__"},
      {&strings->dlpack_device, "__dlpack_device__"},
      {&strings->max_version, "max_version"},
      {&strings->cuda_stream, "cuda_stream"},
      {&strings->cuda_stream_protocol, "__cuda_stream__"},
      {&strings->dtype, "dtype"},
      {&strings->ptr, "ptr"},
      {&strings->device_id, "device_id"},
      {&strings->str, "str"},
      {&strings->dict, "__dict__"},
      {&strings->dlpack_exchange_api, "__dlpack_c_exchange_api__"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (intern(names[i].slot, names[i].text) < 0)
      return -1;
  return 0;
}

static int init_constants(tlc_py_state* state) {
  state->empty_tuple = PyTuple_New(0);
  state->dlpack_max_version = Py_BuildValue("(ii)", 1, 0);
  return state->empty_tuple && state->dlpack_max_version ? 0 : -1;
}

static int init_keywords(tlc_py_state* state) {
  const tlc_py_module* module = state->module;
  state->first_keyword = PyMem_Calloc((size_t)module->launcher_count + 1, sizeof(int));
  if (!state->first_keyword)
    return PyErr_NoMemory(), -1;
  int total = 0;
  for (int i = 0; i < module->launcher_count; ++i) {
    state->first_keyword[i] = total;
    total += module->launchers[i].param_count;
  }
  state->first_keyword[module->launcher_count] = total;
  state->keywords = PyMem_Calloc(total ? (size_t)total : 1, sizeof(PyObject*));
  if (!state->keywords)
    return PyErr_NoMemory(), -1;
  for (int i = 0; i < module->launcher_count; ++i) {
    const tlc_py_launcher* launcher = &module->launchers[i];
    for (int p = 0; p < launcher->param_count; ++p)
      if (intern(&state->keywords[state->first_keyword[i] + p], launcher->params[p].name) < 0)
        return -1;
  }
  for (int i = 0; i < OPTION_COUNT; ++i)
    if (intern(&state->options[i], tlc_py_option_names[i]) < 0)
      return -1;
  return init_strings(&state->strings) < 0 || init_constants(state) < 0 ? -1
                                                                        : tlc_py_init_sites(state);
}

/* A pointer's accepted element types by name, in tlc_py_dtype order; None: any array. */
static PyObject* accepted_dtypes(const tlc_py_param* param) {
  if (param->kind != TLC_PY_POINTER || param->accepts == TLC_PY_ACCEPTS_ANY)
    Py_RETURN_NONE;
  PyObject* names = PyList_New(0);
  for (int dtype = 0; names && dtype < TLC_PY_DT_COUNT; ++dtype) {
    if (!(param->accepts & TLC_PY_ACCEPTS(dtype)))
      continue;
    PyObject* name = PyUnicode_FromString(tlc_py_dtype_names[dtype]);
    if (!name || PyList_Append(names, name) < 0)
      Py_CLEAR(names);
    Py_XDECREF(name);
  }
  PyObject* tuple = names ? PyList_AsTuple(names) : NULL;
  Py_XDECREF(names);
  return tuple;
}

/* ("x", "pointer", "float *", True, None, ("float32",)), one tuple per parameter. */
static PyObject* parameter_table(const tlc_py_launcher* launcher) {
  PyObject* table = PyTuple_New(launcher->param_count);
  for (int p = 0; table && p < launcher->param_count; ++p) {
    const tlc_py_param* param = &launcher->params[p];
    PyObject* dtypes = accepted_dtypes(param);
    PyObject* row =
        dtypes ? Py_BuildValue("(sssOsN)", param->name, kKindNames[param->kind], param->type,
                               param->writable ? Py_True : Py_False,
                               param->kind == TLC_PY_SCALAR ? kScalarNames[param->scalar] : NULL,
                               dtypes)
               : NULL;
    if (!row || PyTuple_SetItem(table, p, row) < 0) {
      Py_DECREF(table);
      return NULL;
    }
  }
  return table;
}

/* `launchers`: name -> function; `parameters`: name -> parameter table; `cxx_names`: name ->
   the kernel's C++ name (NAME.tlc.get looks launchers up by it). */
static int add_launchers(PyObject* extension, tlc_py_state* state) {
  const tlc_py_module* module = state->module;
  /* The functions' definitions live as long as the process: a function object may outlive its
     module's state (a reference kept past interpreter shutdown's clearing of modules). One
     allocation per extension, made once. */
  PyMethodDef* methods = calloc((size_t)module->launcher_count + 1, sizeof(PyMethodDef));
  if (!methods)
    return PyErr_NoMemory(), -1;
  PyObject* owner = PyUnicode_FromString(module->name); /* the functions' __module__ */
  PyObject* launchers = PyDict_New();
  PyObject* parameters = PyDict_New();
  PyObject* cxx_names = PyDict_New();
  int result = owner && launchers && parameters && cxx_names ? 0 : -1;
  for (int i = 0; result == 0 && i < module->launcher_count; ++i) {
    const tlc_py_launcher* launcher = &module->launchers[i];
    methods[i].ml_name = launcher->name;
    methods[i].ml_meth = (PyCFunction)(void (*)(void))launcher->function;
    methods[i].ml_flags = METH_FASTCALL | METH_KEYWORDS;
    methods[i].ml_doc = launcher->doc;
    PyObject* function = PyCFunction_NewEx(&methods[i], extension, owner);
    PyObject* table = parameter_table(launcher);
    PyObject* cxx_name = PyUnicode_FromString(launcher->cxx_name);
    if (!function || !table || !cxx_name ||
        PyDict_SetItemString(launchers, launcher->name, function) < 0 ||
        PyDict_SetItemString(parameters, launcher->name, table) < 0 ||
        PyDict_SetItemString(cxx_names, launcher->name, cxx_name) < 0)
      result = -1;
    Py_XDECREF(function);
    Py_XDECREF(table);
    Py_XDECREF(cxx_name);
  }
  if (result == 0 && (PyModule_AddObjectRef(extension, "launchers", launchers) < 0 ||
                      PyModule_AddObjectRef(extension, "parameters", parameters) < 0 ||
                      PyModule_AddObjectRef(extension, "cxx_names", cxx_names) < 0 ||
                      PyModule_AddStringConstant(extension, "module_name", module->name) < 0))
    result = -1;
  Py_XDECREF(owner);
  Py_XDECREF(launchers);
  Py_XDECREF(parameters);
  Py_XDECREF(cxx_names);
  return result;
}

static int add_options(PyObject* extension) {
  PyObject* options = PyTuple_New(OPTION_COUNT);
  for (int i = 0; options && i < OPTION_COUNT; ++i) {
    PyObject* name = PyUnicode_FromString(tlc_py_option_names[i]);
    if (!name || PyTuple_SetItem(options, i, name) < 0) {
      Py_DECREF(options);
      return -1;
    }
  }
  if (!options)
    return -1;
  int result = PyModule_AddObjectRef(extension, "launch_options", options);
  Py_DECREF(options);
  return result;
}

static int add_error(PyObject* extension, tlc_py_state* state) {
  PyObject* qualified = PyUnicode_FromFormat("%s.tlc.Error", state->module->name);
  const char* name = qualified ? PyUnicode_AsUTF8AndSize(qualified, NULL) : NULL;
  if (name)
    state->error = PyErr_NewExceptionWithDoc(
        name,
        "A launch failed: `status` (a tlc_status code), `status_name` (its name, e.g. "
        "\"TLC_ERROR_LAUNCH\") and `message` (what tlc_NAME_last_error() said).",
        PyExc_RuntimeError, NULL);
  Py_XDECREF(qualified);
  if (!state->error)
    return -1;
  return PyModule_AddObjectRef(extension, "Error", state->error);
}

PyObject* tlc_py_create_module(const tlc_py_module* module) {
  gDefinition.m_name = module->extension_name;
  gDefinition.m_doc = module->doc;
  PyObject* extension = PyModule_Create(&gDefinition);
  if (!extension)
    return NULL;
  tlc_py_state* state = tlc_py_state_of(extension);
  state->module = module;
  if (init_keywords(state) < 0 || add_error(extension, state) < 0 ||
      add_launchers(extension, state) < 0 || add_options(extension) < 0) {
    Py_DECREF(extension);
    return NULL;
  }
  return extension;
}
