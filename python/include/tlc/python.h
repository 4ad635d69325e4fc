/* The Python binding as generated extension modules see it. `tlc build --python` renders, per
 * module, a C file holding one table row per launcher parameter (its keyword, kind, C type and
 * whether the kernel may write through it), one small function per launcher that calls the typed
 * launcher NAME_<launcher>, and the module's init; everything else (argument parsing, torch
 * tensors, __cuda_array_interface__, DLPack, scalar conversion, streams, the GIL, errors) is in
 * the binding library, libtlc_python.a, which each extension links with hidden visibility.
 *
 * Built against CPython's stable ABI (Py_LIMITED_API 3.10), so one extension serves every
 * CPython from 3.10 on. The generated file needs no Python headers: it passes Python objects
 * through by pointer only, as the types below, which are the stable ABI's own (PyObject is
 * `struct _object` there, and Py_SSIZE_T is ssize_t on every platform tlc builds for), so a
 * machine without Python's development headers builds extensions too. docs/python.md describes
 * what Python callers see. */
#ifndef TLC_PYTHON_H
#define TLC_PYTHON_H

#include "tlc/launcher.h"

#include <sys/types.h>

#ifndef Py_PYTHON_H /* the binding library includes Python.h first; generated code does not */
typedef struct _object PyObject;
typedef ssize_t Py_ssize_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a launcher parameter takes from Python. */
enum tlc_py_kind {
  TLC_PY_POINTER = 0,   /* a device address: a tensor, a CUDA array, a DLPack producer, an int */
  TLC_PY_SCALAR = 1,    /* a number, range-checked against its C type */
  TLC_PY_RECORD = 2,    /* a struct by value: bytes (or any buffer) of exactly its size */
  TLC_PY_TENSOR_MAP = 3 /* a tensor whose shape and strides the launcher encodes */
};

/* A scalar parameter's C type; the model's order (model/Model.h ScalarType). */
enum tlc_py_scalar {
  TLC_PY_BOOL = 0,
  TLC_PY_I8,
  TLC_PY_U8,
  TLC_PY_I16,
  TLC_PY_U16,
  TLC_PY_I32,
  TLC_PY_U32,
  TLC_PY_I64,
  TLC_PY_U64,
  TLC_PY_F16,
  TLC_PY_BF16,
  TLC_PY_F32,
  TLC_PY_F64,
  TLC_PY_F16X2, /* __half2: a pair of numbers */
  TLC_PY_BF16X2 /* __nv_bfloat162 */
};

/* An array's element type, as torch, __cuda_array_interface__ (numpy's typestr) or DLPack says
   it (named as torch names them). TLC_PY_DT_OTHER: a type tlc has no name for, which only a
   pointer that takes any array accepts. The 6-bit and 4-bit types hold one value per byte,
   except the _PACKED and _X2 ones, which pack them. */
enum tlc_py_dtype {
  TLC_PY_DT_OTHER = 0,
  TLC_PY_DT_BOOL,
  TLC_PY_DT_I8,
  TLC_PY_DT_U8,
  TLC_PY_DT_I16,
  TLC_PY_DT_U16,
  TLC_PY_DT_I32,
  TLC_PY_DT_U32,
  TLC_PY_DT_I64,
  TLC_PY_DT_U64,
  TLC_PY_DT_F16,
  TLC_PY_DT_BF16,
  TLC_PY_DT_F32,
  TLC_PY_DT_F64,
  TLC_PY_DT_C32,
  TLC_PY_DT_C64,
  TLC_PY_DT_C128,
  TLC_PY_DT_F8_E4M3FN,
  TLC_PY_DT_F8_E5M2,
  TLC_PY_DT_F8_E8M0FNU,
  TLC_PY_DT_F8_E4M3FNUZ,
  TLC_PY_DT_F8_E5M2FNUZ,
  TLC_PY_DT_F8_E3M4,
  TLC_PY_DT_F8_E4M3,
  TLC_PY_DT_F8_E4M3B11FNUZ,
  TLC_PY_DT_F6_E2M3FN,
  TLC_PY_DT_F6_E3M2FN,
  TLC_PY_DT_F6_E2M3FN_PACKED,
  TLC_PY_DT_F6_E3M2FN_PACKED,
  TLC_PY_DT_F4_E2M1FN,
  TLC_PY_DT_F4_E2M1FN_X2,
  TLC_PY_DT_COUNT
};

/* A pointer parameter's accepted element types: a set of tlc_py_dtype bits, computed by tlc
   from the pointee type when it renders the table. */
#define TLC_PY_ACCEPTS(dtype) (1ull << (dtype))
#define TLC_PY_ACCEPTS_ANY (~0ull) /* void*, char*, unsigned char*, structs: any array */

typedef struct tlc_py_param {
  const char* name;       /* its keyword: the kernel parameter's name, `_` appended where it would
                             collide with a launch option or a Python keyword */
  const char* type;       /* as the kernel spells it, for messages */
  unsigned char kind;     /* tlc_py_kind */
  unsigned char scalar;   /* TLC_PY_SCALAR: tlc_py_scalar */
  unsigned char writable; /* a pointer to non-const data: read-only buffers are refused */
  unsigned size;          /* TLC_PY_RECORD: bytes; TLC_PY_TENSOR_MAP: bits per element */
  unsigned rank;          /* TLC_PY_TENSOR_MAP: dimensions */
  unsigned long long accepts; /* TLC_PY_POINTER: the element types an array may hold */
} tlc_py_param;

/* A launcher as Python calls it (vectorcall: `self` is the extension module). */
typedef PyObject* (*tlc_py_function)(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                     PyObject* kwnames);

typedef struct tlc_py_launcher {
  const char* name; /* NAME_<name> in C, NAME.<name> in Python */
  const tlc_py_param* params;
  int param_count;
  const char* cxx_name; /* the kernel's C++ name with its template arguments: "axpy<float>" */
  tlc_py_function function;
  const char* doc; /* its __text_signature__ line, "--", and its docstring */
} tlc_py_launcher;

/* One converted argument, in the member its parameter's C type names. Records and tensor maps
   point at storage the launcher's wrapper owns (set before tlc_py_parse). */
typedef union tlc_py_value {
  void* pointer;
  bool b;
  int8_t i8;
  uint8_t u8;
  int16_t i16;
  uint16_t u16;
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  tlc_half f16;
  tlc_bfloat16 bf16;
  float f32;
  double f64;
  tlc_half2 f16x2;
  tlc_bfloat162 bf16x2;
  void* record;       /* TLC_PY_RECORD: where its bytes are copied */
  tlc_tensor* tensor; /* TLC_PY_TENSOR_MAP: where the tensor is described */
} tlc_py_value;

/* What one call parses into. */
typedef struct tlc_py_call {
  tlc_config config;
  tlc_py_value* values; /* one per parameter */
  PyObject** arguments; /* scratch, one per parameter (borrowed references) */
} tlc_py_call;

/* Calls the typed launcher with converted arguments (generated, one per launcher). */
typedef tlc_status (*tlc_py_invoke)(const tlc_config* config, const tlc_py_value* values);

/* A launcher's kernel for torch's dispatcher, in the boxed form of torch's stable C ABI: the
   stack holds `inputs` arguments (StableIValues) of the op's schema (register_torch_ops). */
typedef void (*tlc_py_torch_kernel)(uint64_t* stack, uint64_t inputs, uint64_t outputs);

/* The generated part of one extension module. */
typedef struct tlc_py_module {
  const char* name;           /* the module: NAME */
  const char* extension_name; /* NAME.tlc._ext */
  const char* doc;
  const tlc_py_launcher* launchers;
  int launcher_count;
  const char* (*last_error)(void);
  const char* (*status_string)(tlc_status status);
  tlc_status (*load)(int device);
  tlc_status (*unload)(void);
  tlc_status (*image_target)(int device, const char** target);
  const tlc_py_torch_kernel* torch_kernels; /* one per launcher, in the same order */
} tlc_py_module;

/* The module's init: PyInit__ext returns what this returns. */
PyObject* tlc_py_create_module(const tlc_py_module* module);

/* The extension's init function, the one symbol it exports (CPython's PyMODINIT_FUNC). */
#define TLC_PY_MODULE_INIT __attribute__((visibility("default"))) PyObject*

/* One call of launcher `launcher`, its arguments in `call` (values and scratch the caller
   provides, one per parameter): parses the vectorcall (a TypeError, ValueError or
   OverflowError naming the argument), calls `invoke` without the GIL, and returns None, or
   NULL with NAME.tlc.Error raised for a failed launch. */
PyObject* tlc_py_launch(PyObject* self, int launcher, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames, tlc_py_call* call, tlc_py_invoke invoke);

/* Parses a vectorcall (`self` is the extension module) for launcher `launcher` into `call`:
   0, or -1 with a Python exception set (TypeError, ValueError or OverflowError naming the
   argument). Holds the GIL; nothing to release afterwards. */
int tlc_py_parse(PyObject* self, int launcher, PyObject* const* args, Py_ssize_t nargs,
                 PyObject* kwnames, tlc_py_call* call);

/* What every launcher's torch kernel does (TorchOps.cpp): converts the stack for launcher
   `launcher`, calls `invoke` without the GIL and releases the inputs; a refused argument or a
   failed launch is thrown to torch as a C++ exception (Python sees RuntimeError). */
void tlc_py_torch_boxed(const tlc_py_module* module, int launcher, tlc_py_invoke invoke,
                        uint64_t* stack, uint64_t inputs, uint64_t outputs);

/* None after a successful launch; otherwise raises NAME.tlc.Error with the status and this
   thread's message (tlc_NAME_last_error) and returns NULL. */
PyObject* tlc_py_finish(PyObject* self, tlc_status status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TLC_PYTHON_H */
