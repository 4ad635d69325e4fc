// libFuzzer: readCubin over any bytes (the .cubin inputs of `tlc build`, and every cubin of a fat
// binary). cubinIsArchSpecific (builder/ImageInputs.h) is readCubin's `archSpecific`, read here.
// Seeds: test/fuzz/corpus/cubin (nvcc's cubins, and imgforge.py's forgeries of them).
#include "FuzzChecks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char*>(data), size);
  auto info = tlc::readCubin(llvm::MemoryBufferRef(bytes, "fuzz.cubin"));
  if (!info) {
    tlc::fuzz::consume(info.takeError());
    return 0;
  }
  tlc::fuzz::checkInfo(*info, /*ptx=*/false);
  return 0;
}
