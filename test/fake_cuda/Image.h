// What the fake driver reads from a device image handed to cuLibraryLoadData: the CUDA ELF
// images in it (a cubin is one, a fatbin made by nvcc's `fatbinary` holds several, stored
// uncompressed), each one's SM, its symbols and its kernels' parameter sizes.
#ifndef TLC_FAKE_CUDA_IMAGE_H
#define TLC_FAKE_CUDA_IMAGE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fake_cuda {

// What an image's .nv.info section says about one kernel.
struct KernelDescription {
  std::vector<uint32_t> parameterSizes; // bytes, in parameter order
  unsigned clusterDims[3] = {0, 0, 0};  // from __cluster_dims__; zeros if none
};

class ElfImage {
public:
  ElfImage(int sm, std::string bytes) : Sm(sm), Bytes(std::move(bytes)) {}

  // The SM the image was compiled for, e.g. 90 for sm_90 and sm_90a.
  int sm() const { return Sm; }
  // Whether `symbol` is in the image's string tables.
  bool hasSymbol(const std::string& symbol) const;
  // Kernel `symbol` as its .nv.info section describes it; nothing if it has no such section.
  std::optional<KernelDescription> describeKernel(const std::string& symbol) const;

private:
  int Sm;
  std::string Bytes; // a copy: the caller may free its buffer once the library is loaded
};

// The CUDA ELF images in a cubin or an uncompressed fatbin; empty if `data` is neither.
std::vector<ElfImage> readDeviceImages(const void* data);

// The image the driver would run on a device of compute capability major.minor: the highest SM
// with the same major and a minor not above the device's; null if there is none.
const ElfImage* imageForDevice(const std::vector<ElfImage>& images, int major, int minor);

} // namespace fake_cuda

#endif
