#include "Image.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

namespace fake_cuda {

namespace {

// A fatbin starts with this header (little endian); the images follow it.
constexpr uint32_t kFatbinMagic = 0xBA55ED50;
struct FatbinHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t headerSize;
  uint64_t fatSize; // bytes after the header
};

// CUDA ELF images of ABI version 8 keep the SM in bits 8-15 of e_flags; older ones in bits 0-7.
constexpr unsigned char kCudaAbiV2 = 8;

// .nv.info entries: a format byte, an attribute byte, then either a 16-bit value or, for the
// "sized" format, a 16-bit size and that many bytes. Kernel parameters are described by
// EIATTR_KPARAM_INFO entries: index (32 bits), ordinal (16), offset (16), flags (32) whose top
// 14 bits are the parameter's size. EIATTR_CTA_PER_CLUSTER holds __cluster_dims__ (3 x 32 bits).
constexpr uint8_t kInfoFormatSized = 0x04;
constexpr uint8_t kInfoParameter = 0x17;
constexpr uint8_t kInfoClusterDims = 0x3d;
struct ParameterInfo {
  uint32_t index;
  uint16_t ordinal;
  uint16_t offset;
  uint32_t flags;
};

template <typename T> T readAt(const unsigned char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof value); // the image may not be aligned for T
  return value;
}

// Adds one sized .nv.info entry to `kernel` if it is one the fake reads.
void readInfoEntry(uint8_t attribute, const unsigned char* data, uint16_t length,
                   KernelDescription& kernel) {
  if (attribute == kInfoParameter && length >= sizeof(ParameterInfo)) {
    auto parameter = readAt<ParameterInfo>(data);
    if (kernel.parameterSizes.size() <= parameter.ordinal)
      kernel.parameterSizes.resize(parameter.ordinal + 1u);
    kernel.parameterSizes[parameter.ordinal] = parameter.flags >> 18;
  } else if (attribute == kInfoClusterDims && length >= 3 * sizeof(uint32_t)) {
    for (int i = 0; i < 3; ++i)
      kernel.clusterDims[i] = readAt<uint32_t>(data + i * sizeof(uint32_t));
  }
}

bool isCudaElf(const unsigned char* bytes) {
  if (std::memcmp(bytes, ELFMAG, SELFMAG) != 0 || bytes[EI_CLASS] != ELFCLASS64)
    return false;
  return readAt<Elf64_Ehdr>(bytes).e_machine == EM_CUDA;
}

// An ELF file's size is not in its header: it ends where its last table or section ends.
size_t elfSize(const unsigned char* bytes) {
  auto header = readAt<Elf64_Ehdr>(bytes);
  size_t end = std::max<size_t>(header.e_shoff + size_t{header.e_shnum} * header.e_shentsize,
                                header.e_phoff + size_t{header.e_phnum} * header.e_phentsize);
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    auto section = readAt<Elf64_Shdr>(bytes + header.e_shoff + size_t{i} * header.e_shentsize);
    if (section.sh_type != SHT_NOBITS)
      end = std::max<size_t>(end, section.sh_offset + section.sh_size);
  }
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    auto segment = readAt<Elf64_Phdr>(bytes + header.e_phoff + size_t{i} * header.e_phentsize);
    end = std::max<size_t>(end, segment.p_offset + segment.p_filesz);
  }
  return end;
}

int smOf(const unsigned char* bytes) {
  auto header = readAt<Elf64_Ehdr>(bytes);
  if (header.e_ident[EI_ABIVERSION] == kCudaAbiV2)
    return static_cast<int>((header.e_flags & 0xff00) >> 8);
  return static_cast<int>(header.e_flags & 0xff);
}

ElfImage imageAt(const unsigned char* bytes, size_t size) {
  return ElfImage(smOf(bytes), std::string(reinterpret_cast<const char*>(bytes), size));
}

// The ELF images between `begin` and `end`, found by their magic number.
std::vector<ElfImage> scanForImages(const unsigned char* begin, const unsigned char* end) {
  std::vector<ElfImage> images;
  const unsigned char* at = begin;
  while (static_cast<size_t>(end - at) >= sizeof(Elf64_Ehdr)) {
    at = std::search(at, end, ELFMAG, ELFMAG + SELFMAG);
    if (static_cast<size_t>(end - at) < sizeof(Elf64_Ehdr))
      break;
    size_t size = isCudaElf(at) ? elfSize(at) : 0;
    if (size == 0 || size > static_cast<size_t>(end - at)) {
      ++at; // a stray "\x7fELF", or a compressed image's bytes
      continue;
    }
    images.push_back(imageAt(at, size));
    at += size;
  }
  return images;
}

} // namespace

std::vector<ElfImage> readDeviceImages(const void* data) {
  if (!data)
    return {};
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (isCudaElf(bytes))
    return {imageAt(bytes, elfSize(bytes))};
  auto header = readAt<FatbinHeader>(bytes);
  if (header.magic != kFatbinMagic)
    return {};
  return scanForImages(bytes + header.headerSize, bytes + header.headerSize + header.fatSize);
}

const ElfImage* imageForDevice(const std::vector<ElfImage>& images, int major, int minor) {
  const ElfImage* best = nullptr;
  for (const ElfImage& image : images) {
    bool runs = image.sm() / 10 == major && image.sm() % 10 <= minor;
    if (runs && (!best || image.sm() > best->sm()))
      best = &image;
  }
  return best;
}

bool ElfImage::hasSymbol(const std::string& symbol) const {
  std::string entry;
  entry.reserve(symbol.size() + 2);
  entry.append(1, '\0').append(symbol).append(1, '\0');
  return Bytes.find(entry) != std::string::npos;
}

std::optional<KernelDescription> ElfImage::describeKernel(const std::string& symbol) const {
  const auto* bytes = reinterpret_cast<const unsigned char*>(Bytes.data());
  auto header = readAt<Elf64_Ehdr>(bytes);
  auto sectionAt = [&](unsigned i) {
    return readAt<Elf64_Shdr>(bytes + header.e_shoff + size_t{i} * header.e_shentsize);
  };
  const char* names = Bytes.data() + sectionAt(header.e_shstrndx).sh_offset;
  std::string wanted = ".nv.info." + symbol;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section = sectionAt(i);
    if (wanted != names + section.sh_name)
      continue;
    KernelDescription kernel;
    const unsigned char* entry = bytes + section.sh_offset;
    const unsigned char* end = entry + section.sh_size;
    while (end - entry >= 4) {
      uint16_t length = entry[0] == kInfoFormatSized ? readAt<uint16_t>(entry + 2) : 0;
      if (end - entry - 4 < length)
        break;
      readInfoEntry(entry[1], entry + 4, length, kernel);
      entry += 4 + length;
    }
    return kernel;
  }
  return std::nullopt;
}

} // namespace fake_cuda
