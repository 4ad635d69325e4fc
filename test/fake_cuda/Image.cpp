// Reading device images: CUDA ELF files, fatbin entries walked by their headers, linked cubins.
#include "Image.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

namespace fake_cuda {

namespace {

// A fatbin starts with this header (little endian); its entries follow it, each a header of
// its own (at least kEntryHeaderMin bytes, `headerSize` in all) and `payloadSize` bytes.
constexpr uint32_t kFatbinMagic = 0xBA55ED50;
struct FatbinHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t headerSize;
  uint64_t fatSize; // bytes after the header
};
constexpr uint16_t kEntryPtx = 1;
constexpr uint16_t kEntryElf = 2;
constexpr size_t kEntryHeaderMin = 64;
constexpr size_t kEntryCompressedSize = 16; // offsets in an entry's header
constexpr size_t kEntryArch = 28;
constexpr size_t kEntryFlags = 40;
constexpr uint64_t kFlagCompressed = 0x2000 | 0x8000; // the two codecs fatbinary uses
constexpr uint64_t kFlagArchSpecific = 0x100000;      // sm_90a, compute_90a
constexpr uint64_t kFlagFamily = 0x200000;            // sm_100f, compute_100f

// What the fake's cuLinkComplete returns: this header, then per PTX input its length (64 bits)
// and its text.
constexpr char kLinkedMagic[16] = {'f', 'a', 'k', 'e', '-', 'c', 'u', 'd',
                                   'a', '-', 'l', 'i', 'n', 'k', 'e', 'd'};
struct LinkedHeader {
  char magic[16];
  uint32_t sm;
  uint32_t count;
  uint64_t size; // bytes, this header included
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

DeviceCode elfAt(const unsigned char* bytes, size_t size) {
  return DeviceCode::sass(smOf(bytes), std::string(reinterpret_cast<const char*>(bytes), size));
}

// One fatbin entry's code; nothing for a compressed entry or a kind the fake does not run.
std::optional<DeviceCode> readEntry(const unsigned char* header, const unsigned char* payload,
                                    size_t size) {
  uint16_t kind = readAt<uint16_t>(header);
  uint64_t flags = readAt<uint64_t>(header + kEntryFlags);
  if ((flags & kFlagCompressed) || readAt<uint32_t>(header + kEntryCompressedSize) != 0)
    return std::nullopt;
  if (kind == kEntryElf && size >= sizeof(Elf64_Ehdr) && isCudaElf(payload) &&
      elfSize(payload) <= size)
    return elfAt(payload, elfSize(payload));
  if (kind == kEntryPtx) {
    char variant = flags & kFlagArchSpecific ? 'a' : flags & kFlagFamily ? 'f' : 0;
    return DeviceCode::ptx(static_cast<int>(readAt<uint32_t>(header + kEntryArch)), variant,
                           std::string(reinterpret_cast<const char*>(payload), size));
  }
  return std::nullopt;
}

// The entries between `begin` and `end`, walked by their headers.
std::vector<DeviceCode> readFatbinEntries(const unsigned char* begin, const unsigned char* end) {
  std::vector<DeviceCode> code;
  const unsigned char* at = begin;
  while (static_cast<size_t>(end - at) >= kEntryHeaderMin) {
    uint32_t headerSize = readAt<uint32_t>(at + 4);
    uint64_t payloadSize = readAt<uint64_t>(at + 8);
    if (headerSize < kEntryHeaderMin || headerSize > static_cast<size_t>(end - at) ||
        payloadSize > static_cast<size_t>(end - at) - headerSize)
      break; // not a layout the fake knows
    if (auto entry = readEntry(at, at + headerSize, payloadSize))
      code.push_back(std::move(*entry));
    at += headerSize + payloadSize;
  }
  return code;
}

std::vector<DeviceCode> readLinkedImage(const unsigned char* bytes) {
  auto header = readAt<LinkedHeader>(bytes);
  std::vector<std::string> texts;
  const unsigned char* at = bytes + sizeof header;
  for (uint32_t i = 0; i < header.count; ++i) {
    auto length = readAt<uint64_t>(at);
    texts.emplace_back(reinterpret_cast<const char*>(at + sizeof length), length);
    at += sizeof length + length;
  }
  return {DeviceCode::linked(static_cast<int>(header.sm), texts)};
}

// The SM a PTX `.target` names runs on a device of major.minor, by the driver's JIT rules.
bool ptxRunsOn(int sm, char variant, int major, int minor) {
  int device = major * 10 + minor;
  if (variant == 'a')
    return sm == device;
  if (variant == 'f')
    return sm / 10 == major && sm % 10 <= minor;
  return sm <= device;
}

} // namespace

DeviceCode DeviceCode::sass(int sm, std::string elf) {
  DeviceCode code;
  code.Kind = CodeKind::Sass;
  code.Sm = sm;
  code.Bytes = std::move(elf);
  return code;
}

DeviceCode DeviceCode::ptx(int sm, char variant, std::string text) {
  DeviceCode code;
  code.Kind = CodeKind::Ptx;
  code.Sm = sm;
  code.Variant = variant;
  code.Programs.push_back(parsePtx(text));
  return code;
}

DeviceCode DeviceCode::linked(int sm, const std::vector<std::string>& texts) {
  DeviceCode code;
  code.Kind = CodeKind::Linked;
  code.Sm = sm;
  for (const std::string& text : texts)
    code.Programs.push_back(parsePtx(text));
  return code;
}

std::vector<DeviceCode> readDeviceImages(const void* data) {
  if (!data)
    return {};
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (isCudaElf(bytes))
    return {elfAt(bytes, elfSize(bytes))};
  if (std::memcmp(bytes, kLinkedMagic, sizeof kLinkedMagic) == 0)
    return readLinkedImage(bytes);
  auto header = readAt<FatbinHeader>(bytes);
  if (header.magic != kFatbinMagic)
    return {};
  return readFatbinEntries(bytes + header.headerSize, bytes + header.headerSize + header.fatSize);
}

std::string makeLinkedImage(int sm, const std::vector<std::string>& texts) {
  LinkedHeader header = {};
  std::memcpy(header.magic, kLinkedMagic, sizeof kLinkedMagic);
  header.sm = static_cast<uint32_t>(sm);
  header.count = static_cast<uint32_t>(texts.size());
  std::string image(sizeof header, '\0');
  for (const std::string& text : texts) {
    uint64_t length = text.size();
    image.append(reinterpret_cast<const char*>(&length), sizeof length).append(text);
  }
  header.size = image.size();
  std::memcpy(&image[0], &header, sizeof header);
  return image;
}

const DeviceCode* codeForDevice(const std::vector<DeviceCode>& code, int major, int minor) {
  const DeviceCode* sass = nullptr;
  const DeviceCode* ptx = nullptr;
  for (const DeviceCode& candidate : code) {
    if (!candidate.runsOn(major, minor))
      continue;
    const DeviceCode*& best = candidate.kind() == CodeKind::Ptx ? ptx : sass;
    // The highest SM; for PTX of one arch, arch-specific beats portable, else the first.
    if (!best || candidate.sm() > best->sm() ||
        (candidate.sm() == best->sm() && candidate.variant() == 'a' && best->variant() != 'a'))
      best = &candidate;
  }
  return sass ? sass : ptx;
}

bool DeviceCode::runsOn(int major, int minor) const {
  if (Kind == CodeKind::Ptx)
    return ptxRunsOn(Sm, Variant, major, minor);
  return Sm / 10 == major && Sm % 10 <= minor;
}

bool DeviceCode::hasSymbol(const std::string& symbol) const {
  if (Kind != CodeKind::Sass) {
    for (const PtxProgram& program : Programs)
      if (program.entries.count(symbol))
        return true;
    return false;
  }
  std::string entry;
  entry.reserve(symbol.size() + 2);
  entry.append(1, '\0').append(symbol).append(1, '\0');
  return Bytes.find(entry) != std::string::npos;
}

std::optional<KernelDescription> DeviceCode::describeKernel(const std::string& symbol) const {
  if (Kind != CodeKind::Sass) {
    for (const PtxProgram& program : Programs) {
      auto entry = program.entries.find(symbol);
      if (entry == program.entries.end())
        continue;
      KernelDescription kernel;
      kernel.parameterSizes = entry->second.parameterSizes;
      std::copy_n(entry->second.clusterDims, 3, kernel.clusterDims);
      return kernel;
    }
    return std::nullopt;
  }
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
