// The fake driver's state, shared by its entry points and its control API, and `Call`, which
// every entry point starts with: it takes the state's lock and logs the call when it returns.
#ifndef TLC_FAKE_CUDA_DRIVER_H
#define TLC_FAKE_CUDA_DRIVER_H

#include "Image.h"
#include "fake_cuda.h"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// The objects behind the driver's opaque handles (cuda.h declares these structs and never
// defines them). They are never freed, so a stale handle stays recognisable as one.
struct CUctx_st {
  int device = 0;
  bool primary = false;
  bool destroyed = false;
  size_t persistingL2 = 0; // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
};

struct CUlib_st {
  std::vector<fake_cuda::DeviceCode> images;
  bool loaded = true;
  std::map<std::string, CUkern_st*> kernels; // by symbol: asking twice gives the same handle
  std::map<int, CUmod_st*> modules;          // by device
  std::map<int, CUresult> jit;               // per device: how JIT-compiling its PTX went
  char* errorLog = nullptr;                  // CU_JIT_ERROR_LOG_BUFFER, as given at load
  size_t errorLogSize = 0;
};

struct CUkern_st {
  CUlib_st* library = nullptr;
  std::string symbol;
  int parameterCount = -1; // -1: the image does not say
  std::vector<uint32_t> parameterSizes;
  unsigned clusterDims[3] = {0, 0, 0};          // compiled __cluster_dims__, or zeros
  std::map<int, std::map<int, int>> attributes; // per device: attributes set so far
  std::map<CUctx_st*, CUfunc_st*> functions;    // per context, as cuKernelGetFunction gave them
};

struct CUmod_st {
  CUlib_st* library = nullptr;
  int device = 0;
  int sm = 0;
};

struct CUfunc_st {
  CUkern_st* kernel = nullptr;
  CUctx_st* context = nullptr;
};

struct CUlinkState_st {
  int device = 0; // the device of the context it was created in
  char* errorLog = nullptr;
  size_t errorLogSize = 0;
  std::vector<std::pair<std::string, std::string>> inputs; // name, PTX text
  std::string output; // cuLinkComplete's cubin, until cuLinkDestroy
  bool destroyed = false;
};

namespace fake_cuda {

struct Device {
  int major = 0;
  int minor = 0;
  CUctx_st* primary = nullptr;
  int retains = 0; // the primary context is active while this is positive
};

// The most dynamic shared memory a block may opt in to on `device`, as on the real parts.
int sharedMemoryOptin(const Device& device);
// Persisting L2 (compute capability 8.0 and newer): the most a context may set aside, and the
// largest access-policy window.
int maxPersistingL2(const Device& device);
int maxAccessPolicyWindow(const Device& device);

struct Failure {
  CUresult result = CUDA_SUCCESS;
  int remaining = 0; // calls still to fail; FAKE_CUDA_ALWAYS: all
};

enum class HandleKind { Context, Library, Kernel, Module, Function, LinkState };

// The code serving a device, as a call that needs it found it.
struct CodeChoice {
  const DeviceCode* code = nullptr; // null: none runs on the device
  CUresult result = CUDA_SUCCESS;   // CUDA_ERROR_NO_BINARY_FOR_GPU, or how its JIT went
};

struct State {
  std::mutex mutex; // guards everything below
  bool initialized = false;
  std::vector<Device> devices;
  std::map<std::string, Failure> failures;
  std::set<std::string> hidden;
  std::vector<fake_cuda_call> log;
  std::map<int, const DeviceCode*> chosen; // per device: the code found serving it last
  CUlib_st* latestLibrary = nullptr;
  int jitCount = 0; // PTX JIT compilations since the last reset

  // Every object ever made; deques, so the addresses handed out stay put.
  std::deque<CUctx_st> contexts;
  std::deque<CUlib_st> libraries;
  std::deque<CUkern_st> kernels;
  std::deque<CUmod_st> modules;
  std::deque<CUfunc_st> functions;
  std::deque<CUlinkState_st> linkStates;
  // What each handed-out pointer is, so a handle is checked without dereferencing it.
  std::map<const void*, HandleKind> handles;

  template <typename T, HandleKind Kind> T* make(std::deque<T>& objects) {
    T* object = &objects.emplace_back();
    handles[object] = Kind;
    return object;
  }
  CUctx_st* makeContext(int device, bool primary);
  CUlib_st* makeLibrary() { return make<CUlib_st, HandleKind::Library>(libraries); }
  CUkern_st* makeKernel() { return make<CUkern_st, HandleKind::Kernel>(kernels); }
  CUmod_st* makeModule() { return make<CUmod_st, HandleKind::Module>(modules); }
  CUfunc_st* makeFunction() { return make<CUfunc_st, HandleKind::Function>(functions); }
  CUlinkState_st* makeLinkState() {
    return make<CUlinkState_st, HandleKind::LinkState>(linkStates);
  }

  // `handle` as an object of the given kind, or null if it is not one.
  template <typename T> T* find(const void* handle, HandleKind kind) const {
    auto it = handles.find(handle);
    return it != handles.end() && it->second == kind ? static_cast<T*>(const_cast<void*>(handle))
                                                     : nullptr;
  }

  // `handle` as a kernel of a library still loaded, or null.
  CUkern_st* liveKernel(const void* handle) const {
    auto* kernel = find<CUkern_st>(handle, HandleKind::Kernel);
    return kernel && kernel->library->loaded ? kernel : nullptr;
  }

  bool validDevice(int ordinal) const {
    return ordinal >= 0 && ordinal < static_cast<int>(devices.size());
  }
  // Whether work can run in `context`: not destroyed, and if primary, retained.
  bool usable(const CUctx_st* context) const;
  // The code of `library` that serves `device`, without compiling anything; null if none.
  const DeviceCode* imageFor(const CUlib_st& library, int device) const;
  // The code of `library` that serves `device`, JIT-compiled there if it is PTX and this is
  // the first time; the outcome is noted in `record` (code, sm) and, on success, as the
  // device's chosen code.
  CodeChoice codeFor(CUlib_st& library, int device, fake_cuda_call& record);
  // Takes one injected failure of `name` ("jit", or an entry point); false if none is pending.
  bool takeFailure(const std::string& name, CUresult& result);
  // A PTX "JIT compilation" of `program` as a whole program: counted, and on failure (an
  // injected one, an invalid text, an unresolved .extern .func) its message is written into
  // the log buffer, if any.
  CUresult compilePtx(const PtxProgram& program, char* log, size_t logSize);
  // Makes a device per "major.minor" capability; old primary contexts are marked destroyed.
  void setDevices(const std::vector<std::pair<int, int>>& capabilities);
  // Back to the documented defaults (fake_cuda_reset).
  void reset();
};

// A kernel attribute on a device: as last set there, else the fake's default.
int kernelAttribute(const CUkern_st& kernel, int device, CUfunction_attribute attribute);

// The log index of the encode call whose pattern `map` holds, or -1 (TensorMaps.cpp).
long tensorMapSource(const void* map);

// The one state of the process.
State& state();

// The calling thread's context stack, top at the back.
std::vector<CUctx_st*>& contextStack();
inline CUctx_st* currentContext() {
  auto& stack = contextStack();
  return stack.empty() ? nullptr : stack.back();
}

// One driver call, from entry to return. Holds the state's lock throughout, and appends its
// record to the log when it goes out of scope, so every return path is logged.
class Call {
public:
  explicit Call(const char* function);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  State& state() { return S; }
  fake_cuda_call& record() { return Record; }
  // What every entry point checks first: an injected failure for this function, then (when
  // the call needs it) whether cuInit has run. CUDA_SUCCESS: go on.
  CUresult start(bool needsInit = true);
  // Notes the result in the record; returns it.
  CUresult finish(CUresult result) {
    Record.result = result;
    return result;
  }

private:
  State& S;
  std::lock_guard<std::mutex> Lock;
  fake_cuda_call Record;
};

// Writes `text` into a JIT log buffer of `size` bytes (the driver's CU_JIT_ERROR_LOG_BUFFER),
// cut short if need be; nothing if there is no buffer.
void writeLog(char* buffer, size_t size, const std::string& text);

// Copies `text` into a fixed-size field, cut short if need be.
template <size_t N> void copyText(char (&field)[N], const std::string& text) {
  size_t length = text.size() < N - 1 ? text.size() : N - 1;
  text.copy(field, length);
  field[length] = '\0';
}

} // namespace fake_cuda

#endif
