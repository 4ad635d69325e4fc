/* Device addresses from Python objects: torch tensors (data_ptr, get_device: two C method calls,
 * no dict), objects with __cuda_array_interface__ (CuPy, Numba, ...), DLPack producers, and
 * plain integers. How a type gives its address is decided once per type and cached. The first
 * array argument also decides the launch's default device and stream (docs/python.md). Torch is
 * never imported here: it is looked up only once an argument is one of its tensors. */
#include "Binding.h"

#include <dlpack/dlpack.h>

#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* DLPack 1.0's versioned tensor, which Debian 12's DLPack headers (0.6) predate; its layout is
   fixed by the DLPack 1.x ABI. */
typedef struct tlc_dlpack_version {
  uint32_t major;
  uint32_t minor;
} tlc_dlpack_version;

typedef struct tlc_dlpack_versioned {
  tlc_dlpack_version version;
  void* manager_ctx;
  void (*deleter)(struct tlc_dlpack_versioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} tlc_dlpack_versioned;

#define TLC_DLPACK_READ_ONLY (1ull << 0)
#define TLC_DLPACK_SUBBYTE_PADDED (1ull << 2) /* DLPack 1.1: one 4- or 6-bit value per byte */

/* DLPack 1.1's element type codes beyond 0.6's (kDLInt ... kDLBool). */
enum {
  TLC_DL_FLOAT8_E3M4 = 7,
  TLC_DL_FLOAT8_E4M3,
  TLC_DL_FLOAT8_E4M3B11FNUZ,
  TLC_DL_FLOAT8_E4M3FN,
  TLC_DL_FLOAT8_E4M3FNUZ,
  TLC_DL_FLOAT8_E5M2,
  TLC_DL_FLOAT8_E5M2FNUZ,
  TLC_DL_FLOAT8_E8M0FNU,
  TLC_DL_FLOAT6_E2M3FN,
  TLC_DL_FLOAT6_E3M2FN,
  TLC_DL_FLOAT4_E2M1FN
};

#define MAX_RANK 5          /* a tensor map's most dimensions */
#define MAX_ITEMSIZE 0xFFFF /* bytes; more is no element type a kernel reads */

/* What a parameter asks of an array: its layout (tensor maps), the element types it takes. */
typedef struct array_request {
  int layout;
  unsigned long long accepts; /* TLC_PY_ACCEPTS_ANY: the element type is not read */
} array_request;

/* What an array argument says about itself. The layout is read only for tensor maps. */
typedef struct array_view {
  unsigned long long address;
  int device;     /* -1: the array does not say */
  int read_only;  /* the producer says it must not be written */
  int has_stream; /* __cuda_array_interface__ named the stream its data is ready on */
  CUstream stream;
  int ndim;
  unsigned long long shape[MAX_RANK];
  long long strides[MAX_RANK]; /* bytes */
  unsigned itemsize;
  const char* strides_field; /* where the strides came from, for messages */
} array_view;

TLC_PY_COLD static int unsupported(const tlc_py_where* where, PyObject* object, int ints) {
  PyObject* type = tlc_py_type_name(object);
  tlc_py_argument_error(PyExc_TypeError, where,
                        ints ? "takes a CUDA array (a torch.Tensor, an object with "
                               "__cuda_array_interface__ or __dlpack__), an int address or "
                               "None, not %U"
                             : "takes a CUDA array (a torch.Tensor, an object with "
                               "__cuda_array_interface__ or __dlpack__), not %U",
                        type);
  Py_DECREF(type);
  return -1;
}

/* ---- how a type gives an address -------------------------------------------------------- */

static int is_torch_tensor(tlc_py_state* state, PyObject* object) {
  PyObject* name = PyUnicode_InternFromString("torch");
  PyObject* torch = name ? PyImport_GetModule(name) : NULL;
  Py_XDECREF(name);
  if (!torch) {
    PyErr_Clear();
    return 0; /* not imported: no argument can be a tensor */
  }
  if (!state->torch_tensor)
    state->torch_tensor = PyObject_GetAttrString(torch, "Tensor");
  Py_DECREF(torch);
  if (!state->torch_tensor) {
    PyErr_Clear();
    return 0;
  }
  int result = PyObject_IsInstance(object, state->torch_tensor);
  if (result < 0)
    PyErr_Clear();
  return result > 0;
}

/* cupy.ndarray (or a subclass), where this CuPy exports the C function that gives its current
   stream. CuPy's __cuda_array_interface__ is a property that builds a dict of seven entries on
   every call (0.47 us on an H100 host, more than the launch's own host time over C's), so CuPy
   arrays are read through the attributes CuPy keeps in C (data.ptr, data.device_id, dtype), 40
   ns each, and the stream comes from the function CuPy's own kernels call, which is what its
   interface reports. It is exported to Cython modules in cupy.cuda.stream.__pyx_capi__ as a
   capsule named by its C signature: a CuPy without it, or with another signature, keeps the
   interface. */
static const char kCupyStreamSignature[] = "intptr_t (void)";

/* A module of sys.modules by name: a new reference, or NULL (no exception) when not imported. */
static PyObject* imported_module(const char* name) {
  PyObject* text = PyUnicode_FromString(name);
  PyObject* module = text ? PyImport_GetModule(text) : NULL;
  Py_XDECREF(text);
  if (!module)
    PyErr_Clear();
  return module;
}

/* Looks up cupy.ndarray and CuPy's current-stream function, once CuPy is imported. */
static void look_for_cupy(tlc_py_state* state) {
  PyObject* cupy = imported_module("cupy");
  if (!cupy)
    return; /* not imported (yet): no argument can be a CuPy array */
  state->cupy_looked = 1;
  PyObject* streams = imported_module("cupy.cuda.stream");
  PyObject* exported = streams ? PyObject_GetAttrString(streams, "__pyx_capi__") : NULL;
  PyObject* capsule = exported && PyDict_Check(exported)
                          ? PyDict_GetItemString(exported, "get_current_stream_ptr")
                          : NULL;
  if (capsule && PyCapsule_IsValid(capsule, kCupyStreamSignature)) {
    state->cupy_current_stream =
        (intptr_t (*)(void))PyCapsule_GetPointer(capsule, kCupyStreamSignature);
    state->cupy_ndarray = PyObject_GetAttrString(cupy, "ndarray");
  }
  if (!state->cupy_ndarray || !PyType_Check(state->cupy_ndarray)) {
    Py_CLEAR(state->cupy_ndarray);
    state->cupy_current_stream = NULL;
  }
  PyErr_Clear();
  Py_XDECREF(exported);
  Py_XDECREF(streams);
  Py_DECREF(cupy);
}

static int is_cupy_array(tlc_py_state* state, PyObject* object) {
  if (!state->cupy_looked)
    look_for_cupy(state);
  return state->cupy_ndarray &&
         PyType_IsSubtype(Py_TYPE(object), (PyTypeObject*)state->cupy_ndarray);
}

/* On the type first: a property there (CuPy's, Numba's) is not evaluated. */
static int has_attribute(PyObject* object, PyObject* name) {
  return PyObject_HasAttr((PyObject*)Py_TYPE(object), name) || PyObject_HasAttr(object, name);
}

/* A torch tensor type's attribute `name` (a method, or the dtype descriptor), looked up once
   as CPython's method cache would; NULL (no exception) where the type has none. */
static PyObject* type_attribute(PyObject* type, PyObject* name) {
  PyObject* attribute = PyObject_GetAttr(type, name);
  if (!attribute)
    PyErr_Clear();
  return attribute;
}

/* The DLPack exchange API `type` defines itself (in its own __dict__, not inherited: the API
   reads objects of the type it was found on, and a subclass may be anything, a tensor subclass
   that only pretends to hold memory included). A DLPack 1.x table with both functions the
   binding calls, or nothing. */
static void learn_exchange(tlc_py_state* state, PyObject* type, tlc_py_type_info* info) {
  PyObject* dict = PyObject_GetAttr(type, state->strings.dict);
  PyObject* capsule = dict ? PyObject_GetItem(dict, state->strings.dlpack_exchange_api) : NULL;
  Py_XDECREF(dict);
  PyErr_Clear();
  const struct tlc_dlpack_exchange_api* api =
      capsule && PyCapsule_IsValid(capsule, "dlpack_exchange_api")
          ? PyCapsule_GetPointer(capsule, "dlpack_exchange_api")
          : NULL;
  if (api && api->version.major == 1 && api->dltensor_from_py_object_no_sync &&
      api->current_work_stream) {
    info->exchange = api;
    info->exchange_capsule = capsule;
  } else {
    Py_XDECREF(capsule);
  }
}

/* What a new type gives: how it gives an address, and for torch tensors their methods. */
static void learn_type(tlc_py_state* state, PyObject* object, tlc_py_type_info* info) {
  PyObject* type = (PyObject*)Py_TYPE(object);
  info->kind = ARRAY_NONE;
  learn_exchange(state, type, info);
  if (is_torch_tensor(state, object))
    info->kind = ARRAY_TORCH;
  else if (is_cupy_array(state, object))
    info->kind = ARRAY_CUPY;
  else if (has_attribute(object, state->strings.cuda_array_interface))
    info->kind = ARRAY_CAI;
  else if (has_attribute(object, state->strings.dlpack))
    info->kind = ARRAY_DLPACK;
  else if (PyIndex_Check(object) && !PyBool_Check(object))
    info->kind = ARRAY_INDEX;
  else if (info->exchange)
    info->kind = ARRAY_EXCHANGE;
  info->dlpack_device = (unsigned char)PyObject_HasAttr(type, state->strings.dlpack_device);
  if (info->kind != ARRAY_TORCH)
    return;
  info->data_ptr = type_attribute(type, state->strings.data_ptr);
  info->get_device = type_attribute(type, state->strings.get_device);
  PyObject* dtype = type_attribute(type, state->strings.dtype);
  /* Only a data descriptor (torch's getset) wins over the instance's own attributes. */
  PyTypeObject* kind = dtype ? Py_TYPE(dtype) : NULL;
  if (kind && PyType_GetSlot(kind, Py_tp_descr_get) && PyType_GetSlot(kind, Py_tp_descr_set)) {
    info->dtype = dtype;
    info->get_dtype = (descrgetfunc)PyType_GetSlot(kind, Py_tp_descr_get);
  } else {
    Py_XDECREF(dtype);
  }
}

static void release_type(tlc_py_type_info* info) {
  Py_CLEAR(info->type);
  Py_CLEAR(info->data_ptr);
  Py_CLEAR(info->get_device);
  Py_CLEAR(info->dtype);
  Py_CLEAR(info->exchange_capsule);
  info->exchange = NULL;
}

void tlc_py_release_types(tlc_py_state* state) {
  for (int i = 0; i < TLC_PY_TYPE_CACHE; ++i) {
    state->type_keys[i] = NULL;
    release_type(&state->types[i]);
  }
}

/* The cache's entry for `object`'s type, or NULL. */
TLC_PY_HOT static tlc_py_type_info* cached_type(tlc_py_state* state, PyObject* object) {
  PyObject* type = (PyObject*)Py_TYPE(object);
  for (int i = 0; i < TLC_PY_TYPE_CACHE; ++i)
    if (state->type_keys[i] == type)
      return &state->types[i];
  return NULL;
}

/* How `object`'s type gives an address: a copy of what the cache knows (decided the first
   time), holding its own references, so that Python code an argument runs (a property) may
   call a launcher and replace cache entries meanwhile. release_info() drops them. */
static void classify(tlc_py_state* state, PyObject* object, tlc_py_type_info* info) {
  PyObject* type = (PyObject*)Py_TYPE(object);
  tlc_py_type_info* known = cached_type(state, object);
  if (!known) {
    tlc_py_type_info learned = {0};
    learn_type(state, object, &learned);
    if (learned.kind == ARRAY_NONE) {
      *info = learned;
      return;
    }
    int slot = state->next_type;
    state->next_type = (slot + 1) % TLC_PY_TYPE_CACHE;
    known = &state->types[slot];
    state->type_keys[slot] = NULL;
    release_type(known);
    Py_INCREF(type);
    learned.type = type;
    *known = learned;
    state->type_keys[slot] = type;
  }
  *info = *known;
  Py_XINCREF(info->type);
  Py_XINCREF(info->data_ptr);
  Py_XINCREF(info->get_device);
  Py_XINCREF(info->dtype);
  Py_XINCREF(info->exchange_capsule);
}

static void release_info(tlc_py_type_info* info) {
  release_type(info);
}

/* Remembers that `type`'s __dlpack__ takes no max_version. */
static void learn_legacy_dlpack(tlc_py_state* state, PyObject* type) {
  for (int i = 0; i < TLC_PY_TYPE_CACHE; ++i)
    if (state->types[i].type == type)
      state->types[i].legacy_dlpack = 1;
}

/* ---- fields, checked before use ------------------------------------------------------- */

/* An array's self-description is the producer's to get right, and anything may be in it: every
   field is checked before it is used, and a message names the field as its protocol spells it
   ("__cuda_array_interface__['shape'][1]", "DLPack shape", "data_ptr()"), after the launcher
   and the argument. */
TLC_PY_COLD static int field_error(PyObject* exception, const tlc_py_where* where,
                                   const char* field, Py_ssize_t index, const char* format, ...) {
  va_list args;
  va_start(args, format);
  PyObject* detail = PyUnicode_FromFormatV(format, args);
  va_end(args);
  if (!detail)
    return -1;
  if (index >= 0)
    tlc_py_argument_error(exception, where, "has %s[%zd] %U", field, index, detail);
  else
    tlc_py_argument_error(exception, where, "has %s %U", field, detail);
  Py_DECREF(detail);
  return -1;
}

/* An integer field within [min, max]: an int or an object with __index__, not a bool (a
   TypeError), in range (a ValueError saying what it must be). */
static int integer_field(const tlc_py_where* where, const char* field, Py_ssize_t index,
                         PyObject* value, long long min, unsigned long long max, const char* what,
                         long long* as_signed, unsigned long long* as_unsigned) {
  if (PyLong_CheckExact(value)) { /* the usual case, without the checks a message needs */
    int overflow = 0;
    long long small = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (!overflow && !(small == -1 && PyErr_Occurred()) && small >= min &&
        (small < 0 || (unsigned long long)small <= max)) {
      if (as_signed)
        *as_signed = small;
      if (as_unsigned)
        *as_unsigned = (unsigned long long)small;
      return 0;
    }
    PyErr_Clear();
  }
  if (PyBool_Check(value) || !(PyLong_Check(value) || PyIndex_Check(value))) {
    PyObject* type = tlc_py_type_name(value);
    field_error(PyExc_TypeError, where, field, index, "of type %U; it must be an int (%s)", type,
                what);
    Py_DECREF(type);
    return -1;
  }
  PyObject* number = PyLong_Check(value) ? (Py_INCREF(value), value) : PyNumber_Index(value);
  if (!number)
    return -1;
  int overflow = 0;
  long long small = PyLong_AsLongLongAndOverflow(number, &overflow);
  unsigned long long big = (unsigned long long)small;
  int ok;
  if (small == -1 && PyErr_Occurred()) {
    ok = 0;
  } else if (overflow > 0 && max > (unsigned long long)LLONG_MAX) {
    big = PyLong_AsUnsignedLongLong(number);
    ok = !(big == (unsigned long long)-1 && PyErr_Occurred()) && big <= max;
  } else {
    ok = !overflow && small >= min && (small < 0 || (unsigned long long)small <= max);
  }
  if (!ok) {
    PyErr_Clear();
    field_error(PyExc_ValueError, where, field, index, "= %S, which is not %s", number, what);
    Py_DECREF(number);
    return -1;
  }
  Py_DECREF(number);
  if (as_signed)
    *as_signed = small;
  if (as_unsigned)
    *as_unsigned = big;
  return 0;
}

static const char kAddress[] = "an address (0 to 2**64 - 1)";
static const char kSize[] = "a size (0 to 2**63 - 1)";
static const char kStride[] = "a stride (-2**63 to 2**63 - 1)";

static int address_field(const tlc_py_where* where, const char* field, PyObject* value,
                         unsigned long long* address) {
  return integer_field(where, field, -1, value, 0, UINT64_MAX, kAddress, NULL, address);
}

/* Row-major strides in bytes for the view's shape; a size beyond 2**63 bytes is refused. */
static int compact_strides(const tlc_py_where* where, const char* shape_field, array_view* view) {
  long long stride = view->itemsize;
  for (int i = view->ndim - 1; i >= 0; --i) {
    view->strides[i] = stride;
    if (view->shape[i] > (unsigned long long)LLONG_MAX ||
        __builtin_mul_overflow(stride, (long long)view->shape[i], &stride))
      return field_error(PyExc_ValueError, where, shape_field, -1,
                         "that makes the array larger than 2**63 bytes");
  }
  return 0;
}

/* A stride in bytes: `stride` elements (or bytes, `scale` 1) of the view's itemsize. */
static int scaled_stride(const tlc_py_where* where, const char* field, Py_ssize_t index,
                         long long stride, long long scale, long long* bytes) {
  if (__builtin_mul_overflow(stride, scale, bytes))
    return field_error(PyExc_ValueError, where, field, index,
                       "= %lld elements of %lld bytes, beyond 2**63 bytes", stride, scale);
  return 0;
}

/* shape and strides (NULL: compact) as tuples of ints, as torch and __cuda_array_interface__
   give them; strides count `stride_scale` bytes each. */
static int read_layout_tuple(const tlc_py_where* where, const char* shape_field,
                             const char* strides_field, PyObject* shape, PyObject* strides,
                             long long stride_scale, array_view* view) {
  if (!PyTuple_Check(shape)) {
    PyObject* type = tlc_py_type_name(shape);
    field_error(PyExc_TypeError, where, shape_field, -1, "of type %U; it must be a tuple", type);
    Py_DECREF(type);
    return -1;
  }
  if (strides && !PyTuple_Check(strides)) {
    PyObject* type = tlc_py_type_name(strides);
    field_error(PyExc_TypeError, where, strides_field, -1, "of type %U; it must be a tuple or None",
                type);
    Py_DECREF(type);
    return -1;
  }
  Py_ssize_t ndim = PyTuple_Size(shape);
  if (ndim > MAX_RANK)
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "has %zd dimensions; a tensor map takes at most %d", ndim,
                                 MAX_RANK);
  if (strides && PyTuple_Size(strides) != ndim)
    return field_error(PyExc_ValueError, where, strides_field, -1,
                       "with %zd entries for %zd dimensions", PyTuple_Size(strides), ndim);
  view->ndim = (int)ndim;
  view->strides_field = strides_field;
  for (Py_ssize_t i = 0; i < ndim; ++i)
    if (integer_field(where, shape_field, i, PyTuple_GetItem(shape, i), 0, LLONG_MAX, kSize, NULL,
                      &view->shape[i]) < 0)
      return -1;
  if (!strides)
    return compact_strides(where, shape_field, view);
  for (Py_ssize_t i = 0; i < ndim; ++i) {
    long long stride = 0;
    if (integer_field(where, strides_field, i, PyTuple_GetItem(strides, i), LLONG_MIN, LLONG_MAX,
                      kStride, &stride, NULL) < 0 ||
        scaled_stride(where, strides_field, i, stride, stride_scale, &view->strides[i]) < 0)
      return -1;
  }
  return 0;
}

/* ---- element types -------------------------------------------------------------------- */

/* "float32 or complex64": the element types a parameter accepts, for messages. */
static PyObject* accepted_names(unsigned long long accepts) {
  PyObject* text = PyUnicode_FromString("");
  for (int dtype = 0; text && dtype < TLC_PY_DT_COUNT; ++dtype) {
    if (!(accepts & TLC_PY_ACCEPTS(dtype)))
      continue;
    PyObject* longer = PyUnicode_FromFormat("%U%s%s", text, PyUnicode_GetLength(text) ? " or " : "",
                                            tlc_py_dtype_names[dtype]);
    Py_DECREF(text);
    text = longer;
  }
  return text;
}

/* The element type check (docs/python.md, "Element types"): a TypeError naming what the
   parameter takes and what the array holds, `spelled` as its protocol says it (a new reference,
   consumed). The memory can still be passed as it is: by its address, as an int. */
TLC_PY_COLD static int dtype_mismatch(const tlc_py_where* where, unsigned long long accepts,
                                      int dtype, PyObject* spelled) {
  PyObject* expected = spelled ? accepted_names(accepts) : NULL;
  if (expected) {
    if (dtype == TLC_PY_DT_OTHER)
      tlc_py_argument_error(PyExc_TypeError, where,
                            "takes an array of %U, not one of %U; to pass its memory as it is, "
                            "pass its address as an int (e.g. tensor.data_ptr())",
                            expected, spelled);
    else
      tlc_py_argument_error(PyExc_TypeError, where,
                            "takes an array of %U, not %s (%U); to pass its memory as it is, "
                            "pass its address as an int (e.g. tensor.data_ptr())",
                            expected, tlc_py_dtype_names[dtype], spelled);
  }
  Py_XDECREF(expected);
  Py_XDECREF(spelled);
  return -1;
}

/* numpy's typestr kinds and sizes: bool, integers, floats, complex; big-endian multi-byte
   elements are no element type a kernel reads. */
static int typestr_dtype(char order, char kind, unsigned size) {
  if (order == '>' && size > 1)
    return TLC_PY_DT_OTHER;
  int log2 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : size == 16 ? 4 : -1;
  switch (kind) {
  case 'b':
    return size == 1 ? TLC_PY_DT_BOOL : TLC_PY_DT_OTHER;
  case 'i':
  case 'u':
    if (log2 < 0 || log2 > 3)
      return TLC_PY_DT_OTHER;
    return TLC_PY_DT_I8 + 2 * log2 + (kind == 'u');
  case 'f':
    return size == 2   ? TLC_PY_DT_F16
           : size == 4 ? TLC_PY_DT_F32
           : size == 8 ? TLC_PY_DT_F64
                       : TLC_PY_DT_OTHER;
  case 'c':
    return size == 8 ? TLC_PY_DT_C64 : size == 16 ? TLC_PY_DT_C128 : TLC_PY_DT_OTHER;
  }
  return TLC_PY_DT_OTHER;
}

/* A DLPack dtype's element type (its lanes are elements of it). Sub-byte types are packed
   unless the producer flags them padded (DLPack 1.1). */
TLC_PY_HOT static int dlpack_dtype(DLDataType type, uint64_t flags) {
  unsigned bits = type.bits;
  int log2 = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : -1;
  int padded = (flags & TLC_DLPACK_SUBBYTE_PADDED) != 0;
  switch (type.code) {
  case kDLInt:
  case kDLUInt:
    return log2 < 0 ? TLC_PY_DT_OTHER : TLC_PY_DT_I8 + 2 * log2 + (type.code == kDLUInt);
  case kDLFloat:
    return bits == 16   ? TLC_PY_DT_F16
           : bits == 32 ? TLC_PY_DT_F32
           : bits == 64 ? TLC_PY_DT_F64
                        : TLC_PY_DT_OTHER;
  case kDLBfloat:
    return bits == 16 ? TLC_PY_DT_BF16 : TLC_PY_DT_OTHER;
  case 5: /* kDLComplex */
    return bits == 32    ? TLC_PY_DT_C32
           : bits == 64  ? TLC_PY_DT_C64
           : bits == 128 ? TLC_PY_DT_C128
                         : TLC_PY_DT_OTHER;
  case 6: /* kDLBool */
    return bits == 8 ? TLC_PY_DT_BOOL : TLC_PY_DT_OTHER;
  case TLC_DL_FLOAT6_E2M3FN:
    return bits != 6 ? TLC_PY_DT_OTHER : padded ? TLC_PY_DT_F6_E2M3FN : TLC_PY_DT_F6_E2M3FN_PACKED;
  case TLC_DL_FLOAT6_E3M2FN:
    return bits != 6 ? TLC_PY_DT_OTHER : padded ? TLC_PY_DT_F6_E3M2FN : TLC_PY_DT_F6_E3M2FN_PACKED;
  case TLC_DL_FLOAT4_E2M1FN:
    return bits != 4 ? TLC_PY_DT_OTHER : padded ? TLC_PY_DT_F4_E2M1FN : TLC_PY_DT_F4_E2M1FN_X2;
  }
  static const unsigned char float8[] = {
      TLC_PY_DT_F8_E3M4,     TLC_PY_DT_F8_E4M3, TLC_PY_DT_F8_E4M3B11FNUZ, TLC_PY_DT_F8_E4M3FN,
      TLC_PY_DT_F8_E4M3FNUZ, TLC_PY_DT_F8_E5M2, TLC_PY_DT_F8_E5M2FNUZ,    TLC_PY_DT_F8_E8M0FNU,
  };
  if (type.code >= TLC_DL_FLOAT8_E3M4 && type.code <= TLC_DL_FLOAT8_E8M0FNU && bits == 8)
    return float8[type.code - TLC_DL_FLOAT8_E3M4];
  return TLC_PY_DT_OTHER;
}

/* A torch dtype's element type, from its name ("torch.float32"): read once per dtype object
   (torch has one per dtype) and remembered. */
static int torch_dtype(tlc_py_state* state, PyObject* dtype) {
  for (int i = 0; i < state->torch_dtype_count; ++i)
    if (state->torch_dtypes[i] == dtype)
      return state->torch_dtype_codes[i];
  PyObject* text = PyObject_Str(dtype);
  const char* name = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
  int code = TLC_PY_DT_OTHER;
  if (name && strncmp(name, "torch.", 6) == 0)
    for (int candidate = 1; candidate < TLC_PY_DT_COUNT; ++candidate)
      if (strcmp(name + 6, tlc_py_dtype_names[candidate]) == 0)
        code = candidate;
  Py_XDECREF(text);
  if (!name)
    return -1;
  if (state->torch_dtype_count < TLC_PY_DTYPE_CACHE) {
    Py_INCREF(dtype);
    state->torch_dtypes[state->torch_dtype_count] = dtype;
    state->torch_dtype_codes[state->torch_dtype_count++] = (unsigned char)code;
  }
  return code;
}

static int check_torch_dtype(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                             const tlc_py_type_info* info, unsigned long long accepts) {
  PyObject* dtype = info->get_dtype
                        ? info->get_dtype(info->dtype, object, (PyObject*)Py_TYPE(object))
                        : PyObject_GetAttr(object, state->strings.dtype);
  if (!dtype)
    return -1;
  int code = torch_dtype(state, dtype);
  int result = code < 0 ? -1 : 0;
  if (code >= 0 && !(accepts & TLC_PY_ACCEPTS(code)))
    result = dtype_mismatch(where, accepts, code, PyObject_Str(dtype));
  Py_DECREF(dtype);
  return result;
}

/* ---- torch ------------------------------------------------------------------------------ */

/* `method()`'s int result: the tensor's own methods, checked like any producer's fields.
   `function` is the type's method (a call without looking it up), or NULL. */
static int call_for_int(const tlc_py_where* where, PyObject* object, PyObject* function,
                        PyObject* method, const char* field, long long min, unsigned long long max,
                        const char* what, long long* as_signed, unsigned long long* as_unsigned) {
  PyObject* result = function ? PyObject_CallFunctionObjArgs(function, object, NULL)
                              : PyObject_CallMethodObjArgs(object, method, NULL);
  if (!result)
    return -1;
  int status = integer_field(where, field, -1, result, min, max, what, as_signed, as_unsigned);
  Py_DECREF(result);
  return status;
}

static int read_torch(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                      const tlc_py_type_info* info, const array_request* request,
                      array_view* view) {
  long long device = 0;
  if (call_for_int(where, object, info->get_device, state->strings.get_device, "get_device()", -1,
                   INT_MAX, "a device (-1 for the CPU, or a CUDA ordinal)", &device, NULL) < 0)
    return -1;
  if (device < 0)
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "is a tensor outside CUDA memory (on the CPU or the meta "
                                 "device); pass a CUDA tensor");
  view->device = (int)device;
  if (call_for_int(where, object, info->data_ptr, state->strings.data_ptr, "data_ptr()", 0,
                   UINT64_MAX, kAddress, NULL, &view->address) < 0)
    return -1;
  if (request->accepts != TLC_PY_ACCEPTS_ANY &&
      check_torch_dtype(state, where, object, info, request->accepts) < 0)
    return -1;
  if (!request->layout)
    return 0;
  long long itemsize = 0;
  if (call_for_int(where, object, NULL, state->strings.element_size, "element_size()", 1,
                   MAX_ITEMSIZE, "an element size (1 to 65535 bytes)", &itemsize, NULL) < 0)
    return -1;
  view->itemsize = (unsigned)itemsize;
  PyObject* shape = PyObject_GetAttr(object, state->strings.shape);
  PyObject* strides =
      shape ? PyObject_CallMethodObjArgs(object, state->strings.stride, NULL) : NULL;
  int result = shape && strides
                   ? read_layout_tuple(where, "shape", "stride()", shape, strides, itemsize, view)
                   : -1;
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  return result;
}

/* ---- __cuda_array_interface__ ----------------------------------------------------------- */

/* The device of an array that says so through __dlpack_device__; -1 if it does not. */
static int dlpack_device_of(tlc_py_state* state, PyObject* object) {
  PyObject* method = PyObject_GetAttr(object, state->strings.dlpack_device);
  PyObject* pair = method ? PyObject_CallNoArgs(method) : NULL;
  Py_XDECREF(method);
  int device = -1;
  if (pair && PyTuple_Check(pair) && PyTuple_Size(pair) == 2) {
    long type = PyLong_AsLong(PyTuple_GetItem(pair, 0));
    long id = PyLong_AsLong(PyTuple_GetItem(pair, 1));
    if ((type == kDLCUDA || type == kDLCUDAManaged) && id >= 0 && id <= INT_MAX)
      device = (int)id;
  }
  Py_XDECREF(pair);
  PyErr_Clear();
  return device;
}

#define CAI "__cuda_array_interface__"

/* `key` of the interface dict: a borrowed reference, NULL when absent (no exception) or on
   error (an exception). */
static PyObject* interface_item(PyObject* interface, PyObject* key) {
  return PyDict_GetItemWithError(interface, key);
}

/* data = (address, read_only). */
static int interface_data(const tlc_py_where* where, PyObject* data, array_view* view) {
  if (!data) {
    if (!PyErr_Occurred())
      tlc_py_argument_error(PyExc_TypeError, where,
                            "has a " CAI " without 'data' (address, read_only)");
    return -1;
  }
  if (!PyTuple_Check(data) || PyTuple_Size(data) != 2)
    return field_error(PyExc_TypeError, where, CAI "['data']", -1,
                       "= %R; it must be a tuple (address, read_only)", data);
  if (address_field(where, CAI "['data'][0]", PyTuple_GetItem(data, 0), &view->address) < 0)
    return -1;
  PyObject* read_only = PyTuple_GetItem(data, 1);
  if (!PyBool_Check(read_only))
    return field_error(PyExc_TypeError, where, CAI "['data'][1]", -1,
                       "= %R; it must be a bool (whether the array is read-only)", read_only);
  view->read_only = read_only == Py_True;
  return 0;
}

/* stream: None, or the stream the data is ready on. The interface allows 1 (the legacy default
   stream), 2 (the per-thread default stream) and any cudaStream_t; it disallows 0, which is
   read as C's NULL, the legacy default stream. */
static int interface_stream(const tlc_py_where* where, PyObject* stream, array_view* view) {
  if (!stream || stream == Py_None)
    return PyErr_Occurred() ? -1 : 0;
  unsigned long long handle = 0;
  if (integer_field(where, CAI "['stream']", -1, stream, 0, UINT64_MAX,
                    "a stream: None, 1 (the legacy default stream), 2 (the per-thread default "
                    "stream) or a cudaStream_t's address",
                    NULL, &handle) < 0)
    return -1;
  view->has_stream = 1;
  view->stream = (CUstream)(uintptr_t)handle;
  return 0;
}

/* A typestr: byte order (<, >, |, =), kind and size in bytes, "<f4"; `field` says where it came
   from, for messages. */
static int parse_typestr(const tlc_py_where* where, const char* field, PyObject* typestr,
                         char* order, char* kind, unsigned* size) {
  Py_ssize_t length = 0;
  const char* text = PyUnicode_Check(typestr) ? PyUnicode_AsUTF8AndSize(typestr, &length) : NULL;
  if (!text) {
    PyErr_Clear();
    PyObject* type = tlc_py_type_name(typestr);
    field_error(PyExc_TypeError, where, field, -1, "of type %U; it must be a str such as '<f4'",
                type);
    Py_DECREF(type);
    return -1;
  }
  unsigned long bytes = 0;
  int valid = length >= 3 && length <= 7 && text[0] && strchr("<>|=", text[0]) && text[1] &&
              strchr("tbiufcmMOSUV", text[1]);
  for (Py_ssize_t i = 2; valid && i < length; ++i) {
    valid = text[i] >= '0' && text[i] <= '9';
    bytes = bytes * 10 + (unsigned long)(text[i] - '0');
  }
  if (!valid || bytes == 0 || bytes > MAX_ITEMSIZE)
    return field_error(PyExc_ValueError, where, field, -1,
                       "= %R; it must be a byte order (<, >, |, =), a kind and a size from 1 to "
                       "65535 bytes, such as '<f4'",
                       typestr);
  *order = text[0];
  *kind = text[1];
  *size = (unsigned)bytes;
  return 0;
}

static int interface_typestr(const tlc_py_where* where, PyObject* typestr, char* order, char* kind,
                             unsigned* size) {
  if (!typestr) {
    if (!PyErr_Occurred())
      tlc_py_argument_error(PyExc_TypeError, where, "has a " CAI " without 'typestr'");
    return -1;
  }
  return parse_typestr(where, CAI "['typestr']", typestr, order, kind, size);
}

static int read_interface(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                          const tlc_py_type_info* info, const array_request* request, int first,
                          array_view* view) {
  PyObject* given = PyObject_GetAttr(object, state->strings.cuda_array_interface);
  if (!given)
    return -1;
  if (!PyDict_Check(given)) {
    PyObject* type = tlc_py_type_name(given);
    tlc_py_argument_error(PyExc_TypeError, where, "has a " CAI " of type %U; it must be a dict",
                          type);
    Py_DECREF(type);
    Py_DECREF(given);
    return -1;
  }
  /* Its items are read as borrowed references while Python code runs (an item's __index__),
     which may empty the producer's dict and free them: a copy of the dict keeps each alive
     until the reading is done (test/fuzz found it). */
  PyObject* interface = PyDict_Copy(given);
  Py_DECREF(given);
  if (!interface)
    return -1;
  int result = -1;
  if (interface_data(where, interface_item(interface, state->strings.data), view) < 0)
    goto done;
  PyObject* mask = interface_item(interface, state->strings.mask);
  if (mask && mask != Py_None) {
    tlc_py_argument_error(PyExc_ValueError, where,
                          "is a masked array (" CAI " has a mask), which a kernel cannot read as "
                          "such");
    goto done;
  }
  if (PyErr_Occurred() ||
      interface_stream(where, interface_item(interface, state->strings.stream), view) < 0)
    goto done;
  if (first && info->dlpack_device) /* only the first array decides the device */
    view->device = dlpack_device_of(state, object);
  if (request->layout || request->accepts != TLC_PY_ACCEPTS_ANY) {
    char order = 0, kind = 0;
    PyObject* typestr = interface_item(interface, state->strings.typestr);
    if (interface_typestr(where, typestr, &order, &kind, &view->itemsize) < 0)
      goto done;
    int dtype = typestr_dtype(order, kind, view->itemsize);
    if (!(request->accepts & TLC_PY_ACCEPTS(dtype))) {
      dtype_mismatch(where, request->accepts, dtype, PyUnicode_FromFormat("typestr %R", typestr));
      goto done;
    }
  }
  if (request->layout) {
    PyObject* shape = interface_item(interface, state->strings.shape);
    if (!shape) {
      if (!PyErr_Occurred())
        tlc_py_argument_error(PyExc_TypeError, where, "has a " CAI " without 'shape'");
      goto done;
    }
    PyObject* strides = interface_item(interface, state->strings.strides);
    if (!strides && PyErr_Occurred())
      goto done;
    if (read_layout_tuple(where, CAI "['shape']", CAI "['strides']", shape,
                          strides == Py_None ? NULL : strides, 1, view) < 0)
      goto done;
  }
  result = 0;
done:
  Py_DECREF(interface);
  return result;
}

/* ---- CuPy arrays ------------------------------------------------------------------------ */

/* A CuPy array's dtype: its element type and size, from its typestr (dtype.str, '<f4') read once
   per dtype object (numpy has one per builtin dtype) and remembered. */
static int cupy_dtype(tlc_py_state* state, const tlc_py_where* where, PyObject* dtype, int* code,
                      unsigned* size) {
  for (int i = 0; i < state->cupy_dtype_count; ++i)
    if (state->cupy_dtypes[i] == dtype) {
      *code = state->cupy_dtype_codes[i];
      *size = state->cupy_dtype_sizes[i];
      return 0;
    }
  PyObject* typestr = PyObject_GetAttr(dtype, state->strings.str);
  char order = 0, kind = 0;
  int result = typestr ? parse_typestr(where, "dtype.str", typestr, &order, &kind, size) : -1;
  Py_XDECREF(typestr);
  if (result < 0)
    return -1;
  *code = typestr_dtype(order, kind, *size);
  if (state->cupy_dtype_count < TLC_PY_DTYPE_CACHE) {
    Py_INCREF(dtype);
    state->cupy_dtypes[state->cupy_dtype_count] = dtype;
    state->cupy_dtype_codes[state->cupy_dtype_count] = (unsigned char)*code;
    state->cupy_dtype_sizes[state->cupy_dtype_count++] = (unsigned short)*size;
  }
  return 0;
}

/* data = a MemoryPointer: its address and device. */
static int cupy_data(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                     array_view* view) {
  PyObject* data = PyObject_GetAttr(object, state->strings.data);
  PyObject* address = data ? PyObject_GetAttr(data, state->strings.ptr) : NULL;
  PyObject* device = address ? PyObject_GetAttr(data, state->strings.device_id) : NULL;
  long long ordinal = 0;
  int result = device && address_field(where, "data.ptr", address, &view->address) == 0 &&
                       integer_field(where, "data.device_id", -1, device, 0, INT_MAX,
                                     "a device ordinal", &ordinal, NULL) == 0
                   ? 0
                   : -1;
  view->device = (int)ordinal;
  Py_XDECREF(device);
  Py_XDECREF(address);
  Py_XDECREF(data);
  return result;
}

static int read_cupy(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                     const array_request* request, array_view* view) {
  if (cupy_data(state, where, object, view) < 0)
    return -1;
  /* As CuPy's interface says it: its default stream (0 here) as the legacy one, 1. */
  intptr_t stream = state->cupy_current_stream();
  view->has_stream = 1;
  view->stream = (CUstream)(stream ? stream : (intptr_t)CU_STREAM_LEGACY);
  if (!request->layout && request->accepts == TLC_PY_ACCEPTS_ANY)
    return 0;
  PyObject* dtype = PyObject_GetAttr(object, state->strings.dtype);
  int code = 0;
  int result = dtype ? cupy_dtype(state, where, dtype, &code, &view->itemsize) : -1;
  if (result == 0 && !(request->accepts & TLC_PY_ACCEPTS(code))) {
    PyObject* typestr = PyObject_GetAttr(dtype, state->strings.str);
    result = dtype_mismatch(where, request->accepts, code,
                            typestr ? PyUnicode_FromFormat("dtype %R", typestr) : NULL);
    Py_XDECREF(typestr);
  }
  Py_XDECREF(dtype);
  if (result < 0 || !request->layout)
    return result;
  PyObject* shape = PyObject_GetAttr(object, state->strings.shape);
  PyObject* strides = shape ? PyObject_GetAttr(object, state->strings.strides) : NULL;
  result =
      shape && strides ? read_layout_tuple(where, "shape", "strides", shape, strides, 1, view) : -1;
  Py_XDECREF(strides);
  Py_XDECREF(shape);
  return result;
}

/* ---- DLPack ----------------------------------------------------------------------------- */

/* Calls __dlpack__(stream=..., max_version=(1, 0)), or without max_version for producers that
   predate DLPack 1.0. `stream` is what the launch will use: the producer makes its data ready
   there (None when the launch's stream is not decided yet: the legacy default stream). */
static PyObject* export_dlpack(tlc_py_state* state, PyObject* object, const tlc_py_type_info* info,
                               PyObject* stream) {
  PyObject* method = PyObject_GetAttr(object, state->strings.dlpack);
  if (!method)
    return NULL;
  PyObject* keywords = PyDict_New();
  PyObject* capsule = NULL;
  if (keywords && PyDict_SetItem(keywords, state->strings.stream, stream) == 0) {
    if (!info->legacy_dlpack &&
        PyDict_SetItem(keywords, state->strings.max_version, state->dlpack_max_version) == 0) {
      capsule = PyObject_Call(method, state->empty_tuple, keywords);
      if (!capsule && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* A producer from before DLPack 1.0: asked without max_version from now on. */
        PyErr_Clear();
        learn_legacy_dlpack(state, (PyObject*)Py_TYPE(object));
        PyDict_DelItem(keywords, state->strings.max_version);
        capsule = PyObject_Call(method, state->empty_tuple, keywords);
      }
    } else if (info->legacy_dlpack) {
      capsule = PyObject_Call(method, state->empty_tuple, keywords);
    }
  }
  Py_XDECREF(keywords);
  Py_DECREF(method);
  return capsule;
}

#define DL "DLPack "

/* Where the tensor is: CUDA memory (a device's, managed or pinned host memory), data plus
   byte_offset within the address space. */
static int dltensor_address(const tlc_py_where* where, const DLTensor* tensor, array_view* view) {
  DLDeviceType type = tensor->device.device_type;
  if (type != kDLCUDA && type != kDLCUDAManaged && type != kDLCUDAHost)
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "is not in CUDA memory (DLPack device type %d); pass a CUDA "
                                 "array",
                                 (int)type);
  if (type != kDLCUDAHost && tensor->device.device_id < 0)
    return field_error(PyExc_ValueError, where, DL "device_id", -1,
                       "= %d, which is not a device ordinal", tensor->device.device_id);
  uint64_t data = (uint64_t)(uintptr_t)tensor->data;
  if (__builtin_add_overflow(data, tensor->byte_offset, &view->address))
    return field_error(PyExc_ValueError, where, DL "byte_offset", -1,
                       "= %llu, which takes data (%p) beyond the address space",
                       (unsigned long long)tensor->byte_offset, tensor->data);
  view->device = type == kDLCUDAHost ? -1 : tensor->device.device_id;
  return 0;
}

/* ndim, shape, strides (NULL: compact, in elements) and the element size from dtype. */
static int dltensor_layout(const tlc_py_where* where, const DLTensor* tensor, array_view* view) {
  if (tensor->ndim < 0)
    return field_error(PyExc_ValueError, where, DL "ndim", -1, "= %d, which is negative",
                       tensor->ndim);
  if (tensor->ndim > MAX_RANK)
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "has %d dimensions; a tensor map takes at most %d", tensor->ndim,
                                 MAX_RANK);
  if (tensor->ndim > 0 && !tensor->shape)
    return field_error(PyExc_ValueError, where, DL "shape", -1, "= NULL with ndim %d",
                       tensor->ndim);
  unsigned bits = (unsigned)tensor->dtype.bits * tensor->dtype.lanes;
  if (bits == 0)
    return field_error(PyExc_ValueError, where, DL "dtype", -1,
                       "with %u bits and %u lanes, which is no element type",
                       (unsigned)tensor->dtype.bits, (unsigned)tensor->dtype.lanes);
  view->ndim = tensor->ndim;
  view->itemsize = bits / 8; /* packed sub-byte elements: 0, which no tensor map takes */
  view->strides_field = DL "strides";
  for (int i = 0; i < tensor->ndim; ++i) {
    if (tensor->shape[i] < 0)
      return field_error(PyExc_ValueError, where, DL "shape", i, "= %lld, which is negative",
                         (long long)tensor->shape[i]);
    view->shape[i] = (unsigned long long)tensor->shape[i];
  }
  if (!tensor->strides)
    return compact_strides(where, DL "shape", view);
  for (int i = 0; i < tensor->ndim; ++i)
    if (scaled_stride(where, DL "strides", i, (long long)tensor->strides[i],
                      (long long)view->itemsize, &view->strides[i]) < 0)
      return -1;
  return 0;
}

static int read_dlpack(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                       const tlc_py_type_info* info, const array_request* request,
                       const tlc_py_defaults* defaults, array_view* view) {
  PyObject* stream;
  if (defaults->stream_known)
    /* DLPack spells the legacy default stream 1 (0 is ambiguous there). */
    stream = PyLong_FromUnsignedLongLong(defaults->stream ? (uintptr_t)defaults->stream : 1);
  else
    stream = (Py_INCREF(Py_None), Py_None);
  PyObject* capsule = stream ? export_dlpack(state, object, info, stream) : NULL;
  Py_XDECREF(stream);
  if (!capsule)
    return -1;
  const DLTensor* tensor = NULL;
  uint64_t flags = 0;
  int result = -1;
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    tlc_dlpack_versioned* managed = PyCapsule_GetPointer(capsule, "dltensor_versioned");
    if (managed->version.major != 1) {
      tlc_py_argument_error(PyExc_ValueError, where,
                            "exports DLPack %u.%u; this tlc reads DLPack 1.x and 0.x",
                            managed->version.major, managed->version.minor);
      goto done;
    }
    tensor = &managed->dl_tensor;
    flags = managed->flags;
    view->read_only = (flags & TLC_DLPACK_READ_ONLY) != 0;
  } else if (PyCapsule_IsValid(capsule, "dltensor")) {
    tensor = &((DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor"))->dl_tensor;
  } else {
    tlc_py_argument_error(PyExc_TypeError, where,
                          "returned something other than a DLPack capsule from __dlpack__");
    goto done;
  }
  if (dltensor_address(where, tensor, view) < 0 ||
      (request->layout && dltensor_layout(where, tensor, view) < 0))
    goto done;
  int dtype = dlpack_dtype(tensor->dtype, flags);
  if (!(request->accepts & TLC_PY_ACCEPTS(dtype))) {
    dtype_mismatch(where, request->accepts, dtype,
                   PyUnicode_FromFormat("DLPack code %u, %u bits", (unsigned)tensor->dtype.code,
                                        (unsigned)tensor->dtype.bits));
    goto done;
  }
  result = 0;
done:
  Py_DECREF(capsule); /* not consumed: its destructor calls the producer's deleter */
  return result;
}

/* ---- DLPack's C exchange API ----------------------------------------------------------- */

/* After a read that failed where another way may read the array instead: whether the exception
   it left is not the array's to answer and goes on to the caller (an interrupt, an exit, memory
   exhausted); any other is cleared. */
static int passes_on(void) {
  if (PyErr_Occurred() &&
      (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) ||
       PyErr_ExceptionMatches(PyExc_SystemExit) || PyErr_ExceptionMatches(PyExc_MemoryError)))
    return 1;
  PyErr_Clear();
  return 0;
}

/* The array through its type's exchange API: one C call fills a DLTensor view (torch: no
   Python call, where data_ptr(), get_device() and dtype are three). Where the type has another
   way too (torch's methods, __dlpack__), only what that way would accept is taken from here
   (`quiet`): anything else (a failure, memory outside a device, a dtype the parameter refuses)
   returns 1 with no exception set, and the other way reads the array again and says what is
   wrong in its own words. Without another way, the same is an error here (-1). */
static int read_exchange(const tlc_py_where* where, PyObject* object,
                         const struct tlc_dlpack_exchange_api* exchange,
                         const array_request* request, int quiet, array_view* view) {
  DLTensor tensor;
  if (exchange->dltensor_from_py_object_no_sync(object, &tensor) != 0) {
    if (!quiet)
      return PyErr_Occurred() ? -1
                              : tlc_py_argument_error(PyExc_TypeError, where,
                                                      "has a __dlpack_c_exchange_api__ that "
                                                      "could not read it");
    return passes_on() ? -1 : 1;
  }
  int type = tensor.device.device_type;
  int dtype = dlpack_dtype(tensor.dtype, 0);
  if (quiet &&
      ((type != kDLCUDA && type != kDLCUDAManaged) || !(request->accepts & TLC_PY_ACCEPTS(dtype))))
    return 1;
  if (dltensor_address(where, &tensor, view) < 0 ||
      (request->layout && dltensor_layout(where, &tensor, view) < 0)) {
    if (!quiet)
      return -1;
    PyErr_Clear();
    return 1;
  }
  if (!(request->accepts & TLC_PY_ACCEPTS(dtype)))
    return dtype_mismatch(where, request->accepts, dtype,
                          PyUnicode_FromFormat("DLPack code %u, %u bits",
                                               (unsigned)tensor.dtype.code,
                                               (unsigned)tensor.dtype.bits));
  return 0;
}

/* ---- the launch's device and stream ----------------------------------------------------- */

static int torch_stream(tlc_py_state* state, int device, CUstream* stream);

/* The first array decides the defaults; every array that knows its device must be on the
   launch's. */
static int apply_defaults(tlc_py_state* state, const tlc_py_where* where, int kind,
                          const struct tlc_dlpack_exchange_api* exchange, const array_view* view,
                          tlc_py_defaults* defaults, int first) {
  if (view->device >= 0) {
    if (defaults->device < 0) {
      defaults->device = view->device;
    } else if (view->device != defaults->device) {
      return tlc_py_argument_error(
          PyExc_ValueError, where, "is on device %d, but the launch is on device %d (%s)",
          view->device, defaults->device,
          defaults->device_given ? "device=" : "the device of the first array argument");
    }
  }
  if (!first || defaults->stream_known)
    return 0;
  if (kind == ARRAY_EXCHANGE) {
    /* The framework's current stream on the launch's device, as torch's is below; none for
       host memory (the legacy default stream). */
    void* current = NULL;
    if (defaults->device < 0)
      return 0;
    if (exchange->current_work_stream(kDLCUDA, defaults->device, &current) != 0) {
      if (!PyErr_Occurred())
        tlc_py_argument_error(PyExc_RuntimeError, where,
                              "'s framework could not say its current stream");
      return -1;
    }
    defaults->stream_known = 1;
    defaults->stream = (CUstream)current;
  } else if (kind == ARRAY_TORCH) {
    /* Read now, so that DLPack arguments after this one are asked for this stream too. */
    if (torch_stream(state, defaults->device, &defaults->stream) < 0)
      return -1;
    defaults->stream_known = 1;
  } else if (view->has_stream || kind == ARRAY_DLPACK) {
    /* A DLPack producer was asked for its data on the legacy default stream (stream=None). */
    defaults->stream_known = 1;
    defaults->stream = view->stream;
  }
  return 0;
}

static int read_array(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                      const tlc_py_type_info* info, const array_request* request,
                      tlc_py_defaults* defaults, array_view* view) {
  int first = !defaults->array_seen;
  int kind = info->kind;
  int result = -1;
  int exchanged = info->exchange && kind != ARRAY_EXCHANGE
                      ? read_exchange(where, object, info->exchange, request, 1, view)
                      : 1;
  if (exchanged < 0)
    return -1;
  if (exchanged == 0) {
    kind = ARRAY_EXCHANGE;
    result = 0;
  } else {
    memset(view, 0, sizeof *view); /* what a declined read_exchange left */
    view->device = -1;
    switch (kind) {
    case ARRAY_TORCH:
      result = read_torch(state, where, object, info, request, view);
      break;
    case ARRAY_CUPY:
      result = read_cupy(state, where, object, request, view);
      break;
    case ARRAY_CAI:
      result = read_interface(state, where, object, info, request, first, view);
      break;
    case ARRAY_DLPACK:
      result = read_dlpack(state, where, object, info, request, defaults, view);
      break;
    case ARRAY_EXCHANGE:
      result = read_exchange(where, object, info->exchange, request, 0, view);
      break;
    }
  }
  if (result < 0)
    return -1;
  defaults->array_seen = 1;
  return apply_defaults(state, where, kind, info->exchange, view, defaults, first);
}

/* An address through the DLPack exchange API of a type the cache knows (torch from 2.10 on:
   the usual case, read without classify()'s copy). The API is the producer's C code, which may
   yet run Python that launches and replaces the cache entry: only the API's pointer is taken
   from the entry, and its capsule held, which keeps the table alive meanwhile. 0, -1 (an
   error), or 1 where the API declined an array whose type has another way to read it, which
   then says what is wrong (read_array). */
static int exchange_address(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                            const tlc_py_type_info* known, unsigned long long accepts,
                            tlc_py_defaults* defaults, void** address) {
  const struct tlc_dlpack_exchange_api* exchange = known->exchange;
  int quiet = known->kind != ARRAY_EXCHANGE;
  PyObject* capsule = Py_NewRef(known->exchange_capsule);
  array_view view = {0};
  view.device = -1;
  array_request request = {0, accepts};
  int first = !defaults->array_seen;
  int result = read_exchange(where, object, exchange, &request, quiet, &view);
  if (result == 0) {
    defaults->array_seen = 1;
    result = apply_defaults(state, where, ARRAY_EXCHANGE, exchange, &view, defaults, first);
  }
  /* (The API's DLTensor carries no flags: it never says an array is read-only.) */
  *address = (void*)(uintptr_t)view.address;
  Py_DECREF(capsule);
  return result;
}

/* The call-site path's arrays: those of a type the cache knows to have DLPack's exchange API,
   read as exchange_address reads them, and taken only where that read would succeed with this
   address: CUDA memory on the launch's device, of an element type the parameter takes. A read
   of the API that fails with an exception the general path would raise from it raises it here
   (-1), so that a failure that would not repeat is not lost; any other outcome declines without
   an exception (1), and the general path reads the array again (the API's read has no effect to
   repeat) and says what is wrong in its usual words. */
TLC_PY_HOT int tlc_py_usual_array(tlc_py_state* state, PyObject* object, unsigned long long accepts,
                                  tlc_py_defaults* defaults, void** address) {
  const tlc_py_type_info* known = cached_type(state, object);
  if (!known || !known->exchange)
    return 1;
  const struct tlc_dlpack_exchange_api* exchange = known->exchange;
  int only_way = known->kind == ARRAY_EXCHANGE;
  PyObject* capsule = Py_NewRef(known->exchange_capsule); /* the table, while its code runs */
  int result = 1;
  DLTensor tensor;
  if (exchange->dltensor_from_py_object_no_sync(object, &tensor) != 0) {
    /* The exception the general path would raise from this read: for a type the API is the
       only way to read, any; for one with another way, only those it does not clear. Without
       one, the general path reads again and words the failure. */
    if (only_way ? PyErr_Occurred() != NULL : passes_on())
      result = -1;
    goto done;
  }
  int type = tensor.device.device_type;
  int device = tensor.device.device_id;
  uint64_t data = (uint64_t)(uintptr_t)tensor.data;
  uint64_t start = 0;
  if ((type != kDLCUDA && type != kDLCUDAManaged) || device < 0 ||
      !(accepts & TLC_PY_ACCEPTS(dlpack_dtype(tensor.dtype, 0))) ||
      __builtin_add_overflow(data, tensor.byte_offset, &start) ||
      (defaults->device >= 0 && device != defaults->device))
    goto done;
  if (!defaults->stream_known) { /* the first array: it decides the stream */
    void* current = NULL;
    if (exchange->current_work_stream(kDLCUDA, device, &current) != 0) {
      if (PyErr_Occurred())
        result = -1; /* as the general path raises it */
      goto done;
    }
    defaults->stream_known = 1;
    defaults->stream = (CUstream)current;
  }
  defaults->device = device;
  defaults->array_seen = 1;
  *address = (void*)(uintptr_t)start;
  result = 0;
done:
  Py_DECREF(capsule);
  return result;
}

int tlc_py_address(tlc_py_state* state, const tlc_py_where* where, PyObject* object, int writable,
                   unsigned long long accepts, tlc_py_defaults* defaults, void** address) {
  unsigned long long value = 0;
  if (PyLong_CheckExact(object)) { /* an address as is */
    if (tlc_py_unsigned(where, object, UINT64_MAX, &value) < 0)
      return -1;
    *address = (void*)(uintptr_t)value;
    return 0;
  }
  if (object == Py_None) {
    *address = NULL;
    return 0;
  }
  if (PyBool_Check(object))
    return unsupported(where, object, 1);
  const tlc_py_type_info* known = cached_type(state, object);
  if (known && known->exchange) {
    int read = exchange_address(state, where, object, known, accepts, defaults, address);
    if (read <= 0)
      return read;
  }
  tlc_py_type_info info;
  classify(state, object, &info);
  int result = 0;
  if (info.kind == ARRAY_NONE) {
    result = unsupported(where, object, 1);
  } else if (info.kind == ARRAY_INDEX) {
    result = tlc_py_unsigned(where, object, UINT64_MAX, &value);
    *address = (void*)(uintptr_t)value;
  } else {
    array_view view = {0};
    view.device = -1;
    array_request request = {0, accepts};
    result = read_array(state, where, object, &info, &request, defaults, &view);
    if (result == 0 && writable && view.read_only)
      result = tlc_py_argument_error(PyExc_ValueError, where,
                                     "points to data the kernel may write (the pointee is not "
                                     "const), but the array is read-only");
    *address = (void*)(uintptr_t)view.address;
  }
  release_info(&info);
  return result;
}

int tlc_py_tensor(tlc_py_state* state, const tlc_py_where* where, const tlc_py_param* param,
                  PyObject* object, tlc_py_defaults* defaults, tlc_tensor* tensor) {
  if (PyBool_Check(object))
    return unsupported(where, object, 0);
  tlc_py_type_info info;
  classify(state, object, &info);
  int kind = info.kind;
  array_view view = {0};
  view.device = -1;
  array_request request = {1, TLC_PY_ACCEPTS_ANY};
  int result;
  if (kind == ARRAY_NONE || kind == ARRAY_INDEX)
    result = unsupported(where, object, 0);
  else if (param->size < 8)
    result = tlc_py_argument_error(PyExc_TypeError, where,
                                   "is a tensor map of packed %u-bit elements, which Python "
                                   "callers cannot describe yet; call the C launcher",
                                   param->size);
  else
    result = read_array(state, where, object, &info, &request, defaults, &view);
  release_info(&info);
  if (result < 0)
    return -1;
  if ((unsigned)view.ndim != param->rank)
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "has %d dimension%s; the tensor map takes %u", view.ndim,
                                 view.ndim == 1 ? "" : "s", param->rank);
  if (view.itemsize * 8 != param->size)
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "has %u-byte elements; the tensor map's are %u-byte",
                                 view.itemsize, param->size / 8);
  memset(tensor, 0, sizeof *tensor);
  tensor->data = (void*)(uintptr_t)view.address;
  /* tlc_tensor lists the innermost dimension first; arrays list it last. */
  for (int i = 0; i < view.ndim; ++i) {
    int axis = view.ndim - 1 - i;
    tensor->dims[i] = view.shape[axis];
    if (i == 0)
      continue;
    if (view.strides[axis] < 0)
      return field_error(PyExc_ValueError, where, view.strides_field, axis,
                         "< 0: a tensor map cannot read negative strides");
    tensor->strides[i - 1] = (uint64_t)view.strides[axis];
  }
  return 0;
}

/* torch's current stream on the launch's device (the stream torch itself would launch on,
   which is also the capturing stream under torch.cuda.graph). */
static int torch_stream(tlc_py_state* state, int device, CUstream* stream) {
  if (!state->torch_current_stream) {
    PyObject* module = PyImport_ImportModule("torch._C");
    if (!module)
      return -1;
    state->torch_current_stream = PyObject_GetAttrString(module, "_cuda_getCurrentRawStream");
    Py_DECREF(module);
    if (!state->torch_current_stream)
      return -1;
  }
  PyObject* index = PyLong_FromLong(device);
  PyObject* handle =
      index ? PyObject_CallFunctionObjArgs(state->torch_current_stream, index, NULL) : NULL;
  Py_XDECREF(index);
  if (!handle)
    return -1;
  unsigned long long value = PyLong_AsUnsignedLongLong(handle);
  Py_DECREF(handle);
  if (value == (unsigned long long)-1 && PyErr_Occurred())
    return -1;
  *stream = (CUstream)(uintptr_t)value;
  return 0;
}
