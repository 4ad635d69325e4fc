// libFuzzer: readPtx over any text (the .ptx inputs of `tlc build`, and the PTX of fat binaries).
// Seeds: test/fuzz/corpus/ptx (nvcc's PTX, the fixtures' hand-written PTX, odd parameter lists);
// dictionary: ptx.dict. Its promise of linear time is held by the run's -timeout on long inputs
// (scripts/fuzz gives this fuzzer a larger -max_len).
#include "FuzzChecks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  auto info = tlc::readPtx(text);
  if (!info) {
    tlc::fuzz::consume(info.takeError());
    return 0;
  }
  tlc::fuzz::checkInfo(*info, /*ptx=*/true);
  return 0;
}
