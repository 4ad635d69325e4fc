// The front half of every command: parse every input, extract, merge into one module, check.
#include "checks/Analysis.h"

#include "checks/ModuleChecks.h"
#include "checks/SourceDiagnostics.h"

#include <set>

namespace tlc {

llvm::Expected<Analysis> analyze(const std::vector<std::string>& inputs,
                                 const FrontendOptions& options, const CudaToolkit& toolkit,
                                 JobSlots* slots) {
  auto units = parseInputs(inputs, options, toolkit, llvm::errs(), slots);
  if (!units)
    return units.takeError();
  std::set<std::string> files;
  std::map<std::string, std::string> userHeaders;
  for (const TranslationUnitFacts& unit : *units) {
    files.insert(unit.filesRead.begin(), unit.filesRead.end());
    for (const std::string& header : unit.userHeaders)
      userHeaders.emplace(header, unit.input);
  }

  SourceDiagnostics diagnostics(llvm::errs(), options.color);
  auto module = buildModule(std::move(*units), diagnostics);
  if (!module)
    return module.takeError();
  return Analysis{std::move(*module), {files.begin(), files.end()}, std::move(userHeaders)};
}

} // namespace tlc
