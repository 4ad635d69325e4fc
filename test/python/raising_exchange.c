/* test/python/raising_exchange.c: an array type with DLPack's C exchange API whose read, or the
 * API's current stream, raises once the exception a test asks for, as a framework's C code may
 * (an interrupt, memory exhausted, its own error). The Python binding must pass on what it would
 * pass on from the same read whichever of its paths reads the array. Compiled with this
 * interpreter's headers by test_binding.py (harness.compile_extension).
 *
 *   Array(address): a CUDA float32 vector of 16 on device 0; the API is its only way to be read
 *   Array.raise_once(exception): the next read raises `exception`
 *   stream_raises_once(exception): the API's next current-stream query raises `exception`
 *   capsule: the API, for a subclass to put in its own __dict__ beside another way to be read
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "DlpackExchange.h"

#include <string.h>

typedef struct {
  PyObject_HEAD unsigned long long address;
  PyObject* raise_next; /* NULL: the next read succeeds */
} Array;

static PyObject* stream_raises; /* NULL: the next current-stream query succeeds */
static int64_t shape[1] = {16};

/* Sets `*pending` as the exception, once. */
static int raise_pending(PyObject** pending, const char* message) {
  PyObject* exception = *pending;
  *pending = NULL;
  PyErr_SetString(exception, message);
  Py_DECREF(exception);
  return -1;
}

static int read_array(void* object, DLTensor* out) {
  Array* self = (Array*)object;
  if (self->raise_next)
    return raise_pending(&self->raise_next, "the framework could not read it");
  memset(out, 0, sizeof *out);
  out->data = (void*)(uintptr_t)self->address;
  out->device.device_type = kDLCUDA;
  out->device.device_id = 0;
  out->ndim = 1;
  out->dtype.code = kDLFloat;
  out->dtype.bits = 32;
  out->dtype.lanes = 1;
  out->shape = shape;
  return 0;
}

static int current_stream(DLDeviceType type, int32_t device, void** stream) {
  (void)type;
  (void)device;
  if (stream_raises)
    return raise_pending(&stream_raises, "the framework has no current stream");
  *stream = (void*)(uintptr_t)0x7700;
  return 0;
}

static struct tlc_dlpack_exchange_api api = {
    {1, 3}, NULL, NULL, NULL, NULL, read_array, current_stream,
};

static int array_init(Array* self, PyObject* args, PyObject* kwargs) {
  static char* keywords[] = {"address", NULL};
  return PyArg_ParseTupleAndKeywords(args, kwargs, "K", keywords, &self->address) ? 0 : -1;
}

static void array_dealloc(Array* self) {
  Py_CLEAR(self->raise_next);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyObject* array_raise_once(Array* self, PyObject* exception) {
  Py_INCREF(exception);
  Py_XSETREF(self->raise_next, exception);
  Py_RETURN_NONE;
}

static PyMethodDef array_methods[] = {
    {"raise_once", (PyCFunction)array_raise_once, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "raising_exchange.Array",
    .tp_basicsize = sizeof(Array),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)array_init,
    .tp_dealloc = (destructor)array_dealloc,
    .tp_methods = array_methods,
};

static PyObject* stream_raises_once(PyObject* module, PyObject* exception) {
  (void)module;
  Py_INCREF(exception);
  Py_XSETREF(stream_raises, exception);
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"stream_raises_once", stream_raises_once, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef definition = {
    PyModuleDef_HEAD_INIT, "raising_exchange", NULL, -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_raising_exchange(void) {
  if (PyType_Ready(&ArrayType) < 0)
    return NULL;
  PyObject* capsule = PyCapsule_New(&api, "dlpack_exchange_api", NULL);
  PyObject* module = capsule ? PyModule_Create(&definition) : NULL;
  if (!module ||
      PyDict_SetItemString(ArrayType.tp_dict, "__dlpack_c_exchange_api__", capsule) < 0 ||
      PyModule_AddObjectRef(module, "Array", (PyObject*)&ArrayType) < 0 ||
      PyModule_AddObjectRef(module, "capsule", capsule) < 0) {
    Py_XDECREF(capsule);
    Py_XDECREF(module);
    return NULL;
  }
  Py_DECREF(capsule);
  PyType_Modified(&ArrayType);
  return module;
}
