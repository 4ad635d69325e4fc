// Reading the entry symbols of cubins (with LLVM's Object library) and of PTX text, with each
// entry's parameter layout.
#include "builder/DeviceImage.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace tlc {

static constexpr uint8_t kCudaEntryFunction = 0x10; // st_other of __global__ functions

namespace {
template <typename T> bool readField(llvm::StringRef bytes, size_t offset, T& out) {
  if (offset + sizeof(T) > bytes.size())
    return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// .nv.info records (readKernelParams).
constexpr uint8_t kSizedValueFormat = 4;  // EIFMT_SVAL: a 16-bit size, then the payload
constexpr uint8_t kParamInfo = 0x17;      // EIATTR_KPARAM_INFO
constexpr uint8_t kLargeParamInfo = 0x45; // its form for more than 4 KiB of parameters
constexpr uint8_t kParamBank = 0x0a;      // EIATTR_PARAM_CBANK
constexpr unsigned kParamSizeShift = 18;  // KPARAM_INFO's flags: the size in bits 18-31
} // namespace

llvm::Expected<KernelParams> readKernelParams(llvm::StringRef section) {
  KernelParams out;
  std::map<uint16_t, ImageParam> byOrdinal;
  for (size_t at = 0; at < section.size();) {
    uint8_t format = 0, attribute = 0;
    uint16_t value = 0;
    if (!readField(section, at, format) || !readField(section, at + 1, attribute) ||
        !readField(section, at + 2, value) || format == 0 || format > kSizedValueFormat)
      return internalError("an unreadable .nv.info record at byte " + std::to_string(at));
    size_t payload = at + 4;
    at = payload + (format == kSizedValueFormat ? value : 0);
    if (at > section.size())
      return internalError("a truncated .nv.info record at byte " + std::to_string(payload - 4));
    if (format != kSizedValueFormat)
      continue;
    if (attribute == kParamBank) {
      uint16_t base = 0;
      if (value < 8 || !readField(section, payload + 4, base))
        return internalError("a parameter bank record of " + std::to_string(value) + " bytes");
      out.base = base;
      continue;
    }
    if (attribute != kParamInfo && attribute != kLargeParamInfo)
      continue;
    uint16_t ordinal = 0, offset = 0;
    uint32_t last = 0;
    if (value < 12 || !readField(section, payload + 4, ordinal) ||
        !readField(section, payload + 6, offset) || !readField(section, payload + 8, last))
      return internalError("a parameter record of " + std::to_string(value) + " bytes");
    uint64_t size = attribute == kParamInfo ? last >> kParamSizeShift : last;
    if (!byOrdinal.emplace(ordinal, ImageParam{offset, size, 0}).second)
      return internalError("two records for parameter " + std::to_string(ordinal));
  }
  for (const auto& [ordinal, param] : byOrdinal) {
    if (ordinal != out.params.size())
      return internalError("no record for parameter " + std::to_string(out.params.size()));
    out.params.push_back(param);
  }
  return out;
}

// Each `.nv.info.<symbol>` section's contents, by symbol.
static llvm::Expected<std::map<std::string, llvm::StringRef>>
kernelInfoSections(const llvm::object::ELFObjectFileBase& elf) {
  std::map<std::string, llvm::StringRef> sections;
  for (const llvm::object::SectionRef& section : elf.sections()) {
    auto name = section.getName();
    if (!name || !name->starts_with(".nv.info."))
      continue;
    auto contents = section.getContents();
    if (!contents)
      return internalError("cannot read section " + *name + ": " +
                           llvm::toString(contents.takeError()));
    sections[name->drop_front(llvm::StringRef(".nv.info.").size()).str()] = *contents;
  }
  return sections;
}

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

  auto infoSections = kernelInfoSections(*elf);
  if (!infoSections)
    return infoSections.takeError();
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
    ImageEntry entry{
        name->str(), binding == llvm::ELF::STB_WEAK, binding == llvm::ELF::STB_LOCAL, {}, false, 0};
    if (auto section = infoSections->find(entry.symbol); section != infoSections->end()) {
      auto params = readKernelParams(section->second);
      if (!params)
        return internalError("the parameters of '" + entry.symbol + "' in '" +
                             image.getBufferIdentifier() +
                             "': " + llvm::toString(params.takeError()));
      entry.params = std::move(params->params);
      entry.paramBase = params->base;
      entry.paramsKnown = true;
    }
    info.entries.push_back(std::move(entry));
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

// The bytes of a PTX fundamental type: `.u64` 8, `.b8` 1, `.pred` 0 (not a parameter type).
static uint64_t ptxTypeSize(llvm::StringRef type) {
  if (type == ".pred" || type.size() < 3)
    return 0;
  uint64_t bits = 0;
  if (!llvm::is_contained(llvm::StringRef("bsuf"), type[1]) ||
      type.drop_front(2).getAsInteger(10, bits) || bits % 8)
    return 0;
  return bits / 8;
}

// One `.param` of an entry's list: `.param .u64 name`, `.param .align 16 .b8 name[24]`, or with
// a pointer's attributes, `.param .u64 .ptr .global .align 1 name` (that `.align` is the
// pointee's). `end` is where the last parameter ended; 0 size for what does not read.
static ImageParam ptxParam(llvm::StringRef declaration, uint64_t end) {
  llvm::SmallVector<llvm::StringRef, 8> words;
  declaration.split(words, ' ', -1, false);
  ImageParam param;
  size_t at = 1; // after `.param`
  if (words.size() > at + 1 && words[at] == ".align") {
    if (words[at + 1].getAsInteger(10, param.align))
      return {};
    at += 2;
  }
  if (words.size() < at + 2)
    return {};
  uint64_t element = ptxTypeSize(words[at]);
  uint64_t count = 1;
  llvm::StringRef name = words.back();
  if (auto [base, dims] = name.split('['); !dims.empty())
    if (!dims.consume_back("]") || dims.getAsInteger(10, count))
      return {};
  if (!param.align)
    param.align = element;
  param.size = element * count;
  if (!param.size || !llvm::isPowerOf2_64(param.align))
    return {};
  param.offset = llvm::alignTo(end, param.align);
  return param;
}

// The parameters of an entry, from `text` following its name: the list in parentheses. `known` is
// false where a declaration does not read.
static std::vector<ImageParam> ptxParams(llvm::StringRef text, bool& known) {
  std::vector<ImageParam> params;
  known = false;
  size_t open = text.find('('), close = text.find(')');
  if (open == llvm::StringRef::npos || close == llvm::StringRef::npos || close < open)
    return params;
  llvm::SmallVector<llvm::StringRef, 16> declarations;
  text.slice(open + 1, close).split(declarations, ',', -1, false);
  uint64_t end = 0;
  for (llvm::StringRef declaration : declarations) {
    std::string words = declaration.trim().str();
    std::replace_if(words.begin(), words.end(), [](char c) { return llvm::isSpace(c); }, ' ');
    if (words.empty())
      continue;
    ImageParam param = ptxParam(words, end);
    if (!llvm::StringRef(words).starts_with(".param ") || !param.size)
      return {};
    end = param.offset + param.size;
    params.push_back(param);
  }
  known = true;
  return params;
}

CubinInfo readPtx(llvm::StringRef text) {
  CubinInfo info;
  for (llvm::StringRef rest = text; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    rest = next;
    line = line.trim();
    bool weak = line.consume_front(".weak");
    bool visible = !weak && line.consume_front(".visible");
    line = line.ltrim();
    if (!line.consume_front(".entry"))
      continue;
    llvm::StringRef name = line.ltrim().take_until([](char c) { return c == '(' || c == ' '; });
    if (name.empty())
      continue;
    ImageEntry entry{name.str(), weak, !weak && !visible, {}, false, 0};
    // The parameter list follows the name, on this line and the next.
    llvm::StringRef after = text.drop_front(name.end() - text.begin());
    entry.params = ptxParams(after, entry.paramsKnown);
    info.entries.push_back(std::move(entry));
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
