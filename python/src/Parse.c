/* One launcher call from Python: the vectorcall's positional and keyword arguments matched to
 * the kernel's parameters and the launch options (keywords are compared by identity first: the
 * interpreter interns the names written in calls, as the module interned its own), the launch
 * options into the tlc_config, and every argument converted into its C value. */
#include "Binding.h"

#include <math.h>
#include <string.h>

/* The keyword `name` among the options and `count` parameter keywords: the parameter's index,
   `count` + the option's, or -1. Identity with every name first (the usual case: the
   interpreter interns the keywords written in a call, as the module interned its own), equality
   only then. The options come first, since most calls name only options (grid= and block=
   first among them); no parameter has an option's name (tlc renames one that would). */
static int find_keyword(PyObject* const* parameters, int count, PyObject* const* options,
                        PyObject* name) {
  for (int o = 0; o < OPTION_COUNT; ++o)
    if (options[o] == name)
      return count + o;
  for (int i = 0; i < count; ++i)
    if (parameters[i] == name)
      return i;
  for (int i = 0; i < count; ++i)
    if (PyUnicode_Compare(parameters[i], name) == 0)
      return i;
  for (int o = 0; o < OPTION_COUNT; ++o)
    if (PyUnicode_Compare(options[o], name) == 0)
      return count + o;
  return -1;
}

_Static_assert(OPTION_COUNT <= 32, "match_arguments keeps a bit per option in an unsigned");

TLC_PY_COLD static int duplicate(const char* launcher, PyObject* name) {
  PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", launcher, name);
  return -1;
}

TLC_PY_COLD static int too_many_positional(const tlc_py_launcher* launcher, Py_ssize_t nargs) {
  int count = launcher->param_count;
  PyErr_Format(PyExc_TypeError,
               "%s() takes %d positional argument%s but %zd were given (the launch options are "
               "keywords: grid=, block=, ...)",
               launcher->name, count, count == 1 ? "" : "s", nargs);
  return -1;
}

TLC_PY_COLD static int unexpected_keyword(const tlc_py_launcher* launcher, PyObject* name) {
  PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", launcher->name,
               name);
  return -1;
}

TLC_PY_COLD static int missing_argument(const tlc_py_launcher* launcher, int p) {
  PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (%s, position %d)",
               launcher->name, launcher->params[p].name, launcher->params[p].type, p + 1);
  return -1;
}

TLC_PY_COLD static int missing_option(const tlc_py_launcher* launcher, int o) {
  PyErr_Format(PyExc_TypeError, "%s() missing required keyword argument '%s'", launcher->name,
               tlc_py_option_names[o]);
  return -1;
}

/* Matches the call's arguments to parameters (`arguments`) and options (`options`, with a bit
   per option given in `given`); the first TLC_PY_SITE_KEYWORDS keywords' matches go into
   `slots`, for the call-site path. */
static int match_arguments(tlc_py_state* state, int index, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames, PyObject** arguments, PyObject** options,
                           unsigned* given, unsigned short* slots) {
  const tlc_py_launcher* launcher = &state->module->launchers[index];
  int count = launcher->param_count;
  if (nargs > count)
    return too_many_positional(launcher, nargs);
  for (int p = 0; p < count; ++p)
    arguments[p] = p < nargs ? args[p] : NULL;
  for (int o = 0; o < OPTION_COUNT; ++o)
    options[o] = NULL;
  PyObject* const* keywords = state->keywords + state->first_keyword[index];
  Py_ssize_t keywords_given = kwnames ? PyTuple_Size(kwnames) : 0;
  for (Py_ssize_t k = 0; k < keywords_given; ++k) {
    PyObject* name = PyTuple_GetItem(kwnames, k);
    PyObject* value = args[nargs + k];
    int p = find_keyword(keywords, count, state->options, name);
    if (p < 0)
      return unexpected_keyword(launcher, name);
    if (k < TLC_PY_SITE_KEYWORDS)
      slots[k] = (unsigned short)p;
    if (p < count) {
      if (arguments[p])
        return duplicate(launcher->name, name);
      arguments[p] = value;
      continue;
    }
    int o = p - count;
    if (options[o])
      return duplicate(launcher->name, name);
    options[o] = value;
    *given |= 1u << o;
  }
  for (int p = 0; p < count; ++p)
    if (!arguments[p])
      return missing_argument(launcher, p);
  for (int o = OPTION_GRID; o <= OPTION_BLOCK; ++o)
    if (!options[o])
      return missing_option(launcher, o);
  return 0;
}

/* ---- launch options --------------------------------------------------------------------- */

/* An int, or a tuple or list of one to three ints; missing dimensions are 1. */
static int parse_dim3(const tlc_py_where* where, PyObject* value, unsigned int out[3]) {
  out[0] = out[1] = out[2] = 1;
  unsigned long long dim = 0;
  if (PyLong_Check(value) ||
      (!PyTuple_Check(value) && !PyList_Check(value) && PyIndex_Check(value))) {
    if (tlc_py_unsigned(where, value, 0xFFFFFFFFull, &dim) < 0)
      return -1;
    out[0] = (unsigned int)dim;
    return 0;
  }
  int tuple = PyTuple_Check(value);
  if (!tuple && !PyList_Check(value)) {
    PyObject* type = tlc_py_type_name(value);
    tlc_py_argument_error(PyExc_TypeError, where, "takes an int or a tuple of 1 to 3 ints, not %U",
                          type);
    Py_DECREF(type);
    return -1;
  }
  /* A list is read from a tuple copy: an item's __index__ may change the list while it is read
     (test/fuzz found it). */
  PyObject* items = tuple ? Py_NewRef(value) : PyList_AsTuple(value);
  if (!items)
    return -1;
  Py_ssize_t size = PyTuple_Size(items);
  int result = 0;
  if (size < 1 || size > 3)
    result =
        tlc_py_argument_error(PyExc_ValueError, where, "takes 1 to 3 dimensions, not %zd", size);
  for (Py_ssize_t i = 0; result == 0 && i < size; ++i) {
    if (tlc_py_unsigned(where, PyTuple_GetItem(items, i), 0xFFFFFFFFull, &dim) < 0)
      result = -1;
    else
      out[i] = (unsigned int)dim;
  }
  Py_DECREF(items);
  return result;
}

/* A stream: an int (a CUstream's address), or an object with __cuda_stream__ (the CUDA stream
   protocol: a method, or attribute, giving (version, address)) or cuda_stream (torch, Numba). */
static int parse_stream(tlc_py_state* state, const tlc_py_where* where, PyObject* value,
                        CUstream* stream) {
  unsigned long long address = 0;
  if (PyLong_Check(value) || PyIndex_Check(value)) {
    if (tlc_py_unsigned(where, value, UINT64_MAX, &address) < 0)
      return -1;
    *stream = (CUstream)(uintptr_t)address;
    return 0;
  }
  PyObject* handle = NULL;
  PyObject* protocol = PyObject_GetAttr(value, state->strings.cuda_stream_protocol);
  if (protocol) {
    PyObject* pair = PyCallable_Check(protocol) ? PyObject_CallNoArgs(protocol)
                                                : (Py_INCREF(protocol), protocol);
    Py_DECREF(protocol);
    if (!pair)
      return -1;
    if (PyTuple_Check(pair) && PyTuple_Size(pair) == 2) {
      handle = PyTuple_GetItem(pair, 1);
      Py_XINCREF(handle);
    }
    Py_DECREF(pair);
    if (!handle)
      return tlc_py_argument_error(PyExc_TypeError, where,
                                   "__cuda_stream__ must give (version, address)");
  } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    handle = PyObject_GetAttr(value, state->strings.cuda_stream);
    if (!handle && PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      PyObject* type = tlc_py_type_name(value);
      tlc_py_argument_error(PyExc_TypeError, where,
                            "takes an int (a CUstream), or an object with __cuda_stream__ or "
                            "cuda_stream, not %U",
                            type);
      Py_DECREF(type);
      return -1;
    }
  }
  if (!handle)
    return -1;
  int result = tlc_py_unsigned(where, handle, UINT64_MAX, &address);
  Py_DECREF(handle);
  *stream = (CUstream)(uintptr_t)address;
  return result;
}

static int parse_flag(PyObject* value, int* flag) {
  int truth = PyObject_IsTrue(value);
  if (truth < 0)
    return -1;
  *flag = truth;
  return 0;
}

/* Every option given (a bit each in `given`) but l2_persist_base, which is an address
   (converted with the arguments). */
static int parse_options(tlc_py_state* state, const char* launcher, PyObject** options,
                         unsigned given, tlc_config* config, tlc_py_defaults* defaults) {
  memset(config, 0, sizeof *config);
  config->size = sizeof *config;
  tlc_py_where where = {launcher, NULL, NULL};
  unsigned long long value = 0;
  for (; given; given &= given - 1) {
    int o = __builtin_ctz(given);
    PyObject* option = options[o];
    if (option == Py_None && o != OPTION_GRID && o != OPTION_BLOCK)
      continue;
    where.argument = tlc_py_option_names[o];
    switch (o) {
    case OPTION_GRID:
      if (parse_dim3(&where, option, config->grid) < 0)
        return -1;
      break;
    case OPTION_BLOCK:
      if (parse_dim3(&where, option, config->block) < 0)
        return -1;
      break;
    case OPTION_CLUSTER:
      if (parse_dim3(&where, option, config->cluster) < 0)
        return -1;
      break;
    case OPTION_SHARED_MEM:
      if (tlc_py_unsigned(&where, option, 0xFFFFFFFFull, &value) < 0)
        return -1;
      config->shared_bytes = (unsigned int)value;
      break;
    case OPTION_STREAM:
      if (parse_stream(state, &where, option, &config->stream) < 0)
        return -1;
      defaults->stream_known = 1;
      defaults->stream = config->stream;
      break;
    case OPTION_DEVICE:
      if (tlc_py_unsigned(&where, option, 0x7FFFFFFFull, &value) < 0)
        return -1;
      config->device = (int)value;
      defaults->device = (int)value;
      defaults->device_given = 1;
      break;
    case OPTION_COOPERATIVE:
      if (parse_flag(option, &config->cooperative) < 0)
        return -1;
      break;
    case OPTION_PROGRAMMATIC_DEPENDENT_LAUNCH:
      if (parse_flag(option, &config->programmatic_dependent_launch) < 0)
        return -1;
      break;
    case OPTION_L2_PERSIST_BYTES:
      if (tlc_py_unsigned(&where, option, SIZE_MAX, &value) < 0)
        return -1;
      config->l2_persist_bytes = (size_t)value;
      break;
    case OPTION_L2_PERSIST_HIT_RATIO: {
      double ratio = PyFloat_AsDouble(option);
      if (ratio == -1.0 && PyErr_Occurred())
        return -1;
      if (!(ratio >= 0.0 && ratio <= 1.0))
        return tlc_py_argument_error(PyExc_ValueError, &where, "must be within 0..1, not %R",
                                     option);
      config->l2_persist_hit_ratio = (float)ratio;
      break;
    }
    default:
      break;
    }
  }
  /* A window asked for without a ratio persists all of it. */
  if (!options[OPTION_L2_PERSIST_HIT_RATIO] || options[OPTION_L2_PERSIST_HIT_RATIO] == Py_None)
    config->l2_persist_hit_ratio = 1.0f;
  return 0;
}

/* ---- the call --------------------------------------------------------------------------- */

static int convert_argument(tlc_py_state* state, const char* launcher, const tlc_py_param* param,
                            PyObject* object, tlc_py_value* value, tlc_py_defaults* defaults) {
  tlc_py_where where = {launcher, param->name, param->type};
  switch (param->kind) {
  case TLC_PY_POINTER:
    return tlc_py_address(state, &where, object, param->writable, param->accepts, defaults,
                          &value->pointer);
  case TLC_PY_SCALAR:
    return tlc_py_scalar(&where, param->scalar, object, value);
  case TLC_PY_RECORD:
    return tlc_py_record(&where, param->size, object, value->record);
  case TLC_PY_TENSOR_MAP:
    return tlc_py_tensor(state, &where, param, object, defaults, value->tensor);
  }
  PyErr_Format(PyExc_SystemError, "%s(): parameter '%s' has an unknown kind", launcher,
               param->name);
  return -1;
}

/* The general path: every form of every argument, with a message for what is wrong. Kept out of
   line, apart from the call-site path's code. */
__attribute__((noinline)) static int parse_call(tlc_py_state* state, int index,
                                                PyObject* const* args, Py_ssize_t nargs,
                                                PyObject* kwnames, tlc_py_call* call) {
  const tlc_py_launcher* launcher = &state->module->launchers[index];
  PyObject* options[OPTION_COUNT];
  unsigned given = 0;
  unsigned short slots[TLC_PY_SITE_KEYWORDS];
  if (match_arguments(state, index, args, nargs, kwnames, call->arguments, options, &given, slots) <
      0)
    return -1;
  tlc_py_defaults defaults = {-1, 0, 0, 0, NULL};
  if (parse_options(state, launcher->name, options, given, &call->config, &defaults) < 0)
    return -1;
  for (int p = 0; p < launcher->param_count; ++p)
    if (convert_argument(state, launcher->name, &launcher->params[p], call->arguments[p],
                         &call->values[p], &defaults) < 0)
      return -1;
  PyObject* base = options[OPTION_L2_PERSIST_BASE];
  if (base && base != Py_None) {
    tlc_py_where where = {launcher->name, "l2_persist_base", NULL};
    void* address = NULL;
    if (tlc_py_address(state, &where, base, 0, TLC_PY_ACCEPTS_ANY, &defaults, &address) < 0)
      return -1;
    call->config.l2_persist_base = address;
  }
  if (defaults.device >= 0)
    call->config.device = defaults.device;
  if (!options[OPTION_STREAM] || options[OPTION_STREAM] == Py_None)
    call->config.stream = defaults.stream;
  tlc_py_learn_site(state, index, nargs, kwnames, slots, given);
  return 0;
}

TLC_PY_HOT int tlc_py_parse(PyObject* self, int index, PyObject* const* args, Py_ssize_t nargs,
                            PyObject* kwnames, tlc_py_call* call) {
  tlc_py_state* state = tlc_py_state_of(self);
  int parsed = tlc_py_parse_site(state, index, args, nargs, kwnames, call);
  if (parsed <= 0)
    return parsed;
  return parse_call(state, index, args, nargs, kwnames, call);
}
