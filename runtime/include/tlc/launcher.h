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
#endif /* TLC_TYPE_TRAITS */

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
   C++ any 2- or 4-byte standard-layout value converts to them bit for bit, so __half,
   __nv_bfloat16, __half2 and __nv_bfloat162 (whose copy constructors make them not trivially
   copyable, though they are their bits) pass without casts. */
#ifdef __cplusplus
#define TLC_BITS_CONVERSION(self, bits_type)                                                       \
  self() = default;                                                                                \
  template <typename T, typename = typename tlc_enable_if<sizeof(T) == sizeof(bits_type) &&        \
                                                          __is_standard_layout(T)>::type>          \
  self(const T& value) {                                                                           \
    memcpy(&bits, &value, sizeof bits);                                                            \
  }
#else
#define TLC_BITS_CONVERSION(self, bits_type)
#endif
typedef struct tlc_half {
  uint16_t bits;
  TLC_BITS_CONVERSION(tlc_half, uint16_t)
} tlc_half;
typedef struct tlc_bfloat16 {
  uint16_t bits;
  TLC_BITS_CONVERSION(tlc_bfloat16, uint16_t)
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
static inline uint32_t tlc_float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}
static inline float tlc_float_of_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}
/* Drops the low `shift` bits of `bits`, rounding to nearest, ties to even. */
static inline uint32_t tlc_round_shift(uint32_t bits, unsigned shift) {
  uint32_t kept = bits >> shift;
  uint32_t rest = bits & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  return kept + (uint32_t)(rest > half || (rest == half && (kept & 1u)));
}
static inline tlc_half tlc_half_from_float(float value) {
  uint32_t bits = tlc_float_bits(value);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7fffffffu;
  tlc_half out;
  if (magnitude > 0x7f800000u) /* NaN */
    out.bits = 0x7fffu;
  else if (magnitude >= 0x477ff000u) /* rounds to at least 65536, or infinity: infinity */
    out.bits = (uint16_t)(sign | 0x7c00u);
  else if (magnitude >= 0x38800000u) /* a normal half: rebias the exponent, round the mantissa */
    out.bits = (uint16_t)(sign | tlc_round_shift(magnitude - 0x38000000u, 13));
  else if (magnitude < 0x33000001u) /* at most half the smallest subnormal: zero */
    out.bits = (uint16_t)sign;
  else /* a subnormal half: the mantissa with its implicit bit, shifted by the exponent's lack */
    out.bits = (uint16_t)(sign | tlc_round_shift((magnitude & 0x7fffffu) | 0x800000u,
                                                 126u - (magnitude >> 23)));
  return out;
}
static inline float tlc_half_to_float(tlc_half value) {
  uint32_t sign = (uint32_t)(value.bits & 0x8000u) << 16;
  uint32_t exponent = (value.bits >> 10) & 0x1fu;
  uint32_t mantissa = value.bits & 0x3ffu;
  if (exponent == 0x1fu) /* infinity keeps its sign; NaN becomes the canonical float NaN */
    return tlc_float_of_bits(mantissa ? 0x7fffffffu : (sign | 0x7f800000u));
  if (exponent == 0) { /* zero or subnormal: exact in float, mantissa * 2^-24 */
    float magnitude = (float)mantissa * (1.0f / 16777216.0f);
    return sign ? -magnitude : magnitude;
  }
  return tlc_float_of_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}
static inline tlc_bfloat16 tlc_bfloat16_from_float(float value) {
  uint32_t bits = tlc_float_bits(value);
  tlc_bfloat16 out;
  if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN */
    out.bits = 0x7fffu;
  else /* the top half, rounded; a carry out of the mantissa bumps the exponent, to inf at most */
    out.bits = (uint16_t)tlc_round_shift(bits, 16);
  return out;
}
static inline float tlc_bfloat16_to_float(tlc_bfloat16 value) {
  return tlc_float_of_bits((uint32_t)value.bits << 16);
}
#endif /* TLC_FLOAT_CONVERSIONS */

/* C++: the CUDA types where a launcher takes tlc's. A launcher's parameter `tlc_half* x` also
   takes a `__half*` (likewise const, __nv_bfloat16, __half2, __nv_bfloat162) through
   tlc_cuda_pointer, and every launcher has an overload taking dim3 grid and block in place of the
   config (NAME.h declares both). The CUDA types are forward-declared here as cuda_fp16.h and
   cuda_bf16.h declare them, and dim3 comes from the toolkit's vector_types.h, so NAME.h may be
   included before or after the CUDA headers. */
#if defined(__cplusplus) && !defined(TLC_CUDA_TYPES)
#define TLC_CUDA_TYPES 1
#include <vector_types.h>
struct __half;
struct __half2;
struct __nv_bfloat16;
struct __nv_bfloat162;

/* tlc_mirror_of<T>::type: the tlc type T is laid out as, void for any other T. */
template <typename T> struct tlc_mirror_of {
  typedef void type;
};
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
static inline tlc_config tlc_config_dims(dim3 grid, dim3 block) {
  tlc_config config = tlc_config_defaults();
  config.grid[0] = grid.x;
  config.grid[1] = grid.y;
  config.grid[2] = grid.z;
  config.block[0] = block.x;
  config.block[1] = block.y;
  config.block[2] = block.z;
  return config;
}
#endif /* TLC_CUDA_TYPES */
