// Reading the entry symbols of cubins (with LLVM's Object library) and of PTX text, with each
// entry's parameter layout.
#include "builder/DeviceImage.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
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

llvm::Error checkParamLayout(const std::vector<ImageParam>& params) {
  uint64_t end = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const ImageParam& param = params[i];
    // Each bound keeps the sums below from wrapping: both terms are at most the limit.
    if (param.size > kMaxParamBytes || param.offset > kMaxParamBytes ||
        param.offset + param.size > kMaxParamBytes)
      return internalError(
          "parameter " + std::to_string(i) + " lies at bytes " + std::to_string(param.offset) +
          " to " + std::to_string(param.offset + param.size) + ", past the " +
          std::to_string(kMaxParamBytes) + " bytes of parameters the driver accepts");
    if (param.offset < end)
      return internalError("parameter " + std::to_string(i) + " (at byte " +
                           std::to_string(param.offset) + ") overlaps the one before it (to byte " +
                           std::to_string(end) + ")");
    end = param.offset + param.size;
  }
  return llvm::Error::success();
}

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
  if (llvm::Error error = checkParamLayout(out.params))
    return error;
  return out;
}

// The records of a cubin's .nv.compat section are laid out as .nv.info's: a format byte, an
// attribute byte, then a 16-bit value or, for format 4, a 16-bit size and the payload. Record
// 0x09 is 1 in arch-specific code (sm_90a).
static bool compatSaysArchSpecific(llvm::StringRef section) {
  constexpr uint8_t kCompatArchSpecific = 0x09;
  for (size_t at = 0; section.size() >= 4 && at <= section.size() - 4;) {
    uint8_t format = section[at], attribute = section[at + 1];
    uint16_t value = uint8_t(section[at + 2]) | uint16_t(uint8_t(section[at + 3])) << 8;
    if (format == kSizedValueFormat) {
      at += 4 + size_t(value);
      continue;
    }
    if (attribute == kCompatArchSpecific)
      return (value & 0xff) == 1;
    at += 4;
  }
  return false;
}

namespace {

// The parts of a CUDA ELF image tlc reads, through llvm::object::ELFFile, whose every accessor
// checks offsets, sizes and entry sizes against the buffer and reports a malformed table as an
// Error (the ELFObjectFile iterators end the process on one instead).
template <class ELFT>
llvm::Error readCudaElf(const llvm::object::ELFFile<ELFT>& file, CubinInfo& info) {
  const auto& header = file.getHeader();
  if (header.e_machine != llvm::ELF::EM_CUDA)
    return internalError("not a CUDA ELF image (its machine is " +
                         std::to_string(header.e_machine) + ")");
  // Since CUDA 12.9 cubins use ABI version 2, which moved the SM number up one byte.
  unsigned flags = header.e_flags;
  info.sm = header.e_ident[llvm::ELF::EI_ABIVERSION] == llvm::ELF::ELFABIVERSION_CUDA_V2
                ? (flags & llvm::ELF::EF_CUDA_SM_MASK) >> llvm::ELF::EF_CUDA_SM_OFFSET
                : flags & llvm::ELF::EF_CUDA_SM;
  auto sections = file.sections();
  if (!sections)
    return sections.takeError();
  std::map<std::string, llvm::StringRef> infoSections; // .nv.info.<symbol>, by symbol
  std::vector<ImageEntry> entries;
  for (const auto& section : *sections) {
    auto name = file.getSectionName(section);
    if (!name)
      return name.takeError();
    if (name->starts_with(".nv.info.") || *name == ".nv.compat") {
      auto contents = file.getSectionContents(section);
      if (!contents)
        return contents.takeError();
      llvm::StringRef bytes(reinterpret_cast<const char*>(contents->data()), contents->size());
      if (*name == ".nv.compat")
        info.archSpecific = compatSaysArchSpecific(bytes);
      else
        infoSections[name->drop_front(llvm::StringRef(".nv.info.").size()).str()] = bytes;
      continue;
    }
    if (section.sh_type != llvm::ELF::SHT_SYMTAB)
      continue;
    auto symbols = file.symbols(&section);
    if (!symbols)
      return symbols.takeError();
    auto strings = file.getStringTableForSymtab(section, *sections);
    if (!strings)
      return strings.takeError();
    for (const auto& symbol : *symbols) {
      if (symbol.getType() != llvm::ELF::STT_FUNC || !(symbol.st_other & kCudaEntryFunction))
        continue;
      auto symbolName = symbol.getName(*strings);
      if (!symbolName)
        return symbolName.takeError();
      ImageEntry entry;
      entry.symbol = symbolName->str();
      entry.weak = symbol.getBinding() == llvm::ELF::STB_WEAK;
      entry.local = symbol.getBinding() == llvm::ELF::STB_LOCAL;
      entries.push_back(std::move(entry));
    }
  }
  for (ImageEntry& entry : entries) {
    auto section = infoSections.find(entry.symbol);
    if (section == infoSections.end())
      continue;
    auto params = readKernelParams(section->second);
    if (!params)
      return internalError("the parameters of '" + entry.symbol +
                           "': " + summarize(params.takeError()).message);
    entry.params = std::move(params->params);
    entry.paramBase = params->base;
    entry.paramsKnown = true;
  }
  info.entries = std::move(entries);
  return llvm::Error::success();
}

template <class ELFT> llvm::Error readCudaElfAs(llvm::StringRef bytes, CubinInfo& info) {
  auto file = llvm::object::ELFFile<ELFT>::create(bytes);
  if (!file)
    return file.takeError();
  return readCudaElf(*file, info);
}

} // namespace

llvm::Expected<CubinInfo> readCubin(llvm::MemoryBufferRef image) {
  llvm::StringRef bytes = image.getBuffer();
  CubinInfo info;
  uint8_t elfClass = bytes.size() > llvm::ELF::EI_CLASS ? bytes[llvm::ELF::EI_CLASS] : 0;
  uint8_t encoding = bytes.size() > llvm::ELF::EI_DATA ? bytes[llvm::ELF::EI_DATA] : 0;
  if (!bytes.starts_with("\x7f"
                         "ELF") ||
      encoding != llvm::ELF::ELFDATA2LSB ||
      (elfClass != llvm::ELF::ELFCLASS64 && elfClass != llvm::ELF::ELFCLASS32))
    return internalError("'" + image.getBufferIdentifier() +
                         "' is not a readable cubin: no little-endian ELF header");
  llvm::Error read = elfClass == llvm::ELF::ELFCLASS64
                         ? readCudaElfAs<llvm::object::ELF64LE>(bytes, info)
                         : readCudaElfAs<llvm::object::ELF32LE>(bytes, info);
  if (read)
    return internalError("'" + image.getBufferIdentifier() +
                         "' is not a readable cubin: " + llvm::toString(std::move(read)));
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
// pointee's). `end` is where the last parameter ended. nullopt for what does not read; an Error
// for a parameter that does, but lies past what the driver accepts (kMaxParamBytes): every sum
// and product below is bounded by it first, so none wraps.
static llvm::Expected<std::optional<ImageParam>> ptxParam(llvm::StringRef declaration,
                                                          uint64_t end) {
  llvm::SmallVector<llvm::StringRef, 8> words;
  declaration.split(words, ' ', -1, false);
  ImageParam param;
  size_t at = 1; // after `.param`
  if (words.size() > at + 1 && words[at] == ".align") {
    if (words[at + 1].getAsInteger(10, param.align))
      return std::nullopt;
    at += 2;
  }
  if (words.size() < at + 2)
    return std::nullopt;
  uint64_t element = ptxTypeSize(words[at]);
  uint64_t count = 1;
  llvm::StringRef name = words.back();
  if (auto [base, dims] = name.split('['); !dims.empty())
    if (!dims.consume_back("]") || dims.getAsInteger(10, count))
      return std::nullopt;
  if (!param.align)
    param.align = element;
  if (!element || !count || !llvm::isPowerOf2_64(param.align))
    return std::nullopt;
  if (count > kMaxParamBytes / element || param.align > kMaxParamBytes)
    return internalError("'" + name.str() + "' takes more than the " +
                         std::to_string(kMaxParamBytes) +
                         " bytes of parameters the driver accepts");
  param.size = element * count;
  param.offset = llvm::alignTo(end, param.align);
  if (param.offset + param.size > kMaxParamBytes)
    return internalError(
        "'" + name.str() + "' ends at byte " + std::to_string(param.offset + param.size) +
        ", past the " + std::to_string(kMaxParamBytes) + " bytes of parameters the driver accepts");
  return param;
}

// The parameters of an entry from the text of its list (between the parentheses); `known` is
// false where a declaration does not read.
static llvm::Expected<std::vector<ImageParam>> ptxParams(llvm::StringRef list, bool& known) {
  std::vector<ImageParam> params;
  known = false;
  uint64_t end = 0;
  for (llvm::StringRef rest = list; !rest.empty();) {
    auto [declaration, next] = rest.split(',');
    rest = next;
    std::string words = declaration.trim().str();
    std::replace_if(words.begin(), words.end(), [](char c) { return llvm::isSpace(c); }, ' ');
    if (words.empty())
      continue;
    if (!llvm::StringRef(words).starts_with(".param "))
      return std::vector<ImageParam>();
    auto param = ptxParam(words, end);
    if (!param)
      return param.takeError();
    if (!*param)
      return std::vector<ImageParam>();
    end = (*param)->offset + (*param)->size;
    params.push_back(**param);
  }
  known = true;
  return params;
}

llvm::Expected<CubinInfo> readPtx(llvm::StringRef text) {
  CubinInfo info;
  // Where the next ')' or '{' is: found once and kept until an entry's list opens past it, so
  // that a text of many entries whose lists never close is read once, not once per entry.
  size_t close = llvm::StringRef::npos;
  bool closeKnown = false;
  for (size_t at = 0; at < text.size();) {
    size_t lineEnd = text.find('\n', at);
    llvm::StringRef line = text.slice(at, lineEnd).trim();
    at = lineEnd == llvm::StringRef::npos ? text.size() : lineEnd + 1;
    bool weak = line.consume_front(".weak");
    bool visible = !weak && line.consume_front(".visible");
    line = line.ltrim();
    if (!line.consume_front(".entry"))
      continue;
    llvm::StringRef name =
        line.ltrim().take_until([](char c) { return c == '(' || llvm::isSpace(c); });
    if (name.empty())
      continue;
    ImageEntry entry{name.str(), weak, !weak && !visible, {}, false, 0};
    // The parameter list follows the name, on this line and the next ones.
    size_t afterName = name.end() - text.begin();
    size_t open = text.find_first_not_of(" \t\r\n", afterName);
    if (open != llvm::StringRef::npos && text[open] == '(') {
      if (!closeKnown || close < open) {
        close = text.find_first_of("){", open);
        closeKnown = true;
      }
      if (close != llvm::StringRef::npos && text[close] == ')') {
        auto params = ptxParams(text.slice(open + 1, close), entry.paramsKnown);
        if (!params)
          return internalError("the parameters of entry '" + entry.symbol +
                               "': " + summarize(params.takeError()).message);
        entry.params = std::move(*params);
        at = std::max(at, close + 1); // the list's lines are read
      }
    }
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
constexpr uint16_t kFatbinHeaderSize = 16;      // the fields read: magic to size
constexpr uint32_t kFatbinEntryHeaderSize = 48; // the fields read: kind to flags
} // namespace

llvm::Expected<std::vector<FatbinEntry>> readFatbin(llvm::StringRef bytes) {
  uint32_t magic = 0;
  uint16_t headerSize = 0;
  uint64_t size = 0;
  // Sizes are compared by what remains, never summed: a size near 2^64 must not wrap around.
  if (!readField(bytes, 0, magic) || magic != kFatbinMagic || !readField(bytes, 6, headerSize) ||
      !readField(bytes, 8, size) || headerSize < kFatbinHeaderSize || headerSize > bytes.size() ||
      size > bytes.size() - headerSize)
    return internalError("not a fat binary (or a truncated one)");
  std::vector<FatbinEntry> entries;
  size_t end = headerSize + size;
  for (size_t at = headerSize; at < end;) {
    uint16_t kind = 0;
    uint32_t entryHeader = 0, arch = 0;
    uint64_t payloadSize = 0, flags = 0;
    if (!readField(bytes, at, kind) || !readField(bytes, at + 4, entryHeader) ||
        !readField(bytes, at + 8, payloadSize) || !readField(bytes, at + 28, arch) ||
        !readField(bytes, at + 40, flags))
      return internalError("a truncated fat binary entry at byte " + std::to_string(at));
    // Each entry moves the reading forward by at least its header's fields, so it ends.
    if (entryHeader < kFatbinEntryHeaderSize || entryHeader > end - at ||
        payloadSize > end - at - entryHeader)
      return internalError("a fat binary entry at byte " + std::to_string(at) +
                           " whose sizes (header " + std::to_string(entryHeader) + ", payload " +
                           std::to_string(payloadSize) + ") do not fit in the " +
                           std::to_string(end - at) + " bytes left");
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
      auto info = readPtx(part.text);
      if (!info)
        return info.takeError();
      part.info = std::move(*info);
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
