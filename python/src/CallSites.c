/* The call-site path: a launch from a line of Python that launched before, parsed without the
 * general path's matching and messages.
 *
 * A call that spells its keywords (`f(x, y, n, 1.0, grid=g, block=32)`) passes the same tuple of
 * keyword names every time: the interpreter keeps it among the calling code's constants. Once
 * the general path (Parse.c) has accepted a call, its launcher remembers how that call's keywords
 * matched, holding the tuple so that its address names that site alone; a later call passing
 * the same tuple and as many positional arguments matches the same way, and only its values are
 * read here. Calls through `**kwargs` build a new tuple each time and always take the general
 * path.
 *
 * The values are read here only in their usual forms: exact ints, floats and bools, None,
 * tuples of ints for dimensions, and arrays of a type whose DLPack exchange API the binding knows
 * (torch tensors from torch 2.10 on). Anything else, and any value the general path would refuse
 * or read differently, declines the whole call: nothing is raised, and the general path parses it
 * from the start and explains what is wrong. So this path never decides otherwise than the
 * general one; it only decides sooner. */
#include "Binding.h"

#include <string.h>

/* The launch options this path reads, the first of the list; a site that gives another is not
   learned. */
#define USUAL_OPTION_COUNT (OPTION_DEVICE + 1)
#define USUAL_OPTIONS ((1u << USUAL_OPTION_COUNT) - 1)
_Static_assert(OPTION_GRID < USUAL_OPTION_COUNT && OPTION_BLOCK < USUAL_OPTION_COUNT &&
                   OPTION_SHARED_MEM < USUAL_OPTION_COUNT && OPTION_STREAM < USUAL_OPTION_COUNT,
               "the usual options lead LaunchOptions.h's list");

/* Whether every parameter of `launcher` is one this path converts: a pointer, or a number that
   is not a pair. */
static int usual_parameters(const tlc_py_launcher* launcher) {
  for (int p = 0; p < launcher->param_count; ++p) {
    const tlc_py_param* param = &launcher->params[p];
    if (param->kind == TLC_PY_POINTER)
      continue;
    if (param->kind != TLC_PY_SCALAR || param->scalar == TLC_PY_F16X2 ||
        param->scalar == TLC_PY_BF16X2)
      return 0;
  }
  return 1;
}

int tlc_py_init_sites(tlc_py_state* state) {
  const tlc_py_module* module = state->module;
  state->sites = PyMem_Calloc(module->launcher_count ? (size_t)module->launcher_count : 1,
                              sizeof *state->sites);
  if (!state->sites)
    return PyErr_NoMemory(), -1;
  for (int i = 0; i < module->launcher_count; ++i)
    state->sites[i].usual = usual_parameters(&module->launchers[i]);
  return 0;
}

void tlc_py_free_sites(tlc_py_state* state) {
  if (!state->sites)
    return;
  for (int i = 0; i < state->module->launcher_count; ++i)
    for (int s = 0; s < TLC_PY_SITES; ++s)
      Py_CLEAR(state->sites[i].sites[s].kwnames);
  PyMem_Free(state->sites);
  state->sites = NULL;
}

void tlc_py_learn_site(tlc_py_state* state, int index, Py_ssize_t nargs, PyObject* kwnames,
                       const unsigned short* slots, unsigned given) {
  tlc_py_launcher_sites* launcher = &state->sites[index];
  tlc_py_site* sites = launcher->sites;
  if (!kwnames || !launcher->usual || (given & ~USUAL_OPTIONS) ||
      (sites[0].kwnames == kwnames && sites[0].nargs == nargs))
    return; /* not one for this path, or known already (the path declined a value) */
  Py_ssize_t keywords = PyTuple_Size(kwnames);
  if (keywords > TLC_PY_SITE_KEYWORDS)
    return;
  /* The newest first; the oldest goes. Its tuple is released last: releasing runs no Python
     code for a tuple of strings, but the slots are settled before anything can run. */
  PyObject* oldest = sites[TLC_PY_SITES - 1].kwnames;
  memmove(&sites[1], &sites[0], (TLC_PY_SITES - 1) * sizeof sites[0]);
  sites[0].kwnames = Py_NewRef(kwnames);
  sites[0].nargs = nargs;
  sites[0].keywords = (int)keywords;
  memcpy(sites[0].slots, slots, (size_t)keywords * sizeof slots[0]);
  Py_XDECREF(oldest);
}

/* A launch dimension in its usual form: an exact int, or an exact tuple of 1 to 3 of them. */
TLC_PY_HOT static int usual_dim3(PyObject* value, unsigned int out[3]) {
  unsigned long long dim = 0;
  out[0] = out[1] = out[2] = 1;
  if (PyLong_CheckExact(value)) {
    if (tlc_py_usual_unsigned(value, 0xFFFFFFFFull, &dim) != 0)
      return 1;
    out[0] = (unsigned int)dim;
    return 0;
  }
  if (!PyTuple_CheckExact(value))
    return 1;
  Py_ssize_t size = PyTuple_Size(value);
  if (size < 1 || size > 3)
    return 1;
  for (Py_ssize_t i = 0; i < size; ++i) {
    if (tlc_py_usual_unsigned(PyTuple_GetItem(value, i), 0xFFFFFFFFull, &dim) != 0)
      return 1;
    out[i] = (unsigned int)dim;
  }
  return 0;
}

/* The options a site may give, into `config` and `defaults` as parse_options reads them (None
   for shared_mem, stream or device is as if not given), after the arguments. */
TLC_PY_HOT static int usual_options(PyObject* const* options, tlc_config* config, tlc_py_defaults* defaults) {
  /* A learned site gives grid= and block=: the general path accepts no call without them. */
  unsigned long long value = 0;
  if (usual_dim3(options[OPTION_GRID], config->grid) != 0 ||
      usual_dim3(options[OPTION_BLOCK], config->block) != 0)
    return 1;
  PyObject* shared = options[OPTION_SHARED_MEM];
  if (shared && shared != Py_None) {
    if (tlc_py_usual_unsigned(shared, 0xFFFFFFFFull, &value) != 0)
      return 1;
    config->shared_bytes = (unsigned int)value;
  }
  PyObject* stream = options[OPTION_STREAM];
  if (stream && stream != Py_None) {
    if (tlc_py_usual_unsigned(stream, UINT64_MAX, &value) != 0)
      return 1;
    config->stream = (CUstream)(uintptr_t)value;
  }
  PyObject* device = options[OPTION_DEVICE];
  if (device && device != Py_None) {
    if (tlc_py_usual_unsigned(device, 0x7FFFFFFFull, &value) != 0 ||
        (defaults->array_seen && defaults->device != (int)value))
      return 1; /* an array on another device: the general path refuses it */
    config->device = (int)value;
    defaults->device = (int)value;
  }
  return 0;
}

/* What parse_options leaves in a config before the options: zeros, its size, and a window's
   hit ratio of 1 (no window is given here). Field by field: GCC makes a memset or a copy of the
   whole a `rep stos`, which takes longer to start than these stores take. */
TLC_PY_HOT static void usual_config(tlc_config* config) {
  _Static_assert(sizeof(tlc_config) == 88, "usual_config sets every field of tlc_config");
  config->size = sizeof *config;
  for (int i = 0; i < 3; ++i)
    config->grid[i] = config->block[i] = config->cluster[i] = 0;
  config->shared_bytes = 0;
  config->stream = NULL;
  config->device = 0;
  config->cooperative = 0;
  config->programmatic_dependent_launch = 0;
  config->l2_persist_base = NULL;
  config->l2_persist_bytes = 0;
  config->l2_persist_hit_ratio = 1.0f;
}

TLC_PY_HOT static int usual_argument(tlc_py_state* state, const tlc_py_param* param, PyObject* object,
                          tlc_py_value* value, tlc_py_defaults* defaults) {
  if (param->kind == TLC_PY_SCALAR)
    return tlc_py_usual_scalar(param->scalar, object, value);
  if (object == Py_None) {
    value->pointer = NULL;
    return 0;
  }
  if (PyLong_CheckExact(object)) {
    unsigned long long address = 0;
    if (tlc_py_usual_unsigned(object, UINT64_MAX, &address) != 0)
      return 1;
    value->pointer = (void*)(uintptr_t)address;
    return 0;
  }
  return tlc_py_usual_array(state, object, param->accepts, defaults, &value->pointer);
}

/* The site `kwnames` and `nargs` name among the launcher's, or NULL. */
TLC_PY_HOT static const tlc_py_site* find_site(const tlc_py_launcher_sites* launcher, PyObject* kwnames,
                                    Py_ssize_t nargs) {
  for (int s = 0; s < TLC_PY_SITES; ++s)
    if (launcher->sites[s].kwnames == kwnames && launcher->sites[s].nargs == nargs)
      return &launcher->sites[s];
  return NULL;
}

TLC_PY_HOT int tlc_py_parse_site(tlc_py_state* state, int index, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames, tlc_py_call* call) {
  if (!kwnames)
    return 1; /* grid= and block= are keywords: the general path says they are missing */
  const tlc_py_site* site = find_site(&state->sites[index], kwnames, nargs);
  if (!site)
    return 1;
  const tlc_py_launcher* launcher = &state->module->launchers[index];
  int count = launcher->param_count;
  PyObject** arguments = call->arguments;
  PyObject* options[USUAL_OPTION_COUNT] = {NULL};
  /* The site is read whole before any value is: reading an array may run Python code that
     learns another site in its place. */
  for (Py_ssize_t p = 0; p < nargs; ++p)
    arguments[p] = args[p];
  for (int k = 0; k < site->keywords; ++k) {
    int slot = site->slots[k];
    if (slot < count)
      arguments[slot] = args[nargs + k];
    else if (slot - count < USUAL_OPTION_COUNT)
      options[slot - count] = args[nargs + k];
    else
      return 1; /* not learned (tlc_py_learn_site): checked where it would be written */
  }
  /* The arguments before the options, so that a call whose array this path declines (one of a
     type without the exchange API) costs the least here. The general path reads the options
     first; what they decide for the arrays is applied here as it would be: a stream given
     asks no array for one, and a device given must be the arrays'. */
  PyObject* stream = options[OPTION_STREAM];
  tlc_py_defaults defaults = {-1, 0, stream && stream != Py_None, 0, NULL};
  for (int p = 0; p < count; ++p)
    if (usual_argument(state, &launcher->params[p], arguments[p], &call->values[p], &defaults) !=
        0)
      return 1;
  tlc_config* config = &call->config;
  usual_config(config);
  if (usual_options(options, config, &defaults) != 0)
    return 1;
  if (defaults.device >= 0)
    config->device = defaults.device;
  if (!options[OPTION_STREAM] || options[OPTION_STREAM] == Py_None)
    config->stream = defaults.stream;
  return 0;
}
