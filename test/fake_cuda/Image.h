// What the fake driver reads from a device image handed to cuLibraryLoadData: a cubin, an
// uncompressed fatbin made by nvcc's `fatbinary` (its SASS and PTX entries), or a cubin the
// fake's own cuLinkComplete made. Each piece of code knows its SM, its symbols and its kernels'
// parameter sizes, and the rules by which the driver picks one for a device.
#ifndef TLC_FAKE_CUDA_IMAGE_H
#define TLC_FAKE_CUDA_IMAGE_H

#include "Ptx.h"
#include "fake_cuda.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fake_cuda {

// What an image says about one kernel.
struct KernelDescription {
  std::vector<uint32_t> parameterSizes; // bytes, in parameter order
  unsigned clusterDims[3] = {0, 0, 0};  // from __cluster_dims__; zeros if none
};

enum class CodeKind {
  Sass = FAKE_CUDA_CODE_SASS,    // a CUDA ELF image
  Ptx = FAKE_CUDA_CODE_PTX,      // PTX text, JIT-compiled per device
  Linked = FAKE_CUDA_CODE_LINKED // made by the fake's cuLinkComplete from PTX inputs
};

class DeviceCode {
public:
  static DeviceCode sass(int sm, std::string elf);
  static DeviceCode ptx(int sm, char variant, std::string text);
  // A linked cubin for `sm`, holding the code of `texts` (PTX).
  static DeviceCode linked(int sm, const std::vector<std::string>& texts);

  CodeKind kind() const { return Kind; }
  // The SM the code was compiled for (SASS, linked) or targets (PTX), e.g. 90 for sm_90a.
  int sm() const { return Sm; }
  char variant() const { return Variant; } // PTX: 'a', 'f' or 0
  // Whether the driver would accept this code for a device of compute capability major.minor.
  bool runsOn(int major, int minor) const;
  // Whether `symbol` is in the image (SASS: its string tables; PTX: its entries).
  bool hasSymbol(const std::string& symbol) const;
  // Kernel `symbol` as the image describes it (SASS: its .nv.info section); nothing if it
  // does not.
  std::optional<KernelDescription> describeKernel(const std::string& symbol) const;
  // PTX and linked code: the texts as parsed.
  const std::vector<PtxProgram>& programs() const { return Programs; }

private:
  CodeKind Kind = CodeKind::Sass;
  int Sm = 0;
  char Variant = 0;
  std::string Bytes; // SASS: a copy of the ELF (the caller may free its buffer once loaded)
  std::vector<PtxProgram> Programs;
};

// The code in a cubin, an uncompressed fatbin (compressed entries are skipped) or a cubin of the
// fake's linker; empty if `data` is none of them.
std::vector<DeviceCode> readDeviceImages(const void* data);

// The bytes of a linked cubin holding `texts`, for `sm` (what the fake's cuLinkComplete returns).
std::string makeLinkedImage(int sm, const std::vector<std::string>& texts);

// The code the driver would run on a device of compute capability major.minor: the SASS with
// the highest SM the device runs (same major, minor not above its own), else the PTX with the
// highest arch the device runs (arch-specific `a` PTX only on that exact arch, `f` PTX on its
// family), the first such entry if several have that arch; null if there is none.
const DeviceCode* codeForDevice(const std::vector<DeviceCode>& code, int major, int minor);

} // namespace fake_cuda

#endif
