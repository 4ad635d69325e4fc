// PTX text as the fake driver's "JIT" reads it: the .version and .target directives, each
// kernel entry with its parameter sizes and cluster shape, the functions the text defines for
// other inputs of a link, and the functions it declares .extern and needs from them. Nothing is
// compiled: this is what lets the fake check launches of JIT-compiled code and resolve a link.
#ifndef TLC_FAKE_CUDA_PTX_H
#define TLC_FAKE_CUDA_PTX_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fake_cuda {

struct PtxEntry {
  std::vector<uint32_t> parameterSizes; // bytes, in parameter order
  unsigned clusterDims[3] = {0, 0, 0};  // .reqnctapercluster, or zeros
};

struct PtxProgram {
  std::string error; // why the text is not PTX the fake accepts, as ptxas would say it; "" if it is
  int sm = 0;        // from `.target sm_90a`: 90
  char variant = 0;  // 'a', 'f' or 0
  std::map<std::string, PtxEntry> entries;
  std::set<std::string> exported;   // .visible and .weak functions and entries with a body
  std::set<std::string> weak;       // those of them that are .weak
  std::vector<std::string> externs; // .extern .func declarations, in order

  bool valid() const { return error.empty(); }
};

// Parses `text` (up to its first NUL, if any).
PtxProgram parsePtx(const std::string& text);

} // namespace fake_cuda

#endif
