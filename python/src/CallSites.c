/* The call-site path: a launch from a line of Python that launched before, parsed without the
 * general path's matching and messages.
 *
 * A call that spells its keywords (`f(x, y, n, 1.0, grid=g, block=32)`) passes the same tuple of
 * keyword names every time: the interpreter keeps it among the calling code's constants. Once
 * the general path (Parse.c) has accepted two calls passing one tuple, their launcher remembers
 * how its keywords matched, holding the tuple so that its address names that site alone; a later
 * call passing the same tuple and as many positional arguments matches the same way, and only
 * its values are read here. Calls through `**kwargs` build a new tuple each time, which is never
 * seen twice: they always take the general path, and take no site's place.
 *
 * The values are read here only in their usual forms: exact ints, floats and bools, None,
 * tuples of ints for dimensions, and arrays of a type whose DLPack exchange API the binding knows
 * (torch tensors from torch 2.10 on). Anything else, and any value the general path would refuse
 * or read differently, declines the whole call: nothing is raised, and the general path parses it
 * from the start and explains what is wrong. The one exception raised here is one an array's
 * framework raised from a read, which the general path would raise from the same read (a read
 * that would not fail twice must not be lost by reading it again). So this path never decides
 * otherwise than the general one; it only decides sooner. */
#include "Binding.h"

#include <string.h>

/* The launch options this path reads, the first of the list; a site that gives another is not
   learned. */
#define USUAL_OPTION_COUNT (OPTION_DEVICE + 1)
#define USUAL_OPTIONS ((1u << USUAL_OPTION_COUNT) - 1)
_Static_assert(OPTION_GRID < USUAL_OPTION_COUNT && OPTION_BLOCK < USUAL_OPTION_COUNT &&
                   OPTION_SHARED_MEM < USUAL_OPTION_COUNT && OPTION_STREAM < USUAL_OPTION_COUNT,
               "the usual options lead LaunchOptions.h's list");

/* The bits of a site's remembered values (tlc_py_parse_site): one per parameter, then grid=
   and block=. */
#define GRID_REMEMBERED (1u << TLC_PY_SITE_MEMO)
#define BLOCK_REMEMBERED (1u << (TLC_PY_SITE_MEMO + 1))
_Static_assert(TLC_PY_SITE_MEMO + 2 <= 32, "a bit per remembered value in an unsigned");

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

/* Drops what a site holds. */
static void release_site(tlc_py_site* site) {
  Py_CLEAR(site->kwnames);
  for (int p = 0; p < TLC_PY_SITE_MEMO; ++p)
    Py_CLEAR(site->memo[p]);
  for (int d = 0; d < 2; ++d)
    Py_CLEAR(site->dims_memo[d]);
}

void tlc_py_free_sites(tlc_py_state* state) {
  if (!state->sites)
    return;
  for (int i = 0; i < state->module->launcher_count; ++i) {
    for (int s = 0; s < TLC_PY_SITES; ++s)
      release_site(&state->sites[i].sites[s]);
    for (int s = 0; s < TLC_PY_SITES_SEEN; ++s)
      Py_CLEAR(state->sites[i].seen[s]);
  }
  PyMem_Free(state->sites);
  state->sites = NULL;
}

/* The site `kwnames` and `nargs` name among the launcher's, or NULL. */
TLC_PY_HOT static tlc_py_site* find_site(tlc_py_launcher_sites* launcher, PyObject* kwnames,
                                         Py_ssize_t nargs) {
  for (int s = 0; s < TLC_PY_SITES; ++s)
    if (launcher->sites[s].kwnames == kwnames && launcher->sites[s].nargs == nargs)
      return &launcher->sites[s];
  return NULL;
}

/* Whether `kwnames` is among the tuples the launcher's last accepted calls passed; if not, it
   is now, in place of the oldest (released last: a tuple of strings runs no code as it goes). */
static int seen_before(tlc_py_launcher_sites* launcher, PyObject* kwnames) {
  for (int s = 0; s < TLC_PY_SITES_SEEN; ++s)
    if (launcher->seen[s] == kwnames)
      return 1;
  PyObject* oldest = launcher->seen[launcher->next_seen];
  launcher->seen[launcher->next_seen] = Py_NewRef(kwnames);
  launcher->next_seen = (launcher->next_seen + 1) % TLC_PY_SITES_SEEN;
  Py_XDECREF(oldest);
  return 0;
}

void tlc_py_learn_site(tlc_py_state* state, int index, Py_ssize_t nargs, PyObject* kwnames,
                       const unsigned short* slots, unsigned given) {
  tlc_py_launcher_sites* launcher = &state->sites[index];
  tlc_py_site* sites = launcher->sites;
  if (!kwnames || !launcher->usual || (given & ~USUAL_OPTIONS))
    return; /* not one for this path */
  tlc_py_site* known = find_site(launcher, kwnames, nargs);
  if (known) { /* the path declined a value the general path accepted */
    if (known->declined < TLC_PY_SITE_DECLINES)
      ++known->declined;
    return;
  }
  Py_ssize_t keywords = PyTuple_Size(kwnames);
  if (keywords > TLC_PY_SITE_KEYWORDS || !seen_before(launcher, kwnames))
    return;
  /* The newest first; the oldest goes. What it holds is released last: releasing runs no
     Python code for the objects a site holds, but the sites are settled before anything could. */
  tlc_py_site oldest = sites[TLC_PY_SITES - 1];
  memmove(&sites[1], &sites[0], (TLC_PY_SITES - 1) * sizeof sites[0]);
  memset(&sites[0], 0, sizeof sites[0]);
  sites[0].kwnames = Py_NewRef(kwnames);
  sites[0].nargs = nargs;
  sites[0].keywords = (int)keywords;
  memcpy(sites[0].slots, slots, (size_t)keywords * sizeof slots[0]);
  release_site(&oldest);
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

/* The options a site may give but the launch dimensions, into `config` and `defaults` as
   parse_options reads them (None for shared_mem, stream or device is as if not given). */
TLC_PY_HOT static int usual_options(PyObject* const* options, tlc_config* config,
                                    tlc_py_defaults* defaults) {
  unsigned long long value = 0;
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
    defaults->stream_known = 1;
    defaults->stream = config->stream;
  }
  PyObject* device = options[OPTION_DEVICE];
  if (device && device != Py_None) {
    if (tlc_py_usual_unsigned(device, 0x7FFFFFFFull, &value) != 0)
      return 1;
    config->device = (int)value;
    defaults->device = (int)value;
    defaults->device_given = 1;
  }
  return 0;
}

/* Whether a value read from `object` holds for as long as the object lives: an exact int, float
   or bool, or None (a launch dimension's tuple of exact ints is checked where it is read). */
static int unchanging(PyObject* object) {
  return PyLong_CheckExact(object) || PyFloat_CheckExact(object) || PyBool_Check(object) ||
         object == Py_None;
}

/* Remembers the values read now (`fresh`: bits as `remembered` has them) at `site`, found again
   after the arguments were read. Releasing what it held before runs no Python code: the objects
   it holds are ints, floats and tuples of ints. */
static void remember(tlc_py_site* site, unsigned fresh, PyObject* const* arguments,
                     const tlc_py_value* values, PyObject* const* options,
                     const tlc_config* config) {
  for (; fresh; fresh &= fresh - 1) {
    int bit = __builtin_ctz(fresh);
    PyObject* old;
    if (bit < TLC_PY_SITE_MEMO) {
      old = site->memo[bit];
      site->memo[bit] = Py_NewRef(arguments[bit]);
      site->memo_values[bit] = values[bit];
    } else {
      int d = bit - TLC_PY_SITE_MEMO;
      old = site->dims_memo[d];
      site->dims_memo[d] = Py_NewRef(options[d]);
      memcpy(site->dims[d], d ? config->block : config->grid, sizeof site->dims[d]);
    }
    Py_XDECREF(old);
  }
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

TLC_PY_HOT static int usual_argument(tlc_py_state* state, const tlc_py_param* param,
                                     PyObject* object, tlc_py_value* value,
                                     tlc_py_defaults* defaults) {
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

TLC_PY_HOT int tlc_py_parse_site(tlc_py_state* state, int index, PyObject* const* args,
                                 Py_ssize_t nargs, PyObject* kwnames, tlc_py_call* call) {
  if (!kwnames)
    return 1; /* grid= and block= are keywords: the general path says they are missing */
  tlc_py_site* site = find_site(&state->sites[index], kwnames, nargs);
  if (!site)
    return 1;
  if (site->declined >= TLC_PY_SITE_DECLINES) {
    if (++site->skipped < TLC_PY_SITE_RETRY)
      return 1;
    /* One try: the site's arguments may have changed kind. A decline stops it again. */
    site->skipped = 0;
    site->declined = TLC_PY_SITE_DECLINES - 1;
  }
  int declined = site->declined;
  _Static_assert(OPTION_GRID == 0 && OPTION_BLOCK == 1, "dims_memo is grid's, then block's");
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
  tlc_config* config = &call->config;
  usual_config(config);
  /* Values remembered: compared while the site is as it was found, before anything has run. */
  int memo_count = count < TLC_PY_SITE_MEMO ? count : TLC_PY_SITE_MEMO;
  unsigned remembered = 0;
  for (int p = 0; p < memo_count; ++p)
    if (arguments[p] == site->memo[p]) {
      call->values[p] = site->memo_values[p];
      remembered |= 1u << p;
    }
  if (options[OPTION_GRID] == site->dims_memo[0]) {
    memcpy(config->grid, site->dims[0], sizeof config->grid);
    remembered |= GRID_REMEMBERED;
  }
  if (options[OPTION_BLOCK] == site->dims_memo[1]) {
    memcpy(config->block, site->dims[1], sizeof config->block);
    remembered |= BLOCK_REMEMBERED;
  }
  /* The options first, as the general path reads them: a call it refuses for an option is
     refused before any array is read, and what the options decide for the arrays (a stream
     given asks none for one, a device given must be theirs) is known when they are read. A
     learned site gives grid= and block= (the general path accepts no call without them). */
  tlc_py_defaults defaults = {-1, 0, 0, 0, NULL};
  if ((!(remembered & GRID_REMEMBERED) && usual_dim3(options[OPTION_GRID], config->grid) != 0) ||
      (!(remembered & BLOCK_REMEMBERED) && usual_dim3(options[OPTION_BLOCK], config->block) != 0) ||
      usual_options(options, config, &defaults) != 0)
    return 1;
  unsigned fresh = 0; /* values read now from objects that cannot change: to remember */
  for (int p = 0; p < count; ++p) {
    if (p < memo_count && (remembered & (1u << p)))
      continue;
    int read =
        usual_argument(state, &launcher->params[p], arguments[p], &call->values[p], &defaults);
    if (read != 0)
      return read;
    if (p < memo_count && unchanging(arguments[p]))
      fresh |= 1u << p;
  }
  if (defaults.device >= 0)
    config->device = defaults.device;
  if (!options[OPTION_STREAM] || options[OPTION_STREAM] == Py_None)
    config->stream = defaults.stream;
  fresh |= ~remembered & (GRID_REMEMBERED | BLOCK_REMEMBERED); /* read, and of exact types */
  if (fresh || declined) {
    /* Found again: reading an array may have run code that made the launcher learn others. */
    site = find_site(&state->sites[index], kwnames, nargs);
    if (site) {
      site->declined = 0; /* only declines in a row stop the path */
      remember(site, fresh, arguments, call->values, options, config);
    }
  }
  return 0;
}
