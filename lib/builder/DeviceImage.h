// Reading device images with LLVM's Object library (cubins) or as text (PTX): which kernels
// (entry functions) they hold, with what binding, for which SM, and where each kernel's parameters
// lie in its parameter buffer. Used to verify a build against the extraction.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <string>
#include <vector>

namespace tlc {

// One kernel parameter as the image lays it out: the driver copies `size` bytes of the argument
// to `offset` in the kernel's parameter buffer (cuLaunchKernel takes the layout from the image).
struct ImageParam {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t align = 0; // PTX: `.align N`, else its type's size; cubins do not record it (0)
  bool operator==(const ImageParam& other) const {
    return offset == other.offset && size == other.size;
  }
};

struct ImageEntry {
  std::string symbol;
  bool weak = false;  // WEAK binding: template instantiations and inline kernels after -rdc
  bool local = false; // LOCAL: static and anonymous-namespace kernels, under nvcc's own names
  // Its parameters in order; `paramsKnown` false where the image says nothing of them (a cubin
  // without the kernel's .nv.info section).
  std::vector<ImageParam> params;
  bool paramsKnown = false;
  // Where the parameters start in the kernel's constant bank (cubins; 0 in PTX, which leaves
  // it to the JIT): ptxas places a parameter aligned to more than 16 bytes so that this base
  // plus its offset is aligned (0x210 on sm_90, 0x160 on sm_80).
  uint64_t paramBase = 0;
};

struct CubinInfo {
  unsigned sm = 0;                 // e.g. 90 for sm_90 and sm_90a
  bool archSpecific = false;       // sm_90a: its .nv.compat section says so (cubins only)
  std::vector<ImageEntry> entries; // sorted by symbol
};

// The parameter bytes the driver accepts for one kernel (CUDA 12.1 and newer, Volta and newer):
// no image tlc reads may lay a parameter past them.
constexpr uint64_t kMaxParamBytes = 32764;

// InternalError for parameters past kMaxParamBytes or overlapping the one before.
llvm::Error checkParamLayout(const std::vector<ImageParam>& params);

// Entries are FUNC symbols marked as CUDA entry points (st_other 0x10), LOCAL ones included:
// static and anonymous-namespace kernels launch by their exact symbol too. Their parameters come
// from the section `.nv.info.<symbol>` (readKernelParams). Every table is read through checked
// offsets and sizes: a malformed image is an InternalError naming what is wrong, which callers
// reading the user's images turn into a usage error.
llvm::Expected<CubinInfo> readCubin(llvm::MemoryBufferRef image);
llvm::Expected<CubinInfo> readCubinFile(llvm::StringRef path);

// The `.entry` functions of PTX text: `.visible .entry` (strong), `.weak .entry`, and plain
// `.entry` (file-local: static kernels), with their `.param` lists. `sm` is 0. Read in one pass
// (time linear in the text); InternalError for a list whose parameters lie past
// kMaxParamBytes.
llvm::Expected<CubinInfo> readPtx(llvm::StringRef text);
llvm::Expected<CubinInfo> readPtxFile(llvm::StringRef path);

// The parameters a kernel's `.nv.info.<symbol>` section describes. The section is a list of
// 4-byte aligned records: a format byte, an attribute byte, then either a 16-bit value or, for
// format 4, a 16-bit payload size and the payload. Each parameter has a record of attribute 0x17
// (EIATTR_KPARAM_INFO; payload: u32 index, u16 ordinal, u16 offset, u32 flags whose bits 18-31
// are the size) or, in kernels whose parameters take more than 4 KiB, of attribute 0x45 (the
// same with the last u32 the size itself); attribute 0x0a (EIATTR_PARAM_CBANK; payload: u32
// symbol, u16 base, u16 total size) says where they start. Not documented by NVIDIA: read from
// cubins nvcc 13 built from kernels of known layouts (test/unit/DeviceImageTests.cpp).
// InternalError for records it cannot read or ordinals that are not 0..n-1.
struct KernelParams {
  std::vector<ImageParam> params;
  uint64_t base = 0;
};
llvm::Expected<KernelParams> readKernelParams(llvm::StringRef section);

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
