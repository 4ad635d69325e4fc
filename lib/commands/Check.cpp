// `tlc check`: the module-wide checks without building.
#include "builder/ImageInputs.h"
#include "checks/Analysis.h"
#include "commands/Commands.h"

namespace tlc {

llvm::Error runCheck(const SourceOptions& requested, llvm::raw_ostream& out) {
  SourceOptions options = requested;
  if (llvm::Error error = refuseImageInputs("check", options.inputs))
    return error;
  if (auto flags = applyCompileCommands(options); !flags)
    return flags.takeError();
  auto toolkit = findCudaToolkit(options.cudaPath);
  if (!toolkit)
    return toolkit.takeError();
  auto analysis = analyze(options.inputs, options.frontend, *toolkit);
  if (!analysis)
    return analysis.takeError();
  const Module& module = analysis->module;
  out << "ok: " << module.kernels.size() << (module.kernels.size() == 1 ? " kernel" : " kernels")
      << " with unique symbols and launcher names across " << module.inputs.size()
      << (module.inputs.size() == 1 ? " file" : " files") << "\n";
  return llvm::Error::success();
}

} // namespace tlc
