/* fake_cuda.h: the control API of libtlc_fake_cuda.so, a fake CUDA driver for tests.
 *
 * The fake exports only cuGetProcAddress_v2; through it a program finds the driver entry points
 * tlc's launcher runtime uses (cuInit, cuDevice*, cuCtx*, cuLibrary*, cuKernel*, cuLink*,
 * cuLaunchKernel, cuLaunchKernelEx, cuTensorMapEncodeTiled/Im2col, ...), each at the ABI version it
 * has had since the CUDA release named in the fake's table. Point the launcher at it with
 * TLC_TEST_LIBCUDA=/path/to/libtlc_fake_cuda.so and link the test with it too: the dynamic
 * loader then maps it once, so the test's control calls and the launcher's driver calls share
 * one state.
 *
 * What the fake models:
 *   - Devices with a compute capability each (default: one device of 9.0). Each device has one
 *     primary context, retained and released with a count; a primary context whose count is 0
 *     is inactive and cannot be launched in. Each thread has its own context stack.
 *   - cuLibraryLoadData takes a cubin, an uncompressed fatbin (its SASS and PTX entries;
 *     compressed entries are skipped, and an image with nothing else is
 *     CUDA_ERROR_INVALID_IMAGE) or a cubin made by the fake's cuLinkComplete. cuLibraryGetKernel
 *     finds a symbol if any image holds it, or with a context current whose device runs PTX, if
 *     that PTX entry holds it (as on an H100). The code serving a device is the one the real driver
 *     picks: the SASS with the highest sm of the device's major and a minor not above its minor;
 *     else the PTX with the highest arch not above the device's (arch-specific `a` PTX only on
 *     that exact arch, family `f` PTX on its major with a minor not above the device's), the
 *     first such entry if several have that arch (seen on an H100: the driver JIT-compiles the
 *     first of several PTX entries of one arch and ignores the others). No code for the device:
 *     CUDA_ERROR_NO_BINARY_FOR_GPU. cuLibraryGetKernel with a context current,
 *     cuLibraryGetModule, cuKernelGetFunction and launches check this for their device.
 *   - PTX is "JIT-compiled" per library and device, the first time code is needed there
 *     (cuLibraryLoadData itself does it for the current context's device, as the real driver
 *     does, and like it returns CUDA_SUCCESS even when that fails): the fake reads the text's
 *     .entry / .visible .entry / .weak .entry names, their .param sizes and
 *     .reqnctapercluster, so launches check parameters as for cubins. The JIT fails with
 *     CUDA_ERROR_INVALID_PTX when the text is not PTX the fake reads (no .version or .target, a
 *     syntax error in a declaration), or calls an .extern .func it does not define ("ptxas fatal
 *     : Unresolved extern function 'NAME'", as the real driver says), or when a failure is
 *     injected for "jit" (fake_cuda_fail("jit", result, n): the next n JIT compilations, library
 *     loads and cuLinkAddData alike, fail with `result`). A failure writes its message into the
 *     CU_JIT_ERROR_LOG_BUFFER given to cuLibraryLoadData (or cuLinkCreate) and is kept: every
 *     later call needing that library's code on that device fails the same way. An injected
 *     failure's message contains FAKE_CUDA_JIT_INJECTED.
 *   - cuLinkCreate / cuLinkAddData / cuLinkComplete / cuLinkDestroy, in a current context, over
 *     PTX inputs only (CU_JIT_INPUT_PTX; other input types: CUDA_ERROR_NOT_SUPPORTED). An input
 *     that is not PTX the fake reads, or targets an arch the context's device cannot run, fails
 *     cuLinkAddData with CUDA_ERROR_INVALID_PTX. cuLinkComplete resolves each input's .extern
 *     .func against the .visible and .weak functions the inputs define; an unresolved one, or a
 *     non-weak function or entry defined twice, fails it with CUDA_ERROR_UNKNOWN (as the real
 *     driver does) and a log line per problem, e.g. "error   : Undefined reference to 'NAME' in
 *     'INPUT'" (INPUT: the name given to cuLinkAddData). It returns a cubin for the device's
 *     sm (major * 10 + minor), which cuLibraryLoadData accepts (kind FAKE_CUDA_CODE_LINKED, run
 *     as SASS is) and which holds every input's entries. The cubin is valid until
 *     cuLinkDestroy, which overwrites it.
 *   - Kernel attributes per kernel and device. CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
 *     starts at 48 KiB and may be raised up to the device's opt-in maximum; a launch asking for
 *     more dynamic shared memory than the attribute allows fails with CUDA_ERROR_INVALID_VALUE.
 *   - Each kernel's parameter sizes and __cluster_dims__, read from the image's .nv.info
 *     section (SASS) or its .entry declaration (PTX, linked code): a launch needs kernelParams when
 * the kernel has parameters, and records their values. A cluster (a launch attribute, else the
 * compiled shape; a kernel compiled with one cannot be launched with another) needs sm_90, must
 * tile the grid, and may hold more than 8 blocks (at most 16) only with
 * CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED; otherwise CUDA_ERROR_INVALID_CLUSTER_SIZE.
 *   - Every driver call except cuGetProcAddress, cuGetErrorName and cuGetErrorString needs
 *     cuInit first (CUDA_ERROR_NOT_INITIALIZED otherwise); cuInit fails with
 *     CUDA_ERROR_NO_DEVICE when there are no devices. Released handles (an unloaded library's
 *     kernels, a destroyed context) are refused as the driver refuses them.
 *   - A tensor map encoded by the fake holds a recognisable pattern that records which call
 *     encoded it (fake_cuda_tensor_map_source).
 *
 * Every driver call, failed or not, is appended to a log (fake_cuda_call); calls that needed
 * code on a device record which code served it (kind and SM: SASS, JIT-compiled PTX, linked).
 * The control calls below are not logged. All functions are thread safe.
 */
#ifndef TLC_FAKE_CUDA_H
#define TLC_FAKE_CUDA_H

#include <cuda.h>

#if defined(__GNUC__)
#define FAKE_CUDA_API __attribute__((visibility("default")))
#else
#define FAKE_CUDA_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define FAKE_CUDA_MAX_LAUNCH_ATTRIBUTES 8 /* launch attributes kept per logged launch */
#define FAKE_CUDA_MAX_PARAMS 32           /* kernel parameters kept per logged launch */
#define FAKE_CUDA_MAX_IMAGES 8            /* SMs kept per logged cuLibraryLoadData */
#define FAKE_CUDA_ALWAYS (-1)             /* fake_cuda_fail: fail every call from now on */

/* What kind of code serves a device (fake_cuda_call::code, fake_cuda_chosen_code). */
#define FAKE_CUDA_CODE_NONE (-1) /* none */
#define FAKE_CUDA_CODE_SASS 0    /* a cubin or a fatbin's ELF entry */
#define FAKE_CUDA_CODE_PTX 1     /* a fatbin's PTX entry, JIT-compiled by the driver */
#define FAKE_CUDA_CODE_LINKED 2  /* a cubin made by cuLinkComplete */

/* Text every injected JIT failure writes into the error log buffer. */
#define FAKE_CUDA_JIT_INJECTED "fake JIT failure injected by fake_cuda_fail(\"jit\")"

/* The arguments of a cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col call. Arrays hold the
   first `rank` (dims, box, element_strides), `rank - 1` (strides) or `rank - 2` (corners)
   values given; the rest are 0. */
typedef struct fake_cuda_tensor_map_call {
  CUtensorMap* map; /* where the encoded map was written */
  CUtensorMapDataType data_type;
  unsigned rank;
  void* address;
  cuuint64_t dims[5];
  cuuint64_t strides[4];
  cuuint32_t box[5]; /* tiled only */
  cuuint32_t element_strides[5];
  CUtensorMapInterleave interleave;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2_promotion;
  CUtensorMapFloatOOBfill oob_fill;
  int lower_corner[3];         /* im2col only: pixelBoxLowerCorner */
  int upper_corner[3];         /* im2col only: pixelBoxUpperCorner */
  unsigned channels_per_pixel; /* im2col only */
  unsigned pixels_per_column;  /* im2col only */
} fake_cuda_tensor_map_call;

/* One driver call as logged. Fields a call has nothing to say about are 0, NULL or -1 (as
   noted). */
typedef struct fake_cuda_call {
  long index;        /* position in the log */
  int thread;        /* the calling thread: 1, 2, ... in the order threads first called */
  char function[40]; /* the entry point, e.g. "cuLaunchKernelEx" */
  CUresult result;   /* what the fake returned */
  CUcontext context; /* the calling thread's current context at the call, or NULL */

  /* The device the call concerns (an argument, or the current context's device for context
     calls, cuLibraryGetModule and launches); -1 if none. */
  int device;
  /* The kernel symbol (cuLibraryGetKernel, cuKernel*, launches), for cuGetProcAddress the
     entry point asked for, for cuLinkAddData the input's name. */
  char symbol[512];
  int version;   /* cuGetProcAddress: the CUDA version asked for */
  int attribute; /* cuDeviceGetAttribute, cuKernelGet/SetAttribute: the attribute id */
  int value;     /* ... the value read or written; cuLinkAddData: the input type;
                    cuLinkComplete: the number of inputs */
  void* handle;  /* the object made or used: context, library, kernel, module, function,
                    link state */
  /* cuLibraryLoadData (with a context current), cuLibraryGetKernel (likewise),
     cuLibraryGetModule, cuKernelGetFunction, launches: the code serving the device, whether or
     not its JIT succeeded: its kind (FAKE_CUDA_CODE_*) and its SM (SASS, linked) or arch (PTX,
     e.g. 80 for compute_80); FAKE_CUDA_CODE_NONE and -1 if none. */
  int code;
  int sm;
  int image_count; /* cuLibraryLoadData: the images found (SASS, PTX, linked), their kinds and
                      SMs, in order */
  int image_codes[FAKE_CUDA_MAX_IMAGES];
  int image_sms[FAKE_CUDA_MAX_IMAGES];

  /* Launches (cuLaunchKernel, cuLaunchKernelEx). */
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  CUstream stream;
  unsigned attribute_count; /* cuLaunchKernelEx: numAttrs as given; the first
                               FAKE_CUDA_MAX_LAUNCH_ATTRIBUTES are kept, as given */
  CUlaunchAttribute attributes[FAKE_CUDA_MAX_LAUNCH_ATTRIBUTES];
  int param_count;                    /* the kernel's parameters per its image; -1 if unknown */
  void* params[FAKE_CUDA_MAX_PARAMS]; /* kernelParams[i] as passed */
  /* The value of each parameter, read during the launch: its first 8 bytes (fewer for a
     smaller parameter), as an integer on this little-endian host. */
  unsigned long long param_values[FAKE_CUDA_MAX_PARAMS];
  /* For each parameter: the log index of the encode call whose map kernelParams[i] pointed at
     during the launch, or -1 if it did not point at a map the fake encoded. */
  long param_tensor_map[FAKE_CUDA_MAX_PARAMS];

  fake_cuda_tensor_map_call tensor_map; /* cuTensorMapEncodeTiled/Im2col */
} fake_cuda_call;

/* Back to the start: one device of compute capability 9.0, not initialised, nothing loaded or
   retained, no failures or hidden entry points, an empty log. Handles made before become
   invalid. The calling thread's context stack is emptied, and other threads' stacks are
   emptied at their next driver call. */
FAKE_CUDA_API void fake_cuda_reset(void);

/* Sets the devices from a list of compute capabilities, e.g. "9.0,8.6" (device 0 is 9.0);
   "" means no device. Returns 0, or -1 (and changes nothing) if `spec` is malformed. Call it
   before the driver is used: devices and their primary contexts are made anew. */
FAKE_CUDA_API int fake_cuda_set_devices(const char* spec);

/* Failure injection: the next `times` calls of entry point `function` (e.g. "cuInit", or
   "cuGetProcAddress") return `result` and do nothing else; FAKE_CUDA_ALWAYS makes every later
   call fail, 0 cancels. `function` "jit" makes the next `times` PTX JIT compilations fail
   instead (see above). */
FAKE_CUDA_API void fake_cuda_fail(const char* function, CUresult result, int times);

/* Makes cuGetProcAddress answer CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND for `function`, as a
   driver that lacks it would. */
FAKE_CUDA_API void fake_cuda_hide(const char* function);

/* The log. */
FAKE_CUDA_API long fake_cuda_log_size(void);
/* Copies entry `index` to `out`; returns 1, or 0 if there is no such entry. */
FAKE_CUDA_API int fake_cuda_log_entry(long index, fake_cuda_call* out);
/* How many calls of `function` the log holds, whatever their result. */
FAKE_CUDA_API int fake_cuda_count(const char* function);
/* Empties the log (the driver's state stays as it is). */
FAKE_CUDA_API void fake_cuda_clear_log(void);

/* Contexts. These stand in for cuCtxCreate, cuCtxDestroy and cuCtxSetCurrent. */
/* A new (non-primary) context on `device`; NULL if there is no such device. It is not made
   current. */
FAKE_CUDA_API CUcontext fake_cuda_create_context(int device);
/* Destroys a context made by fake_cuda_create_context, popping it if it is the calling
   thread's current context (as cuCtxDestroy does); returns 0, or -1 if it is not a live one. */
FAKE_CUDA_API int fake_cuda_destroy_context(CUcontext context);
/* As cuCtxSetCurrent: replaces the top of the calling thread's stack with `context` (pushes it
   if the stack is empty); NULL pops the top. Returns 0, or -1 if `context` is neither NULL nor
   a live context of the fake. */
FAKE_CUDA_API int fake_cuda_set_current(CUcontext context);
/* The calling thread's current context (NULL if none) and its stack's depth. */
FAKE_CUDA_API CUcontext fake_cuda_current_context(void);
FAKE_CUDA_API int fake_cuda_context_depth(void);
/* The device of a context; -1 if it is not a context of the fake. */
FAKE_CUDA_API int fake_cuda_context_device(CUcontext context);
/* Device `device`'s primary context (without retaining it), NULL if there is no such device,
   and how many retains it has outstanding (-1 if there is no such device). */
FAKE_CUDA_API CUcontext fake_cuda_primary_context(int device);
FAKE_CUDA_API int fake_cuda_primary_retains(int device);

/* Libraries and kernels. */
/* Libraries loaded and not unloaded. */
FAKE_CUDA_API int fake_cuda_loaded_libraries(void);
/* The code the latest call that needed code on `device` (cuLibraryGetKernel with a context
   current, cuLibraryGetModule, cuKernelGetFunction, a launch) found serving it, JIT-compiled
   successfully if PTX: its SM (or PTX arch) and its kind (FAKE_CUDA_CODE_*); -1 and
   FAKE_CUDA_CODE_NONE if none did. */
FAKE_CUDA_API int fake_cuda_chosen_sm(int device);
FAKE_CUDA_API int fake_cuda_chosen_code(int device);
/* How many PTX JIT compilations the fake has done (failed ones included), library loads and
   cuLinkAddData alike, since the last reset. */
FAKE_CUDA_API int fake_cuda_jit_count(void);
/* Reads attribute `attribute` of kernel `symbol` on `device` in the latest loaded library, as
   cuKernelGetAttribute would; returns 0, or -1 if there is no such device or cuLibraryGetKernel
   has not found that kernel there. */
FAKE_CUDA_API int fake_cuda_kernel_attribute(const char* symbol, int device,
                                             CUfunction_attribute attribute, int* value);

/* Tensor maps: the log index of the encode call that wrote `map`, or -1 if `map` does not hold
   the fake's pattern. */
FAKE_CUDA_API long fake_cuda_tensor_map_source(const CUtensorMap* map);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TLC_FAKE_CUDA_H */
