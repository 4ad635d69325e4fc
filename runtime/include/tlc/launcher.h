/* The C types every tlc launcher library shares: status codes, the launch config, tensors for
 * tensor-map parameters, 16-bit float bits. tlc copies this file into every NAME.h it generates,
 * so a generated header needs only cuda.h; the runtime library compiles against this very file.
 *
 * One definition per translation unit, whichever tlc wrote the header included first: the types
 * only ever grow at their end, and tlc_config says how large the caller's copy is (`size`). */
#ifndef TLC_LAUNCHER_TYPES
#define TLC_LAUNCHER_TYPES 1

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __cplusplus
#include <type_traits>
#else
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
  template <typename T,                                                                            \
            typename = typename std::enable_if<sizeof(T) == sizeof(bits_type) &&                   \
                                               std::is_standard_layout<T>::value>::type>           \
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
