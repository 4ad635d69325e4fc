// The front half of every command: parse every input, extract, merge into one module, check.
#include "checks/Analysis.h"

#include "checks/ModuleChecks.h"
#include "checks/SourceDiagnostics.h"

#include <set>

namespace tlc {

llvm::Expected<Analysis> analyze(const std::vector<std::string>& inputs,
                                 const FrontendOptions& options, const CudaToolkit& toolkit,
                                 JobSlots* slots, ParseStore* store) {
  auto units = parseInputs(inputs, options, toolkit, llvm::errs(), slots, store);
  if (!units)
    return units.takeError();
  std::set<std::string> files;
  std::vector<std::vector<std::string>> byInput;
  std::map<std::string, std::string> userHeaders;
  std::vector<TranslationUnitFacts::HostFunction> hostFunctions;
  std::set<std::string> hostFunctionsSeen; // a header's function, included twice, is one
  for (const TranslationUnitFacts& unit : *units) {
    files.insert(unit.filesRead.begin(), unit.filesRead.end());
    byInput.push_back(unit.filesRead);
    for (const std::string& header : unit.userHeaders)
      userHeaders.emplace(header, unit.input);
    for (const TranslationUnitFacts::HostFunction& function : unit.hostFunctions)
      if (hostFunctionsSeen.insert(function.name + "@" + function.location.str()).second)
        hostFunctions.push_back(function);
  }

  SourceDiagnostics diagnostics(llvm::errs(), options.color);
  auto module = buildModule(std::move(*units), diagnostics);
  if (!module)
    return module.takeError();
  return Analysis{std::move(*module),
                  {files.begin(), files.end()},
                  std::move(byInput),
                  std::move(userHeaders),
                  std::move(hostFunctions)};
}

} // namespace tlc
