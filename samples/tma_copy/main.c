/* samples/tma_copy: copies and transposes a bf16 matrix through TMA loads and stores, from C,
 * passing the tensors as tlc_tensor (the launcher encodes the tensor maps) and, once, as tensor
 * maps encoded here (the _encoded entry point). Every element must arrive bit for bit.
 *
 * The matrix is 328 x 200: a multiple of the 64 x 64 tile in neither dimension, so the edge
 * tiles hang over the matrix. A TMA load fills the overhang with zeros, and a TMA store drops
 * it, which the test checks: each row is followed by padding, and each matrix by guard rows,
 * all poisoned beforehand and required to stay so. A store clips the innermost dimension only
 * to 16 bytes, though: when a row's length in bytes is not a multiple of 16, it also writes the
 * rest of the last 16-byte chunk (on an H100, a 190-column row had columns 190 and 191
 * overwritten with the overhang's zeros). Both dimensions are therefore multiples of 8 bf16
 * elements (16 bytes), since either one is the innermost dimension of a stored matrix.
 * Prints PASS or FAIL; exits non-zero on a mismatch or error. */
#include "tma_copy.h"

#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* cuda.h aligns CUtensorMap (the driver wants 64 bytes) only from C11 on: build with -std=c11. */
_Static_assert(_Alignof(CUtensorMap) >= 64, "CUtensorMap must be 64-byte aligned; use C11");

#define CHECK_CU(call)                                                                             \
  do {                                                                                             \
    CUresult result_ = (call);                                                                     \
    if (result_ != CUDA_SUCCESS) {                                                                 \
      fprintf(stderr, "FAIL: %s returned %d\n", #call, (int)result_);                              \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

enum {
  ROWS = 328, /* 5 tiles and 8 rows */
  COLS = 200, /* 3 tiles and 8 columns */
  TILE = 64,
  GUARD_ROWS = TILE /* poisoned rows after each matrix: no store may reach them */
};

/* All ones is a NaN: random_bf16 never produces it, so any element still holding it afterwards
   was not written. */
static const uint16_t POISON = 0xFFFF;

static uint64_t random_state;

/* xorshift64*: a different matrix each run. The seed is printed; pass it as the program's
   argument to repeat a run. */
static uint64_t next_random(void) {
  random_state ^= random_state >> 12;
  random_state ^= random_state << 25;
  random_state ^= random_state >> 27;
  return random_state * 2685821657736338717ull;
}

/* Any finite bf16 (sign, exponent, mantissa all random, exponent 0xFF excluded), so that nearly
   every element differs and a misplaced one is caught. */
static uint16_t random_bf16(void) {
  for (;;) {
    uint16_t bits = (uint16_t)(next_random() >> 48);
    if (((bits >> 7) & 0xFF) != 0xFF)
      return bits;
  }
}

/* Row pitch in bytes for rows of `elements` followed by `padding` poisoned elements. TMA needs
   every row stride to be a multiple of 16 bytes. */
static size_t pitch_of(size_t elements, size_t padding) {
  return ((elements + padding) * sizeof(uint16_t) + 15) / 16 * 16;
}

/* A rows x cols matrix in device memory, row-major with the given pitch, as a tlc_tensor:
   dimension 0 is the column (contiguous), dimension 1 the row. */
static tlc_tensor tensor_of(CUdeviceptr data, size_t rows, size_t cols, size_t pitch) {
  tlc_tensor tensor = {0};
  tensor.data = (void*)(uintptr_t)data;
  tensor.dims[0] = cols;
  tensor.dims[1] = rows;
  tensor.strides[0] = pitch;
  return tensor;
}

/* Fills a device matrix of `rows` x `pitch` bytes with POISON, padding and guard rows included. */
static void poison(CUdeviceptr data, size_t rows, size_t pitch) {
  CHECK_CU(cuMemsetD16(data, POISON, (rows + GUARD_ROWS) * pitch / sizeof(uint16_t)));
}

/* Compares a device matrix with the source matrix (or its transpose) and checks that the
   padding and the guard rows still hold POISON. Returns the number of wrong elements. */
static long count_wrong(CUdeviceptr data, size_t rows, size_t cols, size_t pitch,
                        const uint16_t* source, size_t source_pitch, int transposed) {
  size_t stride = pitch / sizeof(uint16_t), source_stride = source_pitch / sizeof(uint16_t);
  uint16_t* host = malloc((rows + GUARD_ROWS) * pitch);
  long wrong = 0;
  CHECK_CU(cuMemcpyDtoH(host, data, (rows + GUARD_ROWS) * pitch));
  for (size_t r = 0; r < rows + GUARD_ROWS; ++r)
    for (size_t c = 0; c < stride; ++c) {
      uint16_t expected = POISON;
      if (r < rows && c < cols)
        expected = transposed ? source[c * source_stride + r] : source[r * source_stride + c];
      if (host[r * stride + c] != expected) {
        if (wrong < 5)
          fprintf(stderr, "  (%zu, %zu): 0x%04x, expected 0x%04x\n", r, c,
                  (unsigned)host[r * stride + c], (unsigned)expected);
        ++wrong;
      }
    }
  free(host);
  return wrong;
}

static int failures = 0;

static void report(const char* what, tlc_status status, long wrong) {
  if (status != TLC_SUCCESS) {
    printf("  FAIL %s: %s: %s\n", what, tlc_tma_copy_status_string(status),
           tlc_tma_copy_last_error());
    ++failures;
  } else {
    printf("  %s %s (%ld wrong)\n", wrong ? "FAIL" : "ok  ", what, wrong);
    failures += wrong != 0;
  }
}

int main(int argc, char** argv) {
  random_state =
      argc > 1 ? strtoull(argv[1], NULL, 10) : (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
  random_state |= 1; /* xorshift must not start from 0 */
  printf("tma_copy: %d x %d bf16, seed %llu\n", ROWS, COLS, (unsigned long long)random_state);

  CUdevice device;
  CUcontext context;
  CHECK_CU(cuInit(0));
  CHECK_CU(cuDeviceGet(&device, 0));
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));

  /* Input: random elements in the matrix, POISON in the padding. The outputs' pitches differ
     from the input's, so that each tensor map must use its own tensor's stride. */
  size_t in_pitch = pitch_of(COLS, 24), copy_pitch = pitch_of(COLS, 40),
         t_pitch = pitch_of(ROWS, 8);
  uint16_t* source = malloc(ROWS * in_pitch);
  for (size_t r = 0; r < ROWS; ++r)
    for (size_t c = 0; c < in_pitch / sizeof(uint16_t); ++c)
      source[r * (in_pitch / sizeof(uint16_t)) + c] = c < COLS ? random_bf16() : POISON;
  CUdeviceptr din, dcopy, dtransposed;
  CHECK_CU(cuMemAlloc(&din, ROWS * in_pitch));
  CHECK_CU(cuMemAlloc(&dcopy, (ROWS + GUARD_ROWS) * copy_pitch));
  CHECK_CU(cuMemAlloc(&dtransposed, (COLS + GUARD_ROWS) * t_pitch));
  CHECK_CU(cuMemcpyHtoD(din, source, ROWS * in_pitch));

  tlc_tensor in = tensor_of(din, ROWS, COLS, in_pitch);
  tlc_tensor copy = tensor_of(dcopy, ROWS, COLS, copy_pitch);
  tlc_tensor transposed = tensor_of(dtransposed, COLS, ROWS, t_pitch);

  /* One block per 64 x 64 tile of the input; partial tiles at the right and bottom edges. */
  tlc_config config = {0};
  config.grid[0] = (COLS + TILE - 1) / TILE;
  config.grid[1] = (ROWS + TILE - 1) / TILE;
  tlc_status status;

  /* 1. copy, tensor maps encoded by the launcher */
  poison(dcopy, ROWS, copy_pitch);
  config.block[0] = 32;
  status = tma_copy_copy_tiles(&config, &in, &copy);
  if (status == TLC_SUCCESS)
    CHECK_CU(cuCtxSynchronize());
  report("copy_tiles", status,
         status == TLC_SUCCESS ? count_wrong(dcopy, ROWS, COLS, copy_pitch, source, in_pitch, 0)
                               : 0);

  /* 2. transpose, tensor maps encoded by the launcher */
  poison(dtransposed, COLS, t_pitch);
  config.block[0] = 256;
  status = tma_copy_transpose_tiles(&config, &in, &transposed);
  if (status == TLC_SUCCESS)
    CHECK_CU(cuCtxSynchronize());
  report("transpose_tiles", status,
         status == TLC_SUCCESS ? count_wrong(dtransposed, COLS, ROWS, t_pitch, source, in_pitch, 1)
                               : 0);

  /* 3. copy again, through the entry point that takes tensor maps encoded by the caller. The
     encoding repeats copy_tiles' annotation: bf16, 64 x 64 box, 128-byte swizzle. */
  {
    CUtensorMap maps[2];
    const tlc_tensor* tensors[2] = {&in, &copy};
    for (int i = 0; i < 2; ++i) {
      cuuint32_t box[2] = {TILE, TILE}, element_strides[2] = {1, 1};
      CHECK_CU(cuTensorMapEncodeTiled(
          &maps[i], CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, tensors[i]->data,
          (const cuuint64_t*)tensors[i]->dims, (const cuuint64_t*)tensors[i]->strides, box,
          element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
          CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    }
    poison(dcopy, ROWS, copy_pitch);
    config.block[0] = 32;
    status = tma_copy_copy_tiles_encoded(&config, &maps[0], &maps[1]);
    if (status == TLC_SUCCESS)
      CHECK_CU(cuCtxSynchronize());
    report("copy_tiles_encoded", status,
           status == TLC_SUCCESS ? count_wrong(dcopy, ROWS, COLS, copy_pitch, source, in_pitch, 0)
                                 : 0);
  }

  CHECK_CU(cuMemFree(din));
  CHECK_CU(cuMemFree(dcopy));
  CHECK_CU(cuMemFree(dtransposed));
  free(source);
  printf("%s: tma_copy sample, %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
