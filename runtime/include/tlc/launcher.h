/* The C types every tlc launcher library shares: status codes, the launch config, tensors for
 * tensor-map parameters, 16-bit float bits. tlc copies this file into every NAME.h it generates,
 * so a generated header needs only cuda.h; the runtime library compiles against this very file.
 *
 * One definition per translation unit, whichever tlc wrote the header included first: the types
 * only ever grow at their end, and tlc_config says how large the caller's copy is (`size`). */
#if defined(__cplusplus) && !defined(TLC_TYPE_TRAITS)
#define TLC_TYPE_TRAITS 1
/* The few type traits the C++ conversions of this file need, spelled out rather than taken from
   <type_traits>: that header was an eighth of the compile of a launcher, and of every file that
   includes NAME.h and nothing else of the standard library. __is_standard_layout is the builtin
   every C++11 compiler's <type_traits> is built on. */
template <bool Condition, typename T = void> struct tlc_enable_if {};
template <typename T> struct tlc_enable_if<true, T> {
  typedef T type;
};
template <typename A, typename B> struct tlc_is_same {
  static const bool value = false;
};
template <typename A> struct tlc_is_same<A, A> {
  static const bool value = true;
};
template <typename T> struct tlc_remove_const {
  typedef T type;
};
template <typename T> struct tlc_remove_const<const T> {
  typedef T type;
};
template <typename T> struct tlc_is_const {
  static const bool value = false;
};
template <typename T> struct tlc_is_const<const T> {
  static const bool value = true;
};
/* tlc_mirror_of<T>::type: the tlc type the CUDA type T is laid out as (specialised below for
   __half, __half2, __nv_bfloat16 and __nv_bfloat162), void for any other T. */
template <typename T> struct tlc_mirror_of {
  typedef void type;
};
#endif /* TLC_TYPE_TRAITS */

/* A cast that C and C++ (-Wold-style-cast) both accept. */
#ifndef TLC_CAST
#ifdef __cplusplus
#define TLC_CAST(type, value) static_cast<type>(value)
#else
#define TLC_CAST(type, value) ((type)(value))
#endif
#endif

/* 16-bit floats as bits, from and to float and double, as the CUDA toolkit's host conversions
   (__float2half_rn, __double2half, __float2bfloat16_rn, __double2bfloat16, __half2float,
   __bfloat162float) give them, bit for bit: round-to-nearest-even, overflow to infinity,
   subnormals kept, and any NaN becomes the canonical NaN those give (0x7fff; 0x7fffffff back to
   float). The conversions below and tlc_half's C++ constructors are made of these. */
#ifndef TLC_FLOAT16_BITS
#define TLC_FLOAT16_BITS 1
#include <stdint.h>
#include <string.h>
static inline uint32_t tlc_bits_of_float(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}
static inline float tlc_float_with_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}
/* Drops the low `shift` bits of `bits`, rounding to nearest, ties to even. */
static inline uint32_t tlc_bits_rounded(uint32_t bits, unsigned shift) {
  uint32_t kept = bits >> shift;
  uint32_t rest = bits & ((1u << shift) - 1u);
  uint32_t midpoint = 1u << (shift - 1u);
  return kept + TLC_CAST(uint32_t, rest > midpoint || (rest == midpoint && (kept & 1u)));
}
static inline uint16_t tlc_half_bits_from_float(float value) {
  uint32_t bits = tlc_bits_of_float(value);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) /* NaN */
    return 0x7fffu;
  if (magnitude >= 0x477ff000u) /* rounds to at least 65536, or infinity: infinity */
    return TLC_CAST(uint16_t, sign | 0x7c00u);
  if (magnitude >= 0x38800000u) /* a normal half: rebias the exponent, round the mantissa */
    return TLC_CAST(uint16_t, sign | tlc_bits_rounded(magnitude - 0x38000000u, 13));
  if (magnitude < 0x33000001u) /* at most half the smallest subnormal: zero */
    return TLC_CAST(uint16_t, sign);
  /* a subnormal half: the mantissa with its implicit bit, shifted by the exponent's lack */
  return TLC_CAST(uint16_t, sign | tlc_bits_rounded((magnitude & 0x7fffffu) | 0x800000u,
                                                    126u - (magnitude >> 23)));
}
static inline uint16_t tlc_bfloat16_bits_from_float(float value) {
  uint32_t bits = tlc_bits_of_float(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN */
    return 0x7fffu;
  /* the top half, rounded; a carry out of the mantissa bumps the exponent, to inf at most */
  return TLC_CAST(uint16_t, tlc_bits_rounded(bits, 16));
}
/* A double as a float rounded to odd (toward zero, the last bit set if anything was dropped):
   rounding that float to 16 bits then rounds the double once, as the toolkit does. */
static inline float tlc_float_rounded_to_odd(double value) {
  float nearest = TLC_CAST(float, value);
  uint32_t bits = tlc_bits_of_float(nearest);
  if (TLC_CAST(double, nearest) == value || nearest != nearest) /* exact, or NaN */
    return nearest;
  if ((value > 0 && TLC_CAST(double, nearest) > value) ||
      (value < 0 && TLC_CAST(double, nearest) < value))
    bits -= 1u; /* one step toward zero (infinity becomes the largest float) */
  return tlc_float_with_bits(bits | 1u);
}
static inline uint16_t tlc_half_bits_from_double(double value) {
  return tlc_half_bits_from_float(tlc_float_rounded_to_odd(value));
}
static inline uint16_t tlc_bfloat16_bits_from_double(double value) {
  return tlc_bfloat16_bits_from_float(tlc_float_rounded_to_odd(value));
}
#endif /* TLC_FLOAT16_BITS */

#ifndef TLC_LAUNCHER_TYPES
#define TLC_LAUNCHER_TYPES 1

#ifdef TLC_CUDA_HANDLES_ONLY
/* Defined by tlc's own NAME_launcher.cpp where the module has no tensor maps: the launcher only
   passes the driver's handles through, declared here as cuda.h declares them, and its compile
   then skips cuda.h, a third of it. Every other includer gets cuda.h. */
typedef struct CUstream_st* CUstream;
typedef struct CUfunc_st* CUfunction;
typedef struct CUtensorMap_st CUtensorMap;
#else
#include <cuda.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

typedef enum tlc_status {
  TLC_SUCCESS = 0,
  TLC_ERROR_INVALID_VALUE = 1, /* a bad configuration or argument; the message names it */
  TLC_ERROR_NO_DRIVER = 2,     /* libcuda.so.1 is missing or older than CUDA 12.0 */
  TLC_ERROR_NO_DEVICE = 3,     /* the requested device does not exist */
  TLC_ERROR_NO_BINARY = 4,     /* the image has no code this device can run (SASS or PTX) */
  TLC_ERROR_IMAGE = 5,         /* the image could not be read, loaded or JIT-compiled */
  TLC_ERROR_NOT_FOUND = 6,     /* find_kernel: no kernel matches the pattern */
  TLC_ERROR_AMBIGUOUS = 7,     /* find_kernel: several kernels match the pattern */
  TLC_ERROR_LAUNCH = 8,        /* the driver rejected the launch */
  TLC_ERROR_DRIVER = 9         /* another driver call failed, or host memory ran out */
} tlc_status;

/* How to launch. Zero-initialise, then set grid and block; everything else is optional.
 *
 * `size` lets the struct grow without breaking callers: 0 means the first layout (the fields
 * below), which every tlc library accepts; a caller using a field added later sets size to
 * sizeof(tlc_config) (tlc_config_defaults() does), and a library that does not know a field the
 * caller set to a nonzero value refuses the launch instead of ignoring it. Fields are only ever
 * appended. */
typedef struct tlc_config {
  unsigned int size;         /* 0, or sizeof(tlc_config) as the caller compiled it */
  unsigned int grid[3];      /* blocks per grid; a 0 in y or z means 1 */
  unsigned int block[3];     /* threads per block; a 0 in y or z means 1 */
  unsigned int shared_bytes; /* dynamic shared memory per block; over 48 KiB is handled */
  CUstream stream;           /* NULL: the legacy default stream of the device's context */
  int device;                /* CUDA device ordinal */
  unsigned int cluster[3];   /* blocks per cluster; {0,0,0}: the kernel's __cluster_dims__ (a
                                compiled shape cannot be changed, only repeated) */
  int cooperative;           /* nonzero: a cooperative launch (grid-wide synchronisation) */
  int programmatic_dependent_launch; /* nonzero: may start before the previous kernel ends */
  const void* l2_persist_base;       /* with l2_persist_bytes > 0: an L2 persistence window */
  size_t l2_persist_bytes;
  float l2_persist_hit_ratio; /* fraction of the window to keep persisting, 0..1 */
} tlc_config;

/* A config with every field zero but `size`, for callers who use fields added after the first
   layout: tlc_config config = tlc_config_defaults(); */
static inline tlc_config tlc_config_defaults(void) {
  tlc_config config;
  memset(&config, 0, sizeof config);
  config.size = sizeof config;
  return config;
}

/* A tensor in global memory, passed for a kernel's tensor-map (TMA) parameter. The launcher
   encodes the CUtensorMap from this and the parameter's TLC_TMA annotation. Innermost dimension
   first, as in the driver's arrays; only the first `rank` dims and `rank - 1` strides are read. */
typedef struct tlc_tensor {
  void* data;          /* device address, 16-byte aligned (32 with interleave=32B) */
  uint64_t dims[5];    /* elements in each dimension */
  uint64_t strides[4]; /* strides[i]: bytes between neighbours along dimension i + 1 */
} tlc_tensor;

/* IEEE binary16 and bfloat16 values (and pairs of them) as bits, so C needs no cuda_fp16.h. In
   C++ each converts from the CUDA type it mirrors (__half, __nv_bfloat16, __half2,
   __nv_bfloat162: their bits), and tlc_half and tlc_bfloat16 also from float and double, rounded
   as cuda_fp16.h and cuda_bf16.h convert them; nothing else converts (an int16_t is not a half). */
#ifdef __cplusplus
#define TLC_BITS_CONVERSION(self, bits_type)                                                       \
  self() = default;                                                                                \
  template <typename T, typename = typename tlc_enable_if<                                         \
                            tlc_is_same<typename tlc_mirror_of<T>::type, self>::value>::type>      \
  self(const T& value) {                                                                           \
    memcpy(&bits, &value, sizeof bits);                                                            \
  }
#define TLC_FLOAT_CONVERSION(self, from_float, from_double)                                        \
  template <typename T, typename tlc_enable_if<tlc_is_same<T, float>::value, int>::type = 0>       \
  self(T value) : bits(from_float(value)) {                                                        \
  }                                                                                                \
  template <typename T, typename tlc_enable_if<tlc_is_same<T, double>::value, long>::type = 0>     \
  self(T value) : bits(from_double(value)) {                                                       \
  }
#else
#define TLC_BITS_CONVERSION(self, bits_type)
#define TLC_FLOAT_CONVERSION(self, from_float, from_double)
#endif
typedef struct tlc_half {
  uint16_t bits;
  TLC_BITS_CONVERSION(tlc_half, uint16_t)
  TLC_FLOAT_CONVERSION(tlc_half, tlc_half_bits_from_float, tlc_half_bits_from_double)
} tlc_half;
typedef struct tlc_bfloat16 {
  uint16_t bits;
  TLC_BITS_CONVERSION(tlc_bfloat16, uint16_t)
  TLC_FLOAT_CONVERSION(tlc_bfloat16, tlc_bfloat16_bits_from_float, tlc_bfloat16_bits_from_double)
} tlc_bfloat16;
typedef struct tlc_half2 {
  uint32_t bits; /* .x in the low half */
  TLC_BITS_CONVERSION(tlc_half2, uint32_t)
} tlc_half2;
typedef struct tlc_bfloat162 {
  uint32_t bits; /* .x in the low half */
  TLC_BITS_CONVERSION(tlc_bfloat162, uint32_t)
} tlc_bfloat162;
#undef TLC_BITS_CONVERSION
#undef TLC_FLOAT_CONVERSION

#ifdef __cplusplus
#define TLC_RESTRICT __restrict
#else
#define TLC_RESTRICT restrict
#endif

#if defined(__GNUC__)
#define TLC_EXPORT __attribute__((visibility("default")))
#else
#define TLC_EXPORT
#endif

#endif /* TLC_LAUNCHER_TYPES */

/* Conveniences over the types above, each under a guard of its own rather than
   TLC_LAUNCHER_TYPES: a header from an older tlc included first still leaves them to be defined
   here. */

/* C: 16-bit floats from and to float, as the CUDA toolkit's host conversions do them
   (__float2half_rn, __float2bfloat16_rn, __half2float, __bfloat162float), bit for bit:
   round-to-nearest-even, overflow to infinity, subnormals kept, and any NaN becomes the canonical
   NaN those give (0x7fff; 0x7fffffff back to float). */
#ifndef TLC_FLOAT_CONVERSIONS
#define TLC_FLOAT_CONVERSIONS 1
static inline tlc_half tlc_half_from_float(float value) {
  tlc_half out;
  out.bits = tlc_half_bits_from_float(value);
  return out;
}
static inline float tlc_half_to_float(tlc_half value) {
  uint32_t sign = TLC_CAST(uint32_t, value.bits & 0x8000u) << 16;
  uint32_t exponent = (value.bits >> 10) & 0x1fu;
  uint32_t mantissa = value.bits & 0x3ffu;
  if (exponent == 0x1fu) /* infinity keeps its sign; NaN becomes the canonical float NaN */
    return tlc_float_with_bits(mantissa ? 0x7fffffffu : (sign | 0x7f800000u));
  if (exponent == 0) { /* zero or subnormal: exact in float, mantissa * 2^-24 */
    float magnitude = TLC_CAST(float, mantissa) * (1.0f / 16777216.0f);
    return sign ? -magnitude : magnitude;
  }
  return tlc_float_with_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}
static inline tlc_bfloat16 tlc_bfloat16_from_float(float value) {
  tlc_bfloat16 out;
  out.bits = tlc_bfloat16_bits_from_float(value);
  return out;
}
static inline float tlc_bfloat16_to_float(tlc_bfloat16 value) {
  return tlc_float_with_bits(TLC_CAST(uint32_t, value.bits) << 16);
}
#endif /* TLC_FLOAT_CONVERSIONS */

/* C++: the CUDA types where a launcher takes tlc's (tlc_cuda_pointer: a `__half*` where the
   launcher takes `tlc_half*`, likewise const, __nv_bfloat16, __half2, __nv_bfloat162), and dim3
   (tlc_config_dims). The CUDA types are forward-declared here as cuda_fp16.h and cuda_bf16.h
   declare them, and dim3 comes from the toolkit's vector_types.h, so NAME.h may be included
   before or after the CUDA headers. */
#if defined(__cplusplus) && !defined(TLC_CUDA_TYPES)
#define TLC_CUDA_TYPES 1
#include <vector_types.h>
struct __half;
struct __half2;
struct __nv_bfloat16;
struct __nv_bfloat162;

template <> struct tlc_mirror_of<__half> {
  typedef tlc_half type;
};
template <> struct tlc_mirror_of<__half2> {
  typedef tlc_half2 type;
};
template <> struct tlc_mirror_of<__nv_bfloat16> {
  typedef tlc_bfloat16 type;
};
template <> struct tlc_mirror_of<__nv_bfloat162> {
  typedef tlc_bfloat162 type;
};

/* A Mirror* that a pointer to the CUDA type Mirror mirrors converts to as well, keeping const:
   a const __half* goes where a const tlc_half* does, never where a tlc_half* does. */
template <typename Mirror> struct tlc_cuda_pointer {
  Mirror* pointer;
  tlc_cuda_pointer(Mirror* value) : pointer(value) {}
  template <typename T,
            typename = typename tlc_enable_if<
                tlc_is_same<typename tlc_mirror_of<typename tlc_remove_const<T>::type>::type,
                            typename tlc_remove_const<Mirror>::type>::value &&
                (tlc_is_const<Mirror>::value || !tlc_is_const<T>::value)>::type>
  tlc_cuda_pointer(T* value) : pointer(reinterpret_cast<Mirror*>(value)) {}
};

/* A config as tlc_config_defaults() makes it, with grid and block from dim3s. */
static inline tlc_config tlc_config_dims(dim3 grid_dims, dim3 block_dims) {
  tlc_config made = tlc_config_defaults();
  made.grid[0] = grid_dims.x;
  made.grid[1] = grid_dims.y;
  made.grid[2] = grid_dims.z;
  made.block[0] = block_dims.x;
  made.block[1] = block_dims.y;
  made.block[2] = block_dims.z;
  return made;
}
#endif /* TLC_CUDA_TYPES */

/* C++: what the launchers of namespace tlc::NAME take (NAME.h; docs/launcher-api.md).
 *
 * tlc_launch is what `<<<grid, block, shared, stream>>>` says, written as a braced list:
 * `tlc::NAME::saxpy({grid, block, shared, stream}, a, x, y, n)`, the last two (and a device
 * ordinal after them) optional; or a whole tlc_config. grid and block are dim3s or integers, shared
 * an integer (a negative one, or one over 4 GiB - 1, becomes 4 GiB - 1, which every launch
 * refuses).
 *
 * tlc_record<Mirror> is a struct parameter: the mirror (NAME_Params), or a value of any type of
 * the caller's laid out as the kernel's struct is: trivially copyable, standard layout, the same
 * size and alignment, and every field the kernel's struct has present under its name at the
 * same offset with the same size (fields that are structs themselves checked likewise, in
 * turn). Size and alignment decide whether the type is taken; the fields are then checked by
 * static_assert, with the field's name in the message. Its bytes are passed, as CUDA passes the
 * kernel's own type. tlc_record_pointer<Mirror> is a pointer to such a struct: a Mirror*, or a
 * pointer to such a type, const kept. The checks are NAME.h's tlc_layout<Mirror>
 * specialisations, one per struct C can spell field by field; a struct it cannot (bit-fields,
 * unions, base classes) is passed only as its mirror. */
#if defined(__cplusplus) && !defined(TLC_CXX_LAUNCHERS) && !defined(TLC_C_API_ONLY)
#define TLC_CXX_LAUNCHERS 1
/* tlc_dims<T>::of(value): a grid or block shape from a dim3 (or uint3) or an integer, each as
   <<<...>>> takes it; ok is false for anything else. */
template <typename T> struct tlc_dims {
  static const bool ok = false;
};
template <> struct tlc_dims<dim3> {
  static const bool ok = true;
  static dim3 of(dim3 shape) { return shape; }
};
template <> struct tlc_dims<uint3> {
  static const bool ok = true;
  static dim3 of(uint3 shape) { return dim3(shape); }
};
#define TLC_INTEGER_DIMS(integer)                                                                  \
  template <> struct tlc_dims<integer> {                                                           \
    static const bool ok = true;                                                                   \
    static dim3 of(integer count) { return dim3(TLC_CAST(unsigned int, count)); }                  \
    static unsigned long long bytes(integer count) { return TLC_CAST(unsigned long long, count); } \
  };
TLC_INTEGER_DIMS(char)
TLC_INTEGER_DIMS(signed char)
TLC_INTEGER_DIMS(unsigned char)
TLC_INTEGER_DIMS(short)
TLC_INTEGER_DIMS(unsigned short)
TLC_INTEGER_DIMS(int)
TLC_INTEGER_DIMS(unsigned int)
TLC_INTEGER_DIMS(long)
TLC_INTEGER_DIMS(unsigned long)
TLC_INTEGER_DIMS(long long)
TLC_INTEGER_DIMS(unsigned long long)
#undef TLC_INTEGER_DIMS

struct tlc_launch {
  tlc_config config;
  /* grid and block: dim3s or integers; shared: an integer (bytes); each taken as its type is, so
     that `{(n + 255) / 256, 256}` is no narrowing conversion, as it is none in <<<...>>>. */
  template <typename Grid, typename Block, typename Shared = unsigned int,
            typename = typename tlc_enable_if<tlc_dims<Grid>::ok && tlc_dims<Block>::ok &&
                                              tlc_dims<Shared>::ok>::type>
  tlc_launch(Grid grid, Block block, Shared shared = 0, CUstream stream = 0, int device = 0);
  tlc_launch(const tlc_config& from) : config(from) {}
};
template <typename Grid, typename Block, typename Shared, typename>
inline tlc_launch::tlc_launch(Grid grid_shape, Block block_shape, Shared shared_size,
                              CUstream launch_stream, int launch_device)
    : config(tlc_config_dims(tlc_dims<Grid>::of(grid_shape), tlc_dims<Block>::of(block_shape))) {
  unsigned long long shared_bytes = tlc_dims<Shared>::bytes(shared_size);
  config.shared_bytes =
      shared_bytes > 0xffffffffu ? 0xffffffffu : TLC_CAST(unsigned int, shared_bytes);
  config.stream = launch_stream;
  config.device = launch_device;
}

/* An lvalue of T, in unevaluated operands only (sizeof, decltype). */
template <typename T> T& tlc_lvalue();
/* T without const and array extents: the element a field of type T holds. */
template <typename T> struct tlc_element_of {
  typedef T type;
};
template <typename T> struct tlc_element_of<const T> {
  typedef typename tlc_element_of<T>::type type;
};
template <typename T, size_t N> struct tlc_element_of<T[N]> {
  typedef typename tlc_element_of<T>::type type;
};
template <typename T, size_t N> struct tlc_element_of<const T[N]> {
  typedef typename tlc_element_of<T>::type type;
};

/* tlc_layout<Mirror>::check<T>() fails to compile unless T's fields lie as Mirror's do; NAME.h
   specialises it for each struct it mirrors field by field. A type that is no struct of a module
   (an int, a float4 field) has nothing to check beyond its size. */
template <typename Mirror> struct tlc_layout {
  static const bool by_fields = false;
  template <typename T> static void check() {}
};

/* Whether a T may be passed where the kernel takes Mirror: laid out alike, checked by
   tlc_layout<Mirror>::check<T>() where it is passed. */
template <typename T, typename Mirror> struct tlc_layout_candidate {
  static const bool value = !tlc_is_same<T, Mirror>::value && tlc_layout<Mirror>::by_fields &&
                            sizeof(T) == sizeof(Mirror) && alignof(T) == alignof(Mirror) &&
                            __is_trivially_copyable(T) && __is_standard_layout(T);
};

template <typename Mirror> struct tlc_record {
  Mirror value;
  tlc_record(const Mirror& mirror) : value(mirror) {}
  template <typename T, typename = typename tlc_enable_if<tlc_layout_candidate<
                            typename tlc_remove_const<T>::type, Mirror>::value>::type>
  tlc_record(const T& other) {
    tlc_layout<Mirror>::template check<typename tlc_remove_const<T>::type>();
    memcpy(&value, &other, sizeof value);
  }
};

template <typename Mirror> struct tlc_record_pointer {
  Mirror* pointer;
  tlc_record_pointer(Mirror* mirror) : pointer(mirror) {}
  template <typename T, typename = typename tlc_enable_if<
                            tlc_layout_candidate<typename tlc_remove_const<T>::type,
                                                 typename tlc_remove_const<Mirror>::type>::value &&
                            (tlc_is_const<Mirror>::value || !tlc_is_const<T>::value)>::type>
  tlc_record_pointer(T* other) : pointer(reinterpret_cast<Mirror*>(other)) {
    tlc_layout<typename tlc_remove_const<Mirror>::type>::template check<
        typename tlc_remove_const<T>::type>();
  }
};
#endif /* TLC_CXX_LAUNCHERS */
