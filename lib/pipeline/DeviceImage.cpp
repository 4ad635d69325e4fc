// Reading the entry symbols of cubins (with LLVM's Object library) and of PTX text.
#include "pipeline/DeviceImage.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>

namespace tlc {

static constexpr uint8_t kCudaEntryFunction = 0x10; // st_other of __global__ functions

static unsigned smOf(const llvm::object::ELFObjectFileBase& object) {
  unsigned flags = object.getPlatformFlags();
  // Since CUDA 12.9 cubins use ABI version 2, which moved the SM number up one byte.
  if (object.getEIdentABIVersion() == llvm::ELF::ELFABIVERSION_CUDA_V2)
    return (flags & llvm::ELF::EF_CUDA_SM_MASK) >> llvm::ELF::EF_CUDA_SM_OFFSET;
  return flags & llvm::ELF::EF_CUDA_SM;
}

llvm::Expected<CubinInfo> readCubin(llvm::MemoryBufferRef image) {
  auto object = llvm::object::ObjectFile::createObjectFile(image);
  if (!object)
    return internalError("'" + image.getBufferIdentifier() +
                         "' is not a readable cubin: " + llvm::toString(object.takeError()));
  const auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
  if (!elf || elf->getEMachine() != llvm::ELF::EM_CUDA)
    return internalError("'" + image.getBufferIdentifier() + "' is not a CUDA ELF image");

  CubinInfo info;
  info.sm = smOf(*elf);
  for (const llvm::object::ELFSymbolRef symbol : elf->symbols()) {
    if (symbol.getELFType() != llvm::ELF::STT_FUNC || !(symbol.getOther() & kCudaEntryFunction))
      continue;
    uint8_t binding = symbol.getBinding();
    auto name = symbol.getName();
    if (!name)
      return internalError("unreadable symbol name in '" + image.getBufferIdentifier() +
                           "': " + llvm::toString(name.takeError()));
    info.entries.push_back(
        {name->str(), binding == llvm::ELF::STB_WEAK, binding == llvm::ELF::STB_LOCAL});
  }
  std::sort(info.entries.begin(), info.entries.end(),
            [](const ImageEntry& a, const ImageEntry& b) { return a.symbol < b.symbol; });
  return info;
}

// A file the tools wrote in the work folder, read as every file tlc reads (support/Files.h): a
// tool that left something else there (a FIFO, a device) is an error, never a wait. Not being
// able to read what the tools made is tlc's inconsistency, not the user's.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readImageFile(llvm::StringRef path) {
  auto buffer = readFileBuffer(path.str());
  if (!buffer)
    return internalError(summarize(buffer.takeError()).message);
  return buffer;
}

llvm::Expected<CubinInfo> readCubinFile(llvm::StringRef path) {
  auto buffer = readImageFile(path);
  if (!buffer)
    return buffer.takeError();
  return readCubin((*buffer)->getMemBufferRef());
}

CubinInfo readPtx(llvm::StringRef text) {
  CubinInfo info;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    line = line.trim();
    bool weak = line.consume_front(".weak");
    bool visible = !weak && line.consume_front(".visible");
    line = line.ltrim();
    if (!line.consume_front(".entry"))
      continue;
    llvm::StringRef name = line.ltrim().take_until([](char c) { return c == '(' || c == ' '; });
    if (!name.empty())
      info.entries.push_back({name.str(), weak, !weak && !visible});
  }
  std::sort(info.entries.begin(), info.entries.end(),
            [](const ImageEntry& a, const ImageEntry& b) { return a.symbol < b.symbol; });
  return info;
}

// The fat binary container: a 16-byte header (magic, version, header size, size of what follows),
// then entries, each a header (kind: 1 PTX, 2 ELF; its own size; the payload's size; at 28 the
// arch number; at 40 flags, 0x100000 marking arch-specific code) and the payload.
namespace {
constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint64_t kArchSpecificFlag = 0x100000;

template <typename T> bool readField(llvm::StringRef bytes, size_t offset, T& out) {
  if (offset + sizeof(T) > bytes.size())
    return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}
} // namespace

llvm::Expected<std::vector<FatbinEntry>> readFatbin(llvm::StringRef bytes) {
  uint32_t magic = 0;
  uint16_t headerSize = 0;
  uint64_t size = 0;
  if (!readField(bytes, 0, magic) || magic != kFatbinMagic || !readField(bytes, 6, headerSize) ||
      !readField(bytes, 8, size) || headerSize + size > bytes.size())
    return internalError("not a fat binary (or a truncated one)");
  std::vector<FatbinEntry> entries;
  for (size_t at = headerSize; at < headerSize + size;) {
    uint16_t kind = 0;
    uint32_t entryHeader = 0, arch = 0;
    uint64_t payloadSize = 0, flags = 0;
    if (!readField(bytes, at, kind) || !readField(bytes, at + 4, entryHeader) ||
        !readField(bytes, at + 8, payloadSize) || !readField(bytes, at + 28, arch) ||
        !readField(bytes, at + 40, flags) || at + entryHeader + payloadSize > bytes.size())
      return internalError("a truncated fat binary entry at byte " + std::to_string(at));
    FatbinEntry entry;
    entry.ptx = kind == 1;
    entry.arch = arch;
    entry.archSpecific = flags & kArchSpecificFlag;
    entry.payload = bytes.substr(at + entryHeader, payloadSize);
    bool readable = entry.ptx ? !entry.payload.empty() && entry.payload.front() != '\0'
                              : entry.payload.starts_with("\x7f"
                                                          "ELF");
    if (kind != 1 && kind != 2)
      return internalError("a fat binary entry of unknown kind " + std::to_string(kind));
    if (!readable)
      return internalError("a compressed or unreadable fat binary entry at byte " +
                           std::to_string(at));
    entries.push_back(entry);
    at += entryHeader + payloadSize;
  }
  return entries;
}

static bool isCudaElf(llvm::StringRef bytes) {
  uint16_t machine = 0;
  return readField(bytes, 18, machine) && machine == llvm::ELF::EM_CUDA;
}

// The fatbin `nvcc -c` embeds in a host object.
static llvm::Expected<llvm::StringRef> fatbinSectionOf(llvm::MemoryBufferRef object) {
  auto file = llvm::object::ObjectFile::createObjectFile(object);
  if (!file)
    return internalError("'" + object.getBufferIdentifier() +
                         "' is not a readable object: " + llvm::toString(file.takeError()));
  for (const llvm::object::SectionRef& section : (*file)->sections()) {
    auto name = section.getName();
    // `.nv_fatbin` in whole-program objects, `__nv_relfatbin` in relocatable ones.
    if (!name || (*name != ".nv_fatbin" && *name != "__nv_relfatbin"))
      continue;
    auto contents = section.getContents();
    if (!contents)
      return internalError("cannot read the .nv_fatbin section of '" +
                           object.getBufferIdentifier() + "'");
    return *contents;
  }
  return internalError("'" + object.getBufferIdentifier() + "' holds no device code");
}

llvm::Expected<ImageContents> readDeviceImageFile(llvm::StringRef path) {
  auto buffer = readImageFile(path);
  if (!buffer)
    return buffer.takeError();
  llvm::StringRef bytes = (*buffer)->getBuffer();
  ImageContents contents;
  if (bytes.starts_with("\x7f"
                        "ELF") &&
      !isCudaElf(bytes)) {
    auto section = fatbinSectionOf((*buffer)->getMemBufferRef());
    if (!section)
      return section.takeError();
    bytes = *section;
  } else if (bytes.starts_with("\x7f"
                               "ELF")) {
    auto info = readCubin((*buffer)->getMemBufferRef());
    if (!info)
      return info.takeError();
    contents.parts.push_back({FatbinEntry{false, info->sm, false, {}}, std::move(*info), {}});
    return contents;
  }
  auto entries = readFatbin(bytes);
  if (!entries)
    return entries.takeError();
  for (const FatbinEntry& entry : *entries) {
    ImageContents::Part part{entry, {}, {}};
    if (entry.ptx) {
      part.text = entry.payload.take_until([](char c) { return c == '\0'; }).str();
      part.info = readPtx(part.text);
    } else {
      auto info = readCubin(llvm::MemoryBufferRef(entry.payload, path));
      if (!info)
        return info.takeError();
      part.info = std::move(*info);
    }
    part.entry.payload = {}; // the buffer goes away; the entries are read
    contents.parts.push_back(std::move(part));
  }
  return contents;
}

llvm::Expected<CubinInfo> readPtxFile(llvm::StringRef path) {
  auto buffer = readImageFile(path);
  if (!buffer)
    return buffer.takeError();
  return readPtx((*buffer)->getBuffer());
}

} // namespace tlc
