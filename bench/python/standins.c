/* bench/python/standins.c: arrays implemented in C, as the real frameworks' are, for counting
 * the instructions of the Python binding's per-call path (bench/python/callgrind.py). Python
 * stand-ins (test/python/harness.py) would spend thousands of instructions in the interpreter per
 * method call and drown the binding's own cost; these cost what a C method costs.
 *
 *   Tensor(address, device=0, dtype=None): data_ptr(), get_device() and .dtype, as torch.Tensor
 *     before 2.10
 *   ExchangeTensor(...): the same with DLPack's C exchange API in its type's __dict__
 *     (__dlpack_c_exchange_api__), as torch.Tensor from 2.10: a float32 vector of 2**20
 *   CudaArray(address, typestr="<f4", stream=1): __cuda_array_interface__ builds a fresh dict on
 *     every read, with the keys CuPy's has (shape, typestr, descr, data, version, strides, stream)
 *   current_stream(device): torch._C._cuda_getCurrentRawStream's stand-in (returns 0x5000)
 *   mark(): nothing; callgrind.py has valgrind dump its counts before each call
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "DlpackExchange.h"

#include <string.h>

typedef struct {
  PyObject_HEAD unsigned long long address;
  long device;
  PyObject* dtype;
} Tensor;

static int tensor_init(Tensor* self, PyObject* args, PyObject* kwargs) {
  static char* keywords[] = {"address", "device", "dtype", NULL};
  PyObject* dtype = Py_None;
  self->device = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "K|lO", keywords, &self->address, &self->device,
                                   &dtype))
    return -1;
  Py_INCREF(dtype);
  Py_XSETREF(self->dtype, dtype);
  return 0;
}

static void tensor_dealloc(Tensor* self) {
  Py_XDECREF(self->dtype);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyObject* tensor_data_ptr(Tensor* self, PyObject* unused) {
  (void)unused;
  return PyLong_FromUnsignedLongLong(self->address);
}

static PyObject* tensor_get_device(Tensor* self, PyObject* unused) {
  (void)unused;
  return PyLong_FromLong(self->device);
}

static PyMethodDef tensor_methods[] = {
    {"data_ptr", (PyCFunction)tensor_data_ptr, METH_NOARGS, NULL},
    {"get_device", (PyCFunction)tensor_get_device, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef tensor_members[] = {
    {"dtype", T_OBJECT, offsetof(Tensor, dtype), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject TensorType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "standins.Tensor",
    .tp_basicsize = sizeof(Tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)tensor_init,
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_methods = tensor_methods,
    .tp_members = tensor_members,
};

typedef struct tlc_dlpack_exchange_api ExchangeApi;

static int64_t exchange_shape[1] = {1 << 20};

/* What torch's does: fills a view of the tensor, no allocation. */
static int exchange_dltensor(void* object, DLTensor* out) {
  const Tensor* tensor = (const Tensor*)object;
  memset(out, 0, sizeof *out);
  out->data = (void*)(uintptr_t)tensor->address;
  out->device.device_type = kDLCUDA;
  out->device.device_id = (int32_t)tensor->device;
  out->ndim = 1;
  out->dtype.code = kDLFloat;
  out->dtype.bits = 32;
  out->dtype.lanes = 1;
  out->shape = exchange_shape;
  return 0;
}

static int exchange_stream(DLDeviceType type, int32_t device, void** stream) {
  (void)type;
  (void)device;
  *stream = (void*)(uintptr_t)0x5000;
  return 0;
}

static ExchangeApi exchange_api = {
    {1, 3}, NULL, NULL, NULL, NULL, exchange_dltensor, exchange_stream,
};

static PyTypeObject ExchangeTensorType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "standins.ExchangeTensor",
    .tp_basicsize = sizeof(Tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_base = &TensorType,
};

typedef struct {
  PyObject_HEAD unsigned long long address;
  PyObject* typestr;
  PyObject* stream;
} CudaArray;

static int array_init(CudaArray* self, PyObject* args, PyObject* kwargs) {
  static char* keywords[] = {"address", "typestr", "stream", NULL};
  PyObject* typestr = NULL;
  PyObject* stream = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "K|UO", keywords, &self->address, &typestr,
                                   &stream))
    return -1;
  Py_XSETREF(self->typestr, typestr ? (Py_INCREF(typestr), typestr) : PyUnicode_FromString("<f4"));
  Py_XSETREF(self->stream, stream ? (Py_INCREF(stream), stream) : PyLong_FromLong(1));
  return self->typestr && self->stream ? 0 : -1;
}

static void array_dealloc(CudaArray* self) {
  Py_XDECREF(self->typestr);
  Py_XDECREF(self->stream);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

/* The keys of the interface dict, interned once, as Cython interns CuPy's string constants. */
enum { KEY_SHAPE, KEY_TYPESTR, KEY_DESCR, KEY_DATA, KEY_VERSION, KEY_STRIDES, KEY_STREAM, KEYS };
static const char* const key_names[KEYS] = {"shape",   "typestr", "descr", "data",
                                            "version", "strides", "stream"};
static PyObject* keys[KEYS];

static int set_new(PyObject* dict, int key, PyObject* value) {
  int result = value ? PyDict_SetItem(dict, keys[key], value) : -1;
  Py_XDECREF(value);
  return result;
}

/* What CuPy's ndarray.__cuda_array_interface__ returns for a contiguous 1-D array: a new dict,
   with new tuples, on every read. */
static PyObject* array_interface(CudaArray* self, void* unused) {
  (void)unused;
  PyObject* dict = PyDict_New();
  if (!dict)
    return NULL;
  PyObject* descr = Py_BuildValue("[(sO)]", "", self->typestr);
  if (set_new(dict, KEY_SHAPE, Py_BuildValue("(n)", (Py_ssize_t)(1 << 20))) < 0 ||
      PyDict_SetItem(dict, keys[KEY_TYPESTR], self->typestr) < 0 ||
      set_new(dict, KEY_DESCR, descr) < 0 ||
      set_new(dict, KEY_DATA, Py_BuildValue("(KO)", self->address, Py_False)) < 0 ||
      set_new(dict, KEY_VERSION, PyLong_FromLong(3)) < 0 ||
      PyDict_SetItem(dict, keys[KEY_STRIDES], Py_None) < 0 ||
      PyDict_SetItem(dict, keys[KEY_STREAM], self->stream) < 0) {
    Py_DECREF(dict);
    return NULL;
  }
  return dict;
}

static PyGetSetDef array_getset[] = {
    {"__cuda_array_interface__", (getter)array_interface, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CudaArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "standins.CudaArray",
    .tp_basicsize = sizeof(CudaArray),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)array_init,
    .tp_dealloc = (destructor)array_dealloc,
    .tp_getset = array_getset,
};

static PyObject* current_stream(PyObject* module, PyObject* device) {
  (void)module;
  (void)device;
  return PyLong_FromLong(0x5000);
}

/* callgrind.py runs valgrind with --dump-before=standins_mark: each call ends a counted stretch. */
__attribute__((noinline)) PyObject* standins_mark(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"current_stream", current_stream, METH_O, NULL},
    {"mark", standins_mark, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "standins", NULL, -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_standins(void) {
  if (PyType_Ready(&TensorType) < 0 || PyType_Ready(&ExchangeTensorType) < 0 ||
      PyType_Ready(&CudaArrayType) < 0)
    return NULL;
  PyObject* capsule = PyCapsule_New(&exchange_api, "dlpack_exchange_api", NULL);
  int added = capsule ? PyDict_SetItemString(ExchangeTensorType.tp_dict,
                                             "__dlpack_c_exchange_api__", capsule)
                      : -1;
  Py_XDECREF(capsule);
  if (added < 0)
    return NULL;
  PyType_Modified(&ExchangeTensorType);
  for (int key = 0; key < KEYS; ++key)
    if (!(keys[key] = PyUnicode_InternFromString(key_names[key])))
      return NULL;
  PyObject* module = PyModule_Create(&module_definition);
  if (!module)
    return NULL;
  if (PyModule_AddObjectRef(module, "Tensor", (PyObject*)&TensorType) < 0 ||
      PyModule_AddObjectRef(module, "ExchangeTensor", (PyObject*)&ExchangeTensorType) < 0 ||
      PyModule_AddObjectRef(module, "CudaArray", (PyObject*)&CudaArrayType) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
