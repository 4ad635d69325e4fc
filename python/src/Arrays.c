/* Device addresses from Python objects: torch tensors (data_ptr, get_device: two C method calls,
 * no dict), objects with __cuda_array_interface__ (CuPy, Numba, ...), DLPack producers, and
 * plain integers. How a type gives its address is decided once per type and cached. The first
 * array argument also decides the launch's default device and stream (docs/python.md). Torch is
 * never imported here: it is looked up only once an argument is one of its tensors. */
#include "Binding.h"

#include <dlpack/dlpack.h>

#include <stdlib.h>
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

#define MAX_RANK 5 /* a tensor map's most dimensions */

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
} array_view;

static int unsupported(const tlc_py_where* where, PyObject* object, int ints) {
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

/* On the type first: a property there (CuPy's, Numba's) is not evaluated. */
static int has_attribute(PyObject* object, PyObject* name) {
  return PyObject_HasAttr((PyObject*)Py_TYPE(object), name) || PyObject_HasAttr(object, name);
}

static int classify(tlc_py_state* state, PyObject* object) {
  PyObject* type = (PyObject*)Py_TYPE(object);
  if (type == state->torch_tensor)
    return ARRAY_TORCH;
  for (int i = 0; i < TLC_PY_TYPE_CACHE; ++i)
    if (state->cached_types[i] == type)
      return state->cached_kinds[i];
  int kind = ARRAY_NONE;
  if (is_torch_tensor(state, object))
    kind = ARRAY_TORCH;
  else if (has_attribute(object, state->strings.cuda_array_interface))
    kind = ARRAY_CAI;
  else if (has_attribute(object, state->strings.dlpack))
    kind = ARRAY_DLPACK;
  else if (PyIndex_Check(object) && !PyBool_Check(object))
    kind = ARRAY_INDEX;
  if (kind == ARRAY_NONE)
    return kind;
  int slot = state->next_cached;
  state->next_cached = (slot + 1) % TLC_PY_TYPE_CACHE;
  Py_INCREF(type);
  Py_XDECREF(state->cached_types[slot]);
  state->cached_types[slot] = type;
  state->cached_kinds[slot] = (unsigned char)kind;
  return kind;
}

/* ---- reading each kind ------------------------------------------------------------------ */

static int unsigned_of(const tlc_py_where* where, PyObject* number, unsigned long long* value) {
  return tlc_py_unsigned(where, number, UINT64_MAX, value);
}

/* Row-major strides in bytes for `shape`. */
static void compact_strides(array_view* view) {
  long long stride = view->itemsize;
  for (int i = view->ndim - 1; i >= 0; --i) {
    view->strides[i] = stride;
    stride *= (long long)view->shape[i];
  }
}

static int read_layout_tuple(const tlc_py_where* where, PyObject* shape, PyObject* strides,
                             long long stride_scale, array_view* view) {
  if (!PyTuple_Check(shape) || (strides && !PyTuple_Check(strides)))
    return tlc_py_argument_error(PyExc_TypeError, where,
                                 "has a shape or strides that are not "
                                 "tuples");
  Py_ssize_t ndim = PyTuple_Size(shape);
  if (ndim > MAX_RANK || (strides && PyTuple_Size(strides) != ndim))
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "has %zd dimensions; a tensor map takes at most %d", ndim,
                                 MAX_RANK);
  view->ndim = (int)ndim;
  for (Py_ssize_t i = 0; i < ndim; ++i) {
    if (unsigned_of(where, PyTuple_GetItem(shape, i), &view->shape[i]) < 0)
      return -1;
    if (!strides)
      continue;
    long long stride = PyLong_AsLongLong(PyTuple_GetItem(strides, i));
    if (stride == -1 && PyErr_Occurred())
      return -1;
    view->strides[i] = stride * stride_scale;
  }
  if (!strides)
    compact_strides(view);
  return 0;
}

static int call_for_int(PyObject* object, PyObject* method, long long* value) {
  PyObject* result = PyObject_CallMethodObjArgs(object, method, NULL);
  if (!result)
    return -1;
  *value = PyLong_AsLongLong(result);
  Py_DECREF(result);
  return *value == -1 && PyErr_Occurred() ? -1 : 0;
}

static int read_torch(tlc_py_state* state, const tlc_py_where* where, PyObject* object, int layout,
                      array_view* view) {
  long long device = 0;
  if (call_for_int(object, state->strings.get_device, &device) < 0)
    return -1;
  if (device < 0)
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "is a tensor outside CUDA memory (on the CPU or the meta "
                                 "device); pass a CUDA tensor");
  view->device = (int)device;
  PyObject* pointer = PyObject_CallMethodObjArgs(object, state->strings.data_ptr, NULL);
  if (!pointer)
    return -1;
  int result = unsigned_of(where, pointer, &view->address);
  Py_DECREF(pointer);
  if (result < 0 || !layout)
    return result;
  long long itemsize = 0;
  if (call_for_int(object, state->strings.element_size, &itemsize) < 0)
    return -1;
  view->itemsize = (unsigned)itemsize;
  PyObject* shape = PyObject_GetAttr(object, state->strings.shape);
  PyObject* strides =
      shape ? PyObject_CallMethodObjArgs(object, state->strings.stride, NULL) : NULL;
  result = shape && strides ? read_layout_tuple(where, shape, strides, itemsize, view) : -1;
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  return result;
}

/* The device of an array that says so through __dlpack_device__; -1 if it does not. */
static int dlpack_device_of(tlc_py_state* state, PyObject* object) {
  PyObject* method = PyObject_GetAttr(object, state->strings.dlpack_device);
  PyObject* pair = method ? PyObject_CallNoArgs(method) : NULL;
  Py_XDECREF(method);
  int device = -1;
  if (pair && PyTuple_Check(pair) && PyTuple_Size(pair) == 2) {
    long type = PyLong_AsLong(PyTuple_GetItem(pair, 0));
    long id = PyLong_AsLong(PyTuple_GetItem(pair, 1));
    if ((type == kDLCUDA || type == kDLCUDAManaged) && id >= 0)
      device = (int)id;
  }
  Py_XDECREF(pair);
  PyErr_Clear();
  return device;
}

static int read_interface(tlc_py_state* state, const tlc_py_where* where, PyObject* object,
                          int layout, int first, array_view* view) {
  PyObject* interface = PyObject_GetAttr(object, state->strings.cuda_array_interface);
  if (!interface)
    return -1;
  int result = -1;
  PyObject* data =
      PyDict_Check(interface) ? PyDict_GetItemWithError(interface, state->strings.data) : NULL;
  if (!data || !PyTuple_Check(data) || PyTuple_Size(data) != 2) {
    if (!PyErr_Occurred())
      tlc_py_argument_error(PyExc_TypeError, where,
                            "has a __cuda_array_interface__ without data=(address, read_only)");
    goto done;
  }
  if (unsigned_of(where, PyTuple_GetItem(data, 0), &view->address) < 0)
    goto done;
  view->read_only = PyObject_IsTrue(PyTuple_GetItem(data, 1));
  if (view->read_only < 0)
    goto done;
  PyObject* mask = PyDict_GetItemWithError(interface, state->strings.mask);
  if (mask && mask != Py_None) {
    tlc_py_argument_error(PyExc_ValueError, where,
                          "is a masked array (__cuda_array_interface__ has a mask), which a "
                          "kernel cannot read as such");
    goto done;
  }
  if (first) { /* only the first array decides the stream and device */
    PyObject* stream = PyDict_GetItemWithError(interface, state->strings.stream);
    unsigned long long handle = 0;
    if (stream && stream != Py_None) {
      if (unsigned_of(where, stream, &handle) < 0)
        goto done;
      view->has_stream = 1;
      view->stream = (CUstream)(uintptr_t)handle; /* 1 and 2 are CU_STREAM_LEGACY, _PER_THREAD */
    }
    view->device = dlpack_device_of(state, object);
  }
  if (PyErr_Occurred())
    goto done;
  if (layout) {
    PyObject* typestr = PyDict_GetItemWithError(interface, state->strings.typestr);
    const char* text =
        typestr && PyUnicode_Check(typestr) ? PyUnicode_AsUTF8AndSize(typestr, NULL) : NULL;
    long itemsize = text && strlen(text) > 2 ? strtol(text + 2, NULL, 10) : 0;
    if (itemsize <= 0) {
      if (!PyErr_Occurred())
        tlc_py_argument_error(PyExc_TypeError, where,
                              "has a __cuda_array_interface__ without a typestr");
      goto done;
    }
    view->itemsize = (unsigned)itemsize;
    PyObject* shape = PyDict_GetItemWithError(interface, state->strings.shape);
    PyObject* strides = PyDict_GetItemWithError(interface, state->strings.strides);
    if (!shape) {
      if (!PyErr_Occurred())
        tlc_py_argument_error(PyExc_TypeError, where,
                              "has a __cuda_array_interface__ without a shape");
      goto done;
    }
    if (read_layout_tuple(where, shape, strides == Py_None ? NULL : strides, 1, view) < 0)
      goto done;
  }
  result = 0;
done:
  Py_DECREF(interface);
  return result;
}

/* Calls __dlpack__(stream=..., max_version=(1, 0)), or without max_version for producers that
   predate DLPack 1.0. `stream` is what the launch will use: the producer makes its data ready
   there (None when the launch's stream is not decided yet: the legacy default stream). */
static PyObject* export_dlpack(tlc_py_state* state, PyObject* object, PyObject* stream) {
  PyObject* method = PyObject_GetAttr(object, state->strings.dlpack);
  if (!method)
    return NULL;
  PyObject* empty = PyTuple_New(0);
  PyObject* keywords =
      Py_BuildValue("{OOO(ii)}", state->strings.stream, stream, state->strings.max_version, 1, 0);
  PyObject* capsule = empty && keywords ? PyObject_Call(method, empty, keywords) : NULL;
  if (!capsule && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    PyDict_DelItem(keywords, state->strings.max_version);
    capsule = PyObject_Call(method, empty, keywords);
  }
  Py_XDECREF(empty);
  Py_XDECREF(keywords);
  Py_DECREF(method);
  return capsule;
}

static int read_dlpack(tlc_py_state* state, const tlc_py_where* where, PyObject* object, int layout,
                       const tlc_py_defaults* defaults, array_view* view) {
  PyObject* stream;
  if (defaults->stream_known)
    /* DLPack spells the legacy default stream 1 (0 is ambiguous there). */
    stream = PyLong_FromUnsignedLongLong(defaults->stream ? (uintptr_t)defaults->stream : 1);
  else
    stream = (Py_INCREF(Py_None), Py_None);
  PyObject* capsule = stream ? export_dlpack(state, object, stream) : NULL;
  Py_XDECREF(stream);
  if (!capsule)
    return -1;
  const DLTensor* tensor = NULL;
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
    view->read_only = (managed->flags & TLC_DLPACK_READ_ONLY) != 0;
  } else if (PyCapsule_IsValid(capsule, "dltensor")) {
    tensor = &((DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor"))->dl_tensor;
  } else {
    tlc_py_argument_error(PyExc_TypeError, where,
                          "returned something other than a DLPack capsule from __dlpack__");
    goto done;
  }
  if (tensor->device.device_type != kDLCUDA && tensor->device.device_type != kDLCUDAManaged &&
      tensor->device.device_type != kDLCUDAHost) {
    tlc_py_argument_error(PyExc_ValueError, where,
                          "is not in CUDA memory (DLPack device type %d); pass a CUDA array",
                          (int)tensor->device.device_type);
    goto done;
  }
  view->address = (unsigned long long)(uintptr_t)tensor->data + tensor->byte_offset;
  view->device = tensor->device.device_type == kDLCUDAHost ? -1 : tensor->device.device_id;
  if (layout) {
    if (tensor->ndim > MAX_RANK) {
      tlc_py_argument_error(PyExc_ValueError, where,
                            "has %d dimensions; a tensor map takes at most %d", tensor->ndim,
                            MAX_RANK);
      goto done;
    }
    view->ndim = tensor->ndim;
    view->itemsize = (unsigned)tensor->dtype.bits * tensor->dtype.lanes / 8;
    for (int i = 0; i < tensor->ndim; ++i) {
      view->shape[i] = (unsigned long long)tensor->shape[i];
      if (tensor->strides)
        view->strides[i] = tensor->strides[i] * (long long)view->itemsize;
    }
    if (!tensor->strides)
      compact_strides(view);
  }
  result = 0;
done:
  Py_DECREF(capsule); /* not consumed: its destructor calls the producer's deleter */
  return result;
}

/* ---- the launch's device and stream ----------------------------------------------------- */

static int torch_stream(tlc_py_state* state, int device, CUstream* stream);

/* The first array decides the defaults; every array that knows its device must be on the
   launch's. */
static int apply_defaults(tlc_py_state* state, const tlc_py_where* where, int kind,
                          const array_view* view, tlc_py_defaults* defaults, int first) {
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
  if (kind == ARRAY_TORCH) {
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

static int read_array(tlc_py_state* state, const tlc_py_where* where, PyObject* object, int kind,
                      int layout, tlc_py_defaults* defaults, array_view* view) {
  int first = !defaults->array_seen;
  int result = -1;
  switch (kind) {
  case ARRAY_TORCH:
    result = read_torch(state, where, object, layout, view);
    break;
  case ARRAY_CAI:
    result = read_interface(state, where, object, layout, first, view);
    break;
  case ARRAY_DLPACK:
    result = read_dlpack(state, where, object, layout, defaults, view);
    break;
  }
  if (result < 0)
    return -1;
  defaults->array_seen = 1;
  return apply_defaults(state, where, kind, view, defaults, first);
}

int tlc_py_address(tlc_py_state* state, const tlc_py_where* where, PyObject* object, int writable,
                   tlc_py_defaults* defaults, void** address) {
  unsigned long long value = 0;
  if (PyLong_CheckExact(object)) { /* an address as is */
    if (unsigned_of(where, object, &value) < 0)
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
  int kind = classify(state, object);
  if (kind == ARRAY_NONE)
    return unsupported(where, object, 1);
  if (kind == ARRAY_INDEX) {
    if (unsigned_of(where, object, &value) < 0)
      return -1;
    *address = (void*)(uintptr_t)value;
    return 0;
  }
  array_view view = {0};
  view.device = -1;
  if (read_array(state, where, object, kind, 0, defaults, &view) < 0)
    return -1;
  if (writable && view.read_only)
    return tlc_py_argument_error(PyExc_ValueError, where,
                                 "points to data the kernel may write (the pointee is not "
                                 "const), but the array is read-only");
  *address = (void*)(uintptr_t)view.address;
  return 0;
}

int tlc_py_tensor(tlc_py_state* state, const tlc_py_where* where, const tlc_py_param* param,
                  PyObject* object, tlc_py_defaults* defaults, tlc_tensor* tensor) {
  int kind = PyBool_Check(object) ? ARRAY_NONE : classify(state, object);
  if (kind == ARRAY_NONE || kind == ARRAY_INDEX)
    return unsupported(where, object, 0);
  if (param->size < 8)
    return tlc_py_argument_error(PyExc_TypeError, where,
                                 "is a tensor map of packed %u-bit elements, which Python "
                                 "callers cannot describe yet; call the C launcher",
                                 param->size);
  array_view view = {0};
  view.device = -1;
  if (read_array(state, where, object, kind, 1, defaults, &view) < 0)
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
      return tlc_py_argument_error(PyExc_ValueError, where,
                                   "has a negative stride, which a tensor map cannot read");
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
