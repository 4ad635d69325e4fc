// Reading device images with LLVM's Object library (cubins) or as text (PTX): which kernels
// (entry functions) they hold, with what binding, for which SM. Used to verify a build against
// the extraction.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <string>
#include <vector>

namespace tlc {

struct ImageEntry {
  std::string symbol;
  bool weak = false;  // WEAK binding: template instantiations and inline kernels after -rdc
  bool local = false; // LOCAL: static and anonymous-namespace kernels, under nvcc's own names
};

struct CubinInfo {
  unsigned sm = 0;                 // e.g. 90 for sm_90 and sm_90a
  std::vector<ImageEntry> entries; // sorted by symbol
};

// Entries are FUNC symbols marked as CUDA entry points (st_other 0x10), LOCAL ones included:
// static and anonymous-namespace kernels launch by their exact symbol too.
llvm::Expected<CubinInfo> readCubin(llvm::MemoryBufferRef image);
llvm::Expected<CubinInfo> readCubinFile(llvm::StringRef path);

// The `.entry` functions of PTX text: `.visible .entry` (strong), `.weak .entry`, and plain
// `.entry` (file-local: static kernels). `sm` is 0.
CubinInfo readPtx(llvm::StringRef text);
llvm::Expected<CubinInfo> readPtxFile(llvm::StringRef path);

// One entry of a fat binary, as tlc writes them (uncompressed): a cubin or PTX text.
struct FatbinEntry {
  bool ptx = false;
  unsigned arch = 0;         // 90 for sm_90, sm_90a and compute_90a
  bool archSpecific = false; // sm_90a, compute_90a
  llvm::StringRef payload;   // the cubin's bytes or the PTX text, inside the fatbin's buffer
};

// The entries of a fatbin's bytes; InternalError if it is not one, or an entry is compressed.
llvm::Expected<std::vector<FatbinEntry>> readFatbin(llvm::StringRef bytes);

// The entries of a device image file, whatever its kind: a cubin is one SASS entry; a fatbin
// holds several; a host object (`nvcc -c`) carries a fatbin in its .nv_fatbin section.
struct ImageContents {
  struct Part {
    FatbinEntry entry;
    CubinInfo info;
    std::string text; // a PTX entry's text
  };
  std::vector<Part> parts;
};
llvm::Expected<ImageContents> readDeviceImageFile(llvm::StringRef path);

} // namespace tlc
