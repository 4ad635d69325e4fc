// `tlc --version`: tlc's, Clang's and the CUDA toolkit's versions.
#include "commands/Commands.h"
#include "support/Error.h"
#include "toolchain/Toolchain.h"

namespace tlc {

void printVersion(const std::string& cudaPath, llvm::raw_ostream& out) {
  out << "tlc " << tlcVersion() << "\n";
  out << "clang " << clangVersion() << " (" << clangResourceDir() << ")\n";
  auto toolkit = findCudaToolkit(cudaPath);
  if (!toolkit) {
    out << "cuda: not found: " << summarize(toolkit.takeError()).message << "\n";
    return;
  }
  out << "cuda " << toolkit->release << " (" << toolkit->root << ", chosen by " << toolkit->chosenBy
      << ")\n";
}

} // namespace tlc
