// What every harness checks of what a reader returns: an error is consumed (it must say something),
// and a result must hold what builder/DeviceImage.h promises of it. A broken promise aborts, which
// libFuzzer reports as a crash and saves the input for. (Messages quote the image's names as they
// are, control characters and NULs included: tlc prints them to the terminal unescaped.)
#pragma once

#include "builder/DeviceImage.h"
#include "support/Error.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tlc::fuzz {

[[noreturn]] inline void broken(const char* promise) {
  std::fprintf(stderr, "fuzz: a reader broke its promise: %s\n", promise);
  std::abort();
}

inline void require(bool holds, const char* promise) {
  if (!holds)
    broken(promise);
}

inline void consume(llvm::Error error) {
  ErrorSummary summary = summarize(std::move(error));
  require(!summary.message.empty(), "an error says what is wrong");
}

// A layout within the driver's bound, each parameter after the one before (checkParamLayout).
inline void checkLayout(const std::vector<ImageParam>& params) {
  llvm::Error layout = checkParamLayout(params);
  require(!layout, "parameters lie within kMaxParamBytes, in order, without overlapping");
  llvm::consumeError(std::move(layout));
}

// `ptx`: readPtx's entries, whose parameters also carry their alignment.
inline void checkInfo(const CubinInfo& info, bool ptx) {
  require(
      std::is_sorted(info.entries.begin(), info.entries.end(),
                     [](const ImageEntry& a, const ImageEntry& b) { return a.symbol < b.symbol; }),
      "entries are sorted by symbol");
  if (ptx)
    require(info.sm == 0 && !info.archSpecific, "PTX says no SM");
  for (const ImageEntry& entry : info.entries) {
    require(!(entry.weak && entry.local), "an entry is weak or local, not both");
    if (!entry.paramsKnown)
      require(entry.params.empty() && entry.paramBase == 0, "unknown parameters are none");
    checkLayout(entry.params);
    if (!ptx)
      continue;
    require(!entry.symbol.empty(), "a PTX entry has a name");
    require(entry.paramBase == 0, "PTX leaves the parameters' base to the JIT");
    for (const ImageParam& param : entry.params)
      require(param.size > 0 && llvm::isPowerOf2_64(param.align) && param.offset % param.align == 0,
              "a PTX parameter is aligned as it says");
  }
}

} // namespace tlc::fuzz
