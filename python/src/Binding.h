/* The binding library's own declarations: the extension module's state and the conversions
 * Parse.c calls (Arrays.c, Scalars.c). Nothing here is visible outside libtlc_python.a. */
#ifndef TLC_PYTHON_BINDING_H
#define TLC_PYTHON_BINDING_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030A0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "DlpackExchange.h"
#include "LaunchOptions.h"
#include "tlc/python.h"

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The launch options every launcher takes by keyword, in this order (LaunchOptions.h). */
#define TLC_PY_OPTION_ID(id, name) OPTION_##id,
enum tlc_py_option { TLC_PY_LAUNCH_OPTIONS(TLC_PY_OPTION_ID) OPTION_COUNT };
#undef TLC_PY_OPTION_ID

extern const char* const tlc_py_option_names[OPTION_COUNT];

/* Each tlc_py_dtype's name, as torch names it ("float32", "float8_e4m3fn"). */
extern const char* const tlc_py_dtype_names[TLC_PY_DT_COUNT];

/* How an argument's type gives a device address, decided once per type. */
enum tlc_py_array_kind {
  ARRAY_NONE = 0,
  ARRAY_TORCH,   /* a torch.Tensor (or subclass): data_ptr(), get_device() */
  ARRAY_CUPY,    /* a cupy.ndarray: data.ptr, data.device_id, dtype, CuPy's current stream */
  ARRAY_CAI,     /* __cuda_array_interface__ */
  ARRAY_DLPACK,  /* __dlpack__ */
  ARRAY_INDEX,   /* an integer-like object (__index__): the address itself */
  ARRAY_EXCHANGE /* only the DLPack exchange API of its type (__dlpack_c_exchange_api__) */
};

/* What the binding learned about an argument's type the first time it saw one (Arrays.c). */
typedef struct tlc_py_type_info {
  PyObject* type;              /* a strong reference; NULL: a free slot */
  unsigned char kind;          /* tlc_py_array_kind */
  unsigned char dlpack_device; /* it has __dlpack_device__ (CuPy): a CUDA array says its device */
  unsigned char legacy_dlpack; /* __dlpack__ refused max_version: asked without it since */
  /* torch tensors: the type's data_ptr and get_device and its dtype descriptor (strong
     references; NULL: looked up on each tensor), so that a call does not look them up again,
     and the descriptor's getter. */
  PyObject* data_ptr;
  PyObject* get_device;
  PyObject* dtype;
  descrgetfunc get_dtype;
  /* The exchange API the type itself defines (its capsule, a strong reference, keeps it alive;
     NULL: none): tried before `kind`, which is what a failure falls back to. */
  PyObject* exchange_capsule;
  const struct tlc_dlpack_exchange_api* exchange;
} tlc_py_type_info;

#define TLC_PY_TYPE_CACHE 8
#define TLC_PY_DTYPE_CACHE 32 /* torch has about 30 dtypes */

/* Interned strings the binding looks attributes up by. */
typedef struct tlc_py_strings {
  PyObject* data_ptr;
  PyObject* get_device;
  PyObject* element_size;
  PyObject* stride;
  PyObject* shape;
  PyObject* cuda_array_interface;
  PyObject* data;
  PyObject* strides;
  PyObject* typestr;
  PyObject* mask;
  PyObject* stream;
  PyObject* dlpack;
  PyObject* dlpack_device;
  PyObject* max_version;
  PyObject* cuda_stream;
  PyObject* cuda_stream_protocol; /* __cuda_stream__ */
  PyObject* dtype;
  PyObject* descr; /* __cuda_array_interface__ keys the binding does not read */
  PyObject* version;
  PyObject* ptr;                 /* cupy.ndarray.data.ptr */
  PyObject* device_id;           /* cupy.ndarray.data.device_id */
  PyObject* str;                 /* a numpy dtype's typestr */
  PyObject* dict;                /* a type's __dict__ */
  PyObject* dlpack_exchange_api; /* __dlpack_c_exchange_api__ */
} tlc_py_strings;

/* A call site's keyword layout (CallSites.c): how a call the general path accepted matched its
   keyword names, so that the next call passing the same names (the same tuple object) maps its
   arguments without matching them again. */
#define TLC_PY_SITE_KEYWORDS 16 /* a site naming more keywords is not learned */
#define TLC_PY_SITES 2          /* per launcher, the most recently learned first */
#define TLC_PY_SITE_MEMO 8      /* the parameters whose last values a site remembers */
#define TLC_PY_SITE_DECLINES 4  /* a site's calls the path declines before it stops trying */
#define TLC_PY_SITE_RETRY 64
typedef struct tlc_py_site {
  PyObject* kwnames; /* the call's keyword names (a strong reference); NULL: a free slot */
  Py_ssize_t nargs;  /* its positional arguments */
  int keywords;      /* the tuple's size */
  /* Calls from here in a row that this path declined and the general path accepted (an array
     without the exchange API, a list for a dimension...): from TLC_PY_SITE_DECLINES on, calls
     from here go to the general path straight away, all but one in TLC_PY_SITE_RETRY (`skipped`
     counts them), which tries this path again. */
  int declined;
  int skipped;
  /* Per keyword: a parameter's index, or the parameter count plus an option's. */
  unsigned short slots[TLC_PY_SITE_KEYWORDS];
  /* The last value read here for each of the first parameters and for grid= and block=, by the
     object it was read from: a strong reference to an exact int, float or bool, or to a tuple of
     exact ints, none of which can change, so that the same object passed again is taken as
     read. NULL: none. */
  PyObject* memo[TLC_PY_SITE_MEMO];
  tlc_py_value memo_values[TLC_PY_SITE_MEMO];
  PyObject* dims_memo[2];
  unsigned int dims[2][3];
} tlc_py_site;

/* The keyword tuples of the launcher's last calls that the general path accepted, held: a
   tuple is learned as a site the second time it is seen, so that the new tuple each call
   through **kwargs builds (seen once, never again) does not take a site's place. */
#define TLC_PY_SITES_SEEN 4

typedef struct tlc_py_launcher_sites {
  tlc_py_site sites[TLC_PY_SITES];
  PyObject* seen[TLC_PY_SITES_SEEN]; /* strong references; NULL: free */
  int next_seen;                     /* the entry the next tuple seen takes */
  int usual; /* every parameter a pointer or one number: the call-site path can convert it */
} tlc_py_launcher_sites;

typedef struct tlc_py_state {
  const tlc_py_module* module;
  tlc_py_launcher_sites* sites; /* one per launcher */
  /* types[i].type, borrowed: a launch finds an argument's type in one cache line. */
  PyObject* type_keys[TLC_PY_TYPE_CACHE];
  PyObject* error;     /* NAME.tlc.Error */
  PyObject** keywords; /* every launcher's parameter keywords, launcher after launcher */
  int* first_keyword;  /* per launcher: its first entry in `keywords` */
  PyObject* options[OPTION_COUNT];
  tlc_py_strings strings;
  /* torch, once an argument was a tensor: torch.Tensor, and the function giving a device's
     current stream (torch._C._cuda_getCurrentRawStream). */
  PyObject* torch_tensor;
  PyObject* torch_current_stream;
  /* CuPy, once an argument's type was new while CuPy was imported: cupy.ndarray and the C
     function giving CuPy's current stream (NULL: this CuPy offers none, its arrays go through
     __cuda_array_interface__); cupy_looked: both were looked for. */
  PyObject* cupy_ndarray;
  intptr_t (*cupy_current_stream)(void);
  int cupy_looked;
  /* Types seen before, with how they give an address. */
  tlc_py_type_info types[TLC_PY_TYPE_CACHE];
  int next_type; /* the slot the next new type takes */
  /* __dlpack__'s arguments that do not change: () and max_version=(1, 0). */
  PyObject* empty_tuple;
  PyObject* dlpack_max_version;
  /* torch dtypes seen (torch.float32, ...: one object each), with their tlc_py_dtype (strong
     references). */
  PyObject* torch_dtypes[TLC_PY_DTYPE_CACHE];
  unsigned char torch_dtype_codes[TLC_PY_DTYPE_CACHE];
  int torch_dtype_count;
  /* numpy dtypes of CuPy arrays seen (one object per builtin dtype), with their element type
     and size (strong references). */
  PyObject* cupy_dtypes[TLC_PY_DTYPE_CACHE];
  unsigned char cupy_dtype_codes[TLC_PY_DTYPE_CACHE];
  unsigned short cupy_dtype_sizes[TLC_PY_DTYPE_CACHE];
  int cupy_dtype_count;
} tlc_py_state;

/* Which device and stream a launch uses when the caller does not say: those of its first array
   argument (docs/python.md). */
typedef struct tlc_py_defaults {
  int device;       /* -1 until known */
  int device_given; /* device= was passed: arrays on another device are refused */
  int stream_known; /* stream= was passed, or the first array said */
  int array_seen;   /* an array argument came before: it decided what arrays decide */
  CUstream stream;  /* NULL: the legacy default stream of the device's context */
} tlc_py_defaults;

/* Where a message's argument is: the launcher and what is converted. */
typedef struct tlc_py_where {
  const char* launcher;
  const char* argument; /* a parameter's keyword, or an option's name */
  const char* type;     /* its C type, or NULL for options */
} tlc_py_where;

tlc_py_state* tlc_py_state_of(PyObject* module);

/* TorchOps.cpp: _ext.register_torch_kernels(namespace, names, libraries). */
PyObject* tlc_py_register_torch_kernels(PyObject* self, PyObject* args);

/* CallSites.c: the call-site path. tlc_py_parse_site parses a call from a site learned before
   when every argument comes in its usual form: 0; 1 (nothing raised) where the general path
   must parse the call; -1 with the exception an array's framework raised that the general path
   would raise too. tlc_py_learn_site remembers the layout of a call the general path accepted
   (`slots`: its keywords' matches). */
int tlc_py_init_sites(tlc_py_state* state);
void tlc_py_free_sites(tlc_py_state* state);
int tlc_py_parse_site(tlc_py_state* state, int index, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames, tlc_py_call* call);
void tlc_py_learn_site(tlc_py_state* state, int index, Py_ssize_t nargs, PyObject* kwnames,
                       const unsigned short* slots, unsigned given);

/* Arrays.c: a pointer argument's address (`writable`: the kernel may write through it;
   `accepts`: the element types it takes, TLC_PY_ACCEPTS_ANY for any) and a tensor-map
   argument's tensor; both apply what the first array decides (tlc_py_defaults). */
int tlc_py_address(tlc_py_state* state, const tlc_py_where* where, PyObject* object, int writable,
                   unsigned long long accepts, tlc_py_defaults* defaults, void** address);
int tlc_py_tensor(tlc_py_state* state, const tlc_py_where* where, const tlc_py_param* param,
                  PyObject* object, tlc_py_defaults* defaults, tlc_tensor* tensor);

/* Drops what the per-type cache holds (the module's teardown). */
void tlc_py_release_types(tlc_py_state* state);

/* An array argument in its usual form, for the call-site path: 0 with its address and the
   defaults applied as the general path applies them, 1 (nothing raised) for anything the
   general path must read, or -1 with the exception the framework's read raised where the
   general path would raise it too. */
int tlc_py_usual_array(tlc_py_state* state, PyObject* object, unsigned long long accepts,
                       tlc_py_defaults* defaults, void** address);

/* Scalars.c: a scalar in the union member of its C type; a record's bytes; unsigned and float
   options. */
int tlc_py_scalar(const tlc_py_where* where, int scalar, PyObject* object, tlc_py_value* value);
int tlc_py_record(const tlc_py_where* where, unsigned size, PyObject* object, void* storage);
int tlc_py_unsigned(const tlc_py_where* where, PyObject* object, unsigned long long max,
                    unsigned long long* value);
/* The call-site path's numbers: an exact int within [0, max] (tlc_py_usual_unsigned), an exact
   int, float or bool as `scalar` takes it (tlc_py_usual_scalar, not the pairs). 0, or 1 (nothing
   raised) for anything else, which the general path converts or refuses. */
int tlc_py_usual_unsigned(PyObject* object, unsigned long long max, unsigned long long* value);
int tlc_py_usual_scalar(int scalar, PyObject* object, tlc_py_value* value);
/* IEEE binary16 and bfloat16 bits of `value`, rounded to nearest even; -1 when a finite value
   is beyond the format's range. */
int tlc_py_half_bits(double value, uint16_t* bits);
int tlc_py_bfloat16_bits(double value, uint16_t* bits);

/* A function only a failing call reaches: the compiler lays out the paths that call one apart
   from the launch's own (.text.unlikely), so that a launch touches fewer cache lines of code
   (what the CUDA driver's work between two launches evicts). */
#define TLC_PY_COLD __attribute__((cold))

/* A function of a launch's own path (the call-site path's, and what every call passes through):
   the compiler lays these out together (.text.hot), so that a launch, which finds its code
   evicted by the driver's work since the last one, reads fewer cache lines of it. */
#define TLC_PY_HOT __attribute__((hot))

/* Errors: "launcher(): argument 'x' (float*) " + the message. Always returns -1. */
TLC_PY_COLD int tlc_py_argument_error(PyObject* exception, const tlc_py_where* where,
                                      const char* format, ...);
/* The qualified name of `object`'s type, for messages (a new reference, never NULL). */
TLC_PY_COLD PyObject* tlc_py_type_name(PyObject* object);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TLC_PYTHON_BINDING_H */
