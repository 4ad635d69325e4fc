// The fat binary reader: the container header checked once, then one entry header at a time.
#include "Fatbin.h"

#include <cstdio>
#include <cstring>

namespace tlc::runtime {

namespace {

constexpr uint32_t kMagic = 0xBA55ED50;
constexpr uint16_t kVersion = 1;
constexpr size_t kHeaderSize = 16;
constexpr uint16_t kEntryVersion = 0x0101;
constexpr size_t kEntryHeaderMin = 64;
// Offsets in an entry's header.
constexpr size_t kEntryHeaderSize = 4;
constexpr size_t kEntryPayloadSize = 8;
constexpr size_t kEntryCompressedSize = 16;
constexpr size_t kEntryArch = 28;
constexpr size_t kEntryFlags = 40;
// Flags.
constexpr uint64_t kCompressed = 0x2000 | 0x8000; // the two codecs fatbinary writes
constexpr uint64_t kArchSpecific = 0x100000;
constexpr uint64_t kFamily = 0x200000;

// The image may not be aligned for T.
template <typename T> T readAt(const unsigned char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

} // namespace

FatbinReader::FatbinReader(const void* image, size_t available)
    : Image(static_cast<const unsigned char*>(image)) {
  if (!Image || available < sizeof kMagic || readAt<uint32_t>(Image) != kMagic)
    return;
  IsFatbin = true;
  if (available < kHeaderSize) {
    stop("the fatbin's header is cut short (%llu bytes)", available);
    return;
  }
  uint16_t version = readAt<uint16_t>(Image + 4);
  uint16_t headerSize = readAt<uint16_t>(Image + 6);
  uint64_t entriesSize = readAt<uint64_t>(Image + 8);
  if (version != kVersion)
    stop("unknown fatbin version %llu", version);
  else if (headerSize < kHeaderSize)
    stop("a fatbin header of %llu bytes", headerSize);
  else if (available < headerSize || entriesSize > available - headerSize)
    stop("the fatbin claims %llu bytes of entries, more than the image holds", entriesSize);
  if (Error[0])
    return;
  At = headerSize;
  End = headerSize + static_cast<size_t>(entriesSize);
}

bool FatbinReader::stop(const char* format, unsigned long long value) {
  std::snprintf(Error, sizeof Error, format, value);
  return false;
}

bool FatbinReader::next(FatbinEntry& entry) {
  if (!IsFatbin || Error[0] || At >= End)
    return false;
  if (End - At < kEntryHeaderMin)
    return stop("an entry at offset %llu is cut short", At);
  const unsigned char* header = Image + At;
  uint16_t version = readAt<uint16_t>(header + 2);
  uint32_t headerSize = readAt<uint32_t>(header + kEntryHeaderSize);
  uint64_t payloadSize = readAt<uint64_t>(header + kEntryPayloadSize);
  if (version != kEntryVersion)
    return stop("an entry of unknown version 0x%llx", version);
  if (headerSize < kEntryHeaderMin || headerSize > End - At)
    return stop("an entry header of %llu bytes", headerSize);
  if (payloadSize > End - At - headerSize)
    return stop("the entry at offset %llu runs past the end of the fatbin", At);
  uint64_t flags = readAt<uint64_t>(header + kEntryFlags);
  entry.kind = readAt<uint16_t>(header);
  entry.arch = readAt<uint32_t>(header + kEntryArch);
  entry.variant = flags & kArchSpecific ? 'a' : flags & kFamily ? 'f' : 0;
  entry.compressed = (flags & kCompressed) || readAt<uint32_t>(header + kEntryCompressedSize);
  entry.offset = At;
  entry.payload = header + headerSize;
  entry.size = static_cast<size_t>(payloadSize);
  At += headerSize + entry.size;
  return true;
}

void ptxText(const FatbinEntry& entry, size_t& length, bool& terminated) {
  const void* nul = std::memchr(entry.payload, '\0', entry.size);
  terminated = nul != nullptr;
  length = nul ? static_cast<size_t>(static_cast<const unsigned char*>(nul) - entry.payload)
               : entry.size;
}

} // namespace tlc::runtime
