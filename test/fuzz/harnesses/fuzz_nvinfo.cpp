// libFuzzer: readKernelParams over any bytes (a kernel's .nv.info.<symbol> section, which a
// cubin's parameter layout is read from). Seeds: test/fuzz/corpus/nvinfo (the sections of nvcc's
// cubins: small parameters, a by-value struct of more than 4 KiB, none).
#include "FuzzChecks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  llvm::StringRef section(reinterpret_cast<const char*>(data), size);
  auto params = tlc::readKernelParams(section);
  if (!params) {
    tlc::fuzz::consume(params.takeError());
    return 0;
  }
  tlc::fuzz::checkLayout(params->params);
  return 0;
}
