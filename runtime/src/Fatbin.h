// Reading the entries of a fat binary (the container nvcc's `fatbinary` writes), so the runtime
// can hand a relocatable module's PTX entries to the driver's linker itself. Only what that
// needs is read: each entry's kind, arch, variant and payload, and whether it is compressed
// (which this reader does not undo). Anything unlike the layout below is reported, never guessed.
//
// Layout (little endian; seen in CUDA 12 and 13 fatbins):
//   container header, 16 bytes: magic 0xBA55ED50 (u32), version 1 (u16), header size (u16),
//     size of the entries after the header (u64);
//   each entry: a header of at least 64 bytes: kind (u16: 1 PTX, 2 ELF), entry version 0x0101
//     (u16), header size (u32), payload size (u64), compressed size (u32 at 16; 0 if stored
//     uncompressed), arch (u32 at 28: 80 for sm_80 / compute_80), flags (u64 at 40: 0x2000 and
//     0x8000 compressed, 0x100000 arch-specific `a`, 0x200000 family `f`); then the payload
//     (PTX: its text padded with NULs).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tlc::runtime {

struct FatbinEntry {
  enum Kind : unsigned { Ptx = 1, Elf = 2 }; // other kinds exist (kept as read)
  unsigned kind = 0;
  unsigned arch = 0; // 80, 90
  char variant = 0;  // 'a', 'f' or 0
  bool compressed = false;
  size_t offset = 0; // of the entry's header in the image
  const unsigned char* payload = nullptr;
  size_t size = 0; // of the payload, padding included
};

// Walks the entries of a fatbin in memory, allocating nothing.
class FatbinReader {
public:
  // `available`: how many bytes at `image` may be read; SIZE_MAX where only the container's own
  // header says (an image embedded in the library).
  FatbinReader(const void* image, size_t available);

  // Whether the image starts with the fatbin magic number.
  bool isFatbin() const { return IsFatbin; }
  // The next entry into `entry`; false at the end, or where the layout is not one this reader
  // knows, when error() says why.
  bool next(FatbinEntry& entry);
  // Why reading stopped early; "" if it did not.
  const char* error() const { return Error; }

private:
  bool stop(const char* format, unsigned long long value);

  const unsigned char* Image;
  bool IsFatbin = false;
  size_t At = 0;  // the next entry's offset
  size_t End = 0; // where the entries end
  char Error[128] = {};
};

// The text of a PTX entry: its payload up to the first NUL. `terminated` says whether a NUL
// follows within the payload (then `length + 1` bytes can be handed over as they are).
void ptxText(const FatbinEntry& entry, size_t& length, bool& terminated);

} // namespace tlc::runtime
