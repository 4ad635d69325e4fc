// The launcher runtime as generated code sees it: the module descriptor NAME_launcher.cpp defines
// (what tlc learned at build time) and the calls its extern "C" wrappers make. The runtime is a
// static archive (libtlc_runtime.a) linked into every libNAME.so with hidden visibility, so two
// modules in one process, even from two tlc versions, never see each other's copy.
#pragma once

#include "tlc/launcher.h"

namespace tlc::runtime {

// One entry of the device image: SASS for one arch, or PTX the driver JIT-compiles.
struct ImageTarget {
  const char* name; // "sm_90a", "compute_80"
  unsigned arch;    // 90, 80
  char variant;     // 'a' (arch-specific), 'f' (family-specific) or 0
  bool ptx;
};

// What a TLC_TMA / TLC_TMA_IM2COL annotation fixed about one tensor-map parameter.
enum class TensorMapMode : unsigned char { Tiled, Im2col };

#ifdef TLC_CUDA_HANDLES_ONLY
struct TensorMapInfo; // a launcher without tensor maps, compiled without cuda.h (tlc/launcher.h)
#else
struct TensorMapInfo {
  const char* parameter; // its name, for messages
  int argument;          // its position among the kernel's parameters
  TensorMapMode mode;
  CUtensorMapDataType dtype;
  cuuint32_t rank;
  cuuint32_t box[5];
  cuuint32_t elementStrides[5];
  int lower[3]; // im2col corners
  int upper[3];
  cuuint32_t channels; // im2col: channels per pixel, pixels per column
  cuuint32_t pixels;
  CUtensorMapInterleave interleave;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2Promotion;
  CUtensorMapFloatOOBfill oobFill;
  unsigned addressAlignment; // bytes, a power of two
  unsigned strideMultiple;   // bytes, a power of two
  unsigned dim0Multiple;     // elements (packed data types), a power of two
  int group; // the kernel's first map with the same settings (this one if none): identical
             // tensors in one group share one descriptor
};
#endif

struct KernelInfo {
  const char* symbol;   // exact device symbol, from the image's symbol table
  const char* launcher; // the launcher's name after "NAME_"
  unsigned cluster[3];  // __cluster_dims__, or {0, 0, 0}
  unsigned targets;     // bit i: ImageTarget i holds this kernel
  int firstTensorMap;   // its tensor maps: Module::tensorMaps[first, first + count)
  int tensorMapCount;
};

struct ModuleState; // the runtime's: loading, devices, kernels; made at first use

// One launcher library. Constant-initialised in NAME_launcher.cpp; only `state` ever changes.
struct Module {
  const char* name;
  const ImageTarget* targets;
  int targetCount;
  // Relocatable device code (several inputs, or dynamic parallelism): SASS targets are device
  // linked at build time, but PTX targets hold one relocatable PTX entry per input, which the
  // runtime links for the device (cuLink*) before loading.
  bool relocatable;
  const void* image;     // the embedded image, or nullptr: read `imageFile` beside the library
  const char* imageFile; // NAME.cubin / NAME.fatbin
  const KernelInfo* kernels;
  int kernelCount;
  const TensorMapInfo* tensorMaps;
  // Made once, then read without a lock: only through the atomic builtins (State.cpp). Not a
  // std::atomic, so that generated code does not parse <atomic>, a fifth of the launcher's
  // compile in every build; the layout is the same.
  ModuleState* state = nullptr;
};

// Launchers. `args` holds one pointer per kernel parameter, as for cuLaunchKernel.
tlc_status launch(Module& module, int kernel, const tlc_config* config, void** args);
// A launcher of a kernel with tensor maps: `tensors` holds one tensor per map parameter, in
// order; their slots in `args` are filled with the encoded descriptors.
tlc_status launchWithTensors(Module& module, int kernel, const tlc_config* config, void** args,
                             const tlc_tensor* const* tensors);
// The NAME_<launcher>_encoded entry point: `args` already points at the caller's descriptors.
tlc_status launchEncoded(Module& module, int kernel, const tlc_config* config, void** args);

// The module API (tlc_NAME_*; docs/launcher-api.md).
tlc_status load(Module& module, int device);
tlc_status unload(Module& module);
const char* lastError();
const char* statusString(tlc_status status);
tlc_status setImagePath(Module& module, const char* path);
int kernelCount(const Module& module);
const char* kernelName(const Module& module, int kernel);
tlc_status findKernel(const Module& module, const char* pattern, int* kernel);
tlc_status launchKernel(Module& module, const tlc_config* config, int kernel, void** args);
tlc_status getFunction(Module& module, int kernel, int device, CUfunction* function);
tlc_status imageTarget(Module& module, int device, const char** target);

} // namespace tlc::runtime
