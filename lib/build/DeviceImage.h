// Reading device images (cubins) with LLVM's Object library: which kernels (entry functions)
// they hold, with what binding, for which SM. Used to verify a build against the extraction.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <string>
#include <vector>

namespace tlc {

struct ImageEntry {
  std::string symbol;
  bool weak = false; // WEAK binding: template instantiations and inline kernels after -rdc
};

struct CubinInfo {
  unsigned sm = 0; // e.g. 90 for sm_90 and sm_90a
  std::vector<ImageEntry> entries; // sorted by symbol
};

// Entries are FUNC symbols marked as CUDA entry points (st_other 0x10); LOCAL ones (static
// kernels, renamed by nvcc) are left out because nothing can look them up.
llvm::Expected<CubinInfo> readCubin(llvm::MemoryBufferRef image);
llvm::Expected<CubinInfo> readCubinFile(llvm::StringRef path);

} // namespace tlc
