/* Numbers from Python into C: integers range-checked against their C type, floats into float,
 * double, IEEE binary16 and bfloat16 (rounded to nearest even), bools, structs passed by value
 * as their bytes. */
#include "Binding.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

static const char* const kScalarTypeNames[] = {
    "bool",   "int8",    "uint8",    "int16",   "uint16",  "int32",   "uint32",  "int64",
    "uint64", "float16", "bfloat16", "float32", "float64", "float16", "bfloat16"};

TLC_PY_COLD static int wrong_type(const tlc_py_where* where, const char* expected,
                                  PyObject* object) {
  PyObject* type = tlc_py_type_name(object);
  tlc_py_argument_error(PyExc_TypeError, where, "takes %s, not %U", expected, type);
  Py_DECREF(type);
  return -1;
}

/* An int (or an object with __index__, such as a NumPy integer), as a new reference. */
static PyObject* as_int(const tlc_py_where* where, PyObject* object) {
  if (PyLong_Check(object)) {
    Py_INCREF(object);
    return object;
  }
  if (PyIndex_Check(object))
    return PyNumber_Index(object);
  wrong_type(where, "an int", object);
  return NULL;
}

/* The value of an int within [min, max]; an unsigned maximum beyond LLONG_MAX reads as
   unsigned. OverflowError names the range. */
static int integer_in_range(const tlc_py_where* where, PyObject* object, long long min,
                            unsigned long long max, long long* signed_value,
                            unsigned long long* unsigned_value) {
  PyObject* number = as_int(where, object);
  if (!number)
    return -1;
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
  if (value == -1 && PyErr_Occurred()) {
    Py_DECREF(number);
    return -1;
  }
  int ok;
  unsigned long long big = 0;
  if (overflow > 0 && max > (unsigned long long)LLONG_MAX) {
    big = PyLong_AsUnsignedLongLong(number);
    ok = !(big == (unsigned long long)-1 && PyErr_Occurred());
    PyErr_Clear();
    value = 0;
  } else {
    ok = overflow == 0 && value >= min && (value < 0 || (unsigned long long)value <= max);
    big = (unsigned long long)value;
  }
  if (!ok) {
    if (min < 0)
      tlc_py_argument_error(PyExc_OverflowError, where, "= %S is out of range (%lld..%llu)", number,
                            min, max);
    else
      tlc_py_argument_error(PyExc_OverflowError, where, "= %S is out of range (0..%llu)", number,
                            max);
    Py_DECREF(number);
    return -1;
  }
  Py_DECREF(number);
  if (signed_value)
    *signed_value = value;
  if (unsigned_value)
    *unsigned_value = big;
  return 0;
}

int tlc_py_unsigned(const tlc_py_where* where, PyObject* object, unsigned long long max,
                    unsigned long long* value) {
  if (PyLong_CheckExact(object)) { /* the usual case, without the checks a message needs */
    unsigned long long number = PyLong_AsUnsignedLongLong(object);
    if (!(number == (unsigned long long)-1 && PyErr_Occurred()) && number <= max) {
      *value = number;
      return 0;
    }
    PyErr_Clear();
  }
  return integer_in_range(where, object, 0, max, NULL, value);
}

/* ---- 16-bit floats ---------------------------------------------------------------------- */

/* |value| (finite) in a binary format with `fraction` fraction bits and exponent bias `bias`
   (largest exponent `bias`, smallest normal exponent 1 - bias), rounded to nearest even:
   exponent and fraction fields, or -1 beyond the largest finite value. */
static long long round_to_format(double magnitude, int fraction, int bias) {
  if (magnitude == 0.0)
    return 0;
  int binary_exponent;
  frexp(magnitude, &binary_exponent);
  int exponent = binary_exponent - 1; /* magnitude in [2^exponent, 2^(exponent + 1)) */
  int smallest = 1 - bias;
  if (exponent < smallest)
    exponent = smallest; /* subnormal: the fraction has no implicit one */
  long long significand = (long long)rint(ldexp(magnitude, fraction - exponent));
  if (exponent == smallest && significand < (1LL << fraction))
    return significand;                         /* subnormal or zero: exponent field 0 */
  if (significand == (1LL << (fraction + 1))) { /* rounded up to the next power of two */
    significand >>= 1;
    exponent += 1;
  }
  if (exponent > bias)
    return -1;
  return ((long long)(exponent + bias) << fraction) | (significand - (1LL << fraction));
}

static int to_bits(double value, int fraction, int bias, uint16_t* bits) {
  uint16_t sign = signbit(value) ? 0x8000u : 0;
  uint16_t infinity = (uint16_t)(((1u << (15 - fraction)) - 1) << fraction);
  if (isnan(value)) {
    *bits = (uint16_t)(sign | infinity | (1u << (fraction - 1))); /* a quiet NaN */
    return 0;
  }
  if (isinf(value)) {
    *bits = (uint16_t)(sign | infinity);
    return 0;
  }
  long long field = round_to_format(fabs(value), fraction, bias);
  if (field < 0)
    return -1;
  *bits = (uint16_t)(sign | (uint16_t)field);
  return 0;
}

int tlc_py_half_bits(double value, uint16_t* bits) {
  return to_bits(value, 10, 15, bits);
}

int tlc_py_bfloat16_bits(double value, uint16_t* bits) {
  return to_bits(value, 7, 127, bits);
}

/* ---- scalars ---------------------------------------------------------------------------- */

static int as_double(const tlc_py_where* where, PyObject* object, double* value) {
  if (!PyFloat_Check(object) && !PyLong_Check(object) && !PyNumber_Check(object))
    return wrong_type(where, "a float", object);
  *value = PyFloat_AsDouble(object);
  if (*value != -1.0 || !PyErr_Occurred())
    return 0;
  if (!PyErr_ExceptionMatches(PyExc_OverflowError))
    return -1;
  /* An int past a double's range (10**400): said with the argument's name. Not its repr, which
     Python refuses to write past 4300 digits. */
  PyErr_Clear();
  PyObject* type = tlc_py_type_name(object);
  if (!type)
    return -1;
  tlc_py_argument_error(PyExc_OverflowError, where,
                        "takes a number within a double's range; this %U is beyond it", type);
  Py_DECREF(type);
  return -1;
}

static int as_bool(const tlc_py_where* where, PyObject* object, bool* value) {
  if (PyBool_Check(object)) {
    *value = object == Py_True;
    return 0;
  }
  if (!PyLong_Check(object) && !PyIndex_Check(object))
    return wrong_type(where, "a bool", object);
  long long number = 0;
  if (integer_in_range(where, object, 0, 1, &number, NULL) < 0)
    return -1;
  *value = number != 0;
  return 0;
}

/* `number` in the member of float type `scalar`: 0, or -1 (nothing raised) for a finite number
   beyond the type's range. */
TLC_PY_HOT static int store_float(int scalar, double number, tlc_py_value* value) {
  uint16_t bits = 0;
  switch (scalar) {
  case TLC_PY_F64:
    value->f64 = number;
    return 0;
  case TLC_PY_F32:
    value->f32 = (float)number;
    return isinf(value->f32) && isfinite(number) ? -1 : 0;
  case TLC_PY_F16:
    if (tlc_py_half_bits(number, &bits) < 0)
      return -1;
    value->f16.bits = bits;
    return 0;
  case TLC_PY_BF16:
    if (tlc_py_bfloat16_bits(number, &bits) < 0)
      return -1;
    value->bf16.bits = bits;
    return 0;
  }
  return -1;
}

static int as_float(const tlc_py_where* where, int scalar, PyObject* object, tlc_py_value* value) {
  double number = 0;
  if (as_double(where, object, &number) < 0)
    return -1;
  if (store_float(scalar, number, value) == 0)
    return 0;
  return tlc_py_argument_error(PyExc_OverflowError, where, "= %R is beyond %s's range", object,
                               kScalarTypeNames[scalar]);
}

/* __half2 and __nv_bfloat162: a pair (x, y), a tuple or a list of two numbers, each rounded as
   a __half or __nv_bfloat16 is; x in the low half, as CUDA lays them out. */
static int as_pair(const tlc_py_where* where, int scalar, PyObject* object, uint32_t* bits) {
  int tuple = PyTuple_Check(object);
  if ((!tuple && !PyList_Check(object)) ||
      (tuple ? PyTuple_Size(object) : PyList_Size(object)) != 2)
    return wrong_type(where, "a pair of floats (x, y)", object);
  int half = scalar == TLC_PY_F16X2 ? TLC_PY_F16 : TLC_PY_BF16;
  tlc_py_value lanes[2];
  for (Py_ssize_t i = 0; i < 2; ++i) {
    PyObject* item = tuple ? PyTuple_GetItem(object, i) : PyList_GetItem(object, i);
    if (!item || as_float(where, half, item, &lanes[i]) < 0)
      return -1;
  }
  uint16_t x = half == TLC_PY_F16 ? lanes[0].f16.bits : lanes[0].bf16.bits;
  uint16_t y = half == TLC_PY_F16 ? lanes[1].f16.bits : lanes[1].bf16.bits;
  *bits = (uint32_t)x | (uint32_t)y << 16;
  return 0;
}

/* The integer types' ranges, by tlc_py_scalar (bool: 0..1); the float types' are {0, 0}. */
static const struct {
  long long min;
  unsigned long long max;
} kIntegerRanges[] = {
    {0, 1},          {INT8_MIN, INT8_MAX},   {0, UINT8_MAX},  {INT16_MIN, INT16_MAX},
    {0, UINT16_MAX}, {INT32_MIN, INT32_MAX}, {0, UINT32_MAX}, {INT64_MIN, INT64_MAX},
    {0, UINT64_MAX},
};
#define INTEGER_TYPES ((int)(sizeof kIntegerRanges / sizeof kIntegerRanges[0]))
_Static_assert(TLC_PY_U64 + 1 == sizeof kIntegerRanges / sizeof kIntegerRanges[0],
               "kIntegerRanges has a row per integer type, bool first");

/* An integer within its type's range in the member of integer type `scalar` (`s` for the
   signed types, `u` for the unsigned ones and bool). */
TLC_PY_HOT static void store_integer(int scalar, long long s, unsigned long long u,
                                     tlc_py_value* value) {
  switch (scalar) {
  case TLC_PY_BOOL:
    value->b = u != 0;
    break;
  case TLC_PY_I8:
    value->i8 = (int8_t)s;
    break;
  case TLC_PY_U8:
    value->u8 = (uint8_t)u;
    break;
  case TLC_PY_I16:
    value->i16 = (int16_t)s;
    break;
  case TLC_PY_U16:
    value->u16 = (uint16_t)u;
    break;
  case TLC_PY_I32:
    value->i32 = (int32_t)s;
    break;
  case TLC_PY_U32:
    value->u32 = (uint32_t)u;
    break;
  case TLC_PY_I64:
    value->i64 = (int64_t)s;
    break;
  case TLC_PY_U64:
    value->u64 = (uint64_t)u;
    break;
  }
}

int tlc_py_scalar(const tlc_py_where* where, int scalar, PyObject* object, tlc_py_value* value) {
  long long s = 0;
  unsigned long long u = 0;
  switch (scalar) {
  case TLC_PY_BOOL:
    return as_bool(where, object, &value->b);
  case TLC_PY_I8:
  case TLC_PY_U8:
  case TLC_PY_I16:
  case TLC_PY_U16:
  case TLC_PY_I32:
  case TLC_PY_U32:
  case TLC_PY_I64:
  case TLC_PY_U64:
    if (integer_in_range(where, object, kIntegerRanges[scalar].min, kIntegerRanges[scalar].max, &s,
                         &u) < 0)
      return -1;
    store_integer(scalar, s, u, value);
    return 0;
  case TLC_PY_F16:
  case TLC_PY_BF16:
  case TLC_PY_F32:
  case TLC_PY_F64:
    return as_float(where, scalar, object, value);
  case TLC_PY_F16X2:
    return as_pair(where, scalar, object, &value->f16x2.bits);
  case TLC_PY_BF16X2:
    return as_pair(where, scalar, object, &value->bf16x2.bits);
  }
  PyErr_Format(PyExc_SystemError, "%s(): argument '%s' has an unknown scalar type", where->launcher,
               where->argument);
  return -1;
}

/* ---- the call-site path ----------------------------------------------------------------- */

TLC_PY_HOT int tlc_py_usual_unsigned(PyObject* object, unsigned long long max,
                                     unsigned long long* value) {
  if (!PyLong_CheckExact(object))
    return 1;
  unsigned long long number = PyLong_AsUnsignedLongLong(object);
  if (number == (unsigned long long)-1 && PyErr_Occurred()) {
    PyErr_Clear(); /* negative, or beyond 64 bits */
    return 1;
  }
  if (number > max)
    return 1;
  *value = number;
  return 0;
}

TLC_PY_HOT int tlc_py_usual_scalar(int scalar, PyObject* object, tlc_py_value* value) {
  if (scalar < INTEGER_TYPES) {
    if (scalar == TLC_PY_BOOL && (object == Py_True || object == Py_False)) {
      value->b = object == Py_True;
      return 0;
    }
    if (!PyLong_CheckExact(object))
      return 1;
    int overflow = 0;
    long long s = PyLong_AsLongLongAndOverflow(object, &overflow);
    if (overflow || (s == -1 && PyErr_Occurred())) {
      PyErr_Clear(); /* a uint64 beyond INT64_MAX: the general path reads it */
      return 1;
    }
    if (s < kIntegerRanges[scalar].min ||
        (s >= 0 && (unsigned long long)s > kIntegerRanges[scalar].max))
      return 1;
    store_integer(scalar, s, (unsigned long long)s, value);
    return 0;
  }
  if (scalar > TLC_PY_F64)
    return 1; /* the pairs */
  double number;
  if (PyFloat_CheckExact(object)) {
    number = PyFloat_AsDouble(object);
  } else if (PyLong_CheckExact(object)) {
    number = PyLong_AsDouble(object);
    if (number == -1.0 && PyErr_Occurred()) {
      PyErr_Clear(); /* beyond a double's range */
      return 1;
    }
  } else {
    return 1;
  }
  return store_float(scalar, number, value) == 0 ? 0 : 1;
}

/* ---- structs by value ------------------------------------------------------------------- */

/* A struct's bytes come from a buffer (bytes, bytearray, memoryview, a ctypes.Structure, an
   array), through a memoryview of it: not through bytes() alone, which would also take any
   iterable of small ints (a list, a dict's keys, a generator that never ends) and run a
   __bytes__. (The stable ABI of 3.10 has no buffer API but the memoryview.) */
int tlc_py_record(const tlc_py_where* where, unsigned size, PyObject* object, void* storage) {
  static const char kExpected[] = "bytes (or a buffer such as a ctypes.Structure)";
  if (PyUnicode_Check(object) || PyLong_Check(object) || PyFloat_Check(object))
    return wrong_type(where, kExpected, object);
  PyObject* view = PyBytes_Check(object) ? Py_NewRef(object) : PyMemoryView_FromObject(object);
  if (!view) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError))
      return -1;
    PyErr_Clear();
    return wrong_type(where, kExpected, object);
  }
  PyObject* bytes = PyObject_Bytes(view);
  Py_DECREF(view);
  if (!bytes)
    return -1;
  char* data = NULL;
  Py_ssize_t length = 0;
  int result = PyBytes_AsStringAndSize(bytes, &data, &length);
  if (result == 0 && (size_t)length != size)
    result = tlc_py_argument_error(PyExc_ValueError, where, "takes the struct's %u bytes, not %zd",
                                   size, length);
  if (result == 0)
    memcpy(storage, data, size);
  Py_DECREF(bytes);
  return result;
}
