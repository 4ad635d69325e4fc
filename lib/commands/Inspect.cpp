// `tlc inspect`: the kernel table, or the model as JSON.
#include "builder/ImageInputs.h"
#include "checks/Analysis.h"
#include "commands/Commands.h"
#include "commands/InspectTable.h"
#include "model/ModelJson.h"

namespace tlc {

llvm::Error runInspect(const InspectOptions& options, llvm::raw_ostream& out) {
  SourceOptions sources = options.sources;
  if (llvm::Error error = refuseImageInputs("inspect", sources.inputs))
    return error;
  if (auto flags = applyCompileCommands(sources); !flags)
    return flags.takeError();
  auto toolkit = findCudaToolkit(sources.cudaPath);
  if (!toolkit)
    return toolkit.takeError();
  auto analysis = analyze(sources.inputs, sources.frontend, *toolkit);
  if (!analysis)
    return analysis.takeError();
  if (!options.json) {
    printKernelTable(analysis->module, out);
    return llvm::Error::success();
  }
  std::string arch =
      options.sources.frontend.arch.empty() ? defaultArch(*toolkit) : options.sources.frontend.arch;
  ToolVersions versions{tlcVersion(), clangVersion(), toolkit->release};
  // A name that is not UTF-8 (a file name) is printed with replacement characters.
  out << moduleDocument(analysis->module, versions, arch)
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
      << "\n";
  return llvm::Error::success();
}

} // namespace tlc
