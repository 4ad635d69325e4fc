/* bench/python's parts: what a launch from Python pays outside tlc's binding, each measured on
 * its own, so that bench.py can say how much of a torch-tensor call any binding must spend.
 *   call(*args, **kwargs)    does nothing: the interpreter's cost of a call with a launcher's
 *                            arguments and keywords (the loop, the vectorcall, the keywords)
 *   gil(count)               seconds for `count` releases and retakes of the GIL (what a
 *                            binding pays to let other threads run while the driver works)
 *   exchange(tensor, count)  seconds for `count` calls of the tensor type's DLPack exchange API
 *                            (__dlpack_c_exchange_api__, torch >= 2.10): a view of the tensor
 *   stream(tensor, count)    seconds for `count` calls of the same API's current_work_stream on
 *                            the tensor's device
 * A CPython extension of the stable ABI (3.10 and later), built by scripts/gpu-test beside
 * floor.c. */
#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "DlpackExchange.h"

#include <stdint.h>
#include <time.h>

typedef struct tlc_dlpack_exchange_api ExchangeApi;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static PyObject* call(PyObject* module, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames) {
  (void)module;
  (void)args;
  (void)nargs;
  (void)kwnames;
  Py_RETURN_NONE;
}

static int count_of(PyObject* object, long* count) {
  *count = PyLong_AsLong(object);
  if (*count == -1 && PyErr_Occurred())
    return -1;
  if (*count < 1) {
    PyErr_SetString(PyExc_ValueError, "count must be at least 1");
    return -1;
  }
  return 0;
}

static PyObject* gil(PyObject* module, PyObject* argument) {
  (void)module;
  long count = 0;
  if (count_of(argument, &count) < 0)
    return NULL;
  double start = now();
  for (long i = 0; i < count; ++i) {
    Py_BEGIN_ALLOW_THREADS Py_END_ALLOW_THREADS
  }
  return PyFloat_FromDouble(now() - start);
}

/* The exchange API `object`'s own type defines, or NULL with an exception. */
static const ExchangeApi* exchange_api(PyObject* object) {
  PyObject* dict = PyObject_GetAttrString((PyObject*)Py_TYPE(object), "__dict__");
  PyObject* capsule = dict ? PyMapping_GetItemString(dict, "__dlpack_c_exchange_api__") : NULL;
  Py_XDECREF(dict);
  const ExchangeApi* api =
      capsule ? (const ExchangeApi*)PyCapsule_GetPointer(capsule, "dlpack_exchange_api") : NULL;
  Py_XDECREF(capsule); /* the type keeps its capsule */
  if (api && (api->version.major != 1 || !api->dltensor_from_py_object_no_sync ||
              !api->current_work_stream)) {
    PyErr_SetString(PyExc_TypeError, "the exchange API lacks what tlc calls");
    return NULL;
  }
  return api;
}

enum Step { STEP_VIEW, STEP_STREAM };

/* Seconds for `count` calls of one of the exchange API's functions, args = (tensor, count): the
   tensor's view, or the current stream on its device. */
static PyObject* time_api(PyObject* const* args, Py_ssize_t nargs, enum Step step) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "takes (tensor, count)");
    return NULL;
  }
  long count = 0;
  if (count_of(args[1], &count) < 0)
    return NULL;
  const ExchangeApi* api = exchange_api(args[0]);
  DLTensor view;
  if (!api || api->dltensor_from_py_object_no_sync(args[0], &view) != 0)
    return NULL;
  void* current = NULL;
  double start = now();
  for (long i = 0; i < count; ++i) {
    int status = step == STEP_VIEW ? api->dltensor_from_py_object_no_sync(args[0], &view)
                                   : api->current_work_stream(view.device.device_type,
                                                              view.device.device_id, &current);
    if (status != 0)
      return NULL;
  }
  return PyFloat_FromDouble(now() - start);
}

static PyObject* exchange(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  return time_api(args, nargs, STEP_VIEW);
}

static PyObject* stream(PyObject* module, PyObject* const* args, Py_ssize_t nargs) {
  (void)module;
  return time_api(args, nargs, STEP_STREAM);
}

static PyMethodDef methods[] = {
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"gil", gil, METH_O, NULL},
    {"exchange", (PyCFunction)(void (*)(void))exchange, METH_FASTCALL, NULL},
    {"stream", (PyCFunction)(void (*)(void))stream, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef definition = {
    PyModuleDef_HEAD_INIT, "tlc_bench_parts", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_tlc_bench_parts(void) {
  return PyModule_Create(&definition);
}
