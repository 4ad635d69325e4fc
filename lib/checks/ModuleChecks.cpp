// Module-wide checks: unique device symbols and launcher names across inputs.
#include "checks/ModuleChecks.h"

#include "checks/LauncherNames.h"
#include "checks/SourceDiagnostics.h"
#include "model/DerivedFacts.h"
#include "support/Error.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <set>

namespace tlc {

static std::string describe(const DeviceSymbol& symbol) {
  switch (symbol.kind) {
  case DeviceSymbol::Kind::Kernel:
    return "kernel '" + symbol.name + "'";
  case DeviceSymbol::Kind::Variable:
    return "device variable '" + symbol.name + "'";
  case DeviceSymbol::Kind::Function:
    return "device function '" + symbol.name + "'";
  }
  return symbol.name;
}

// Reports one conflict per symbol defined incompatibly in two inputs; returns the error count.
static unsigned checkUniqueDefinitions(const std::vector<TranslationUnitFacts>& units,
                                       SourceDiagnostics& diagnostics) {
  llvm::StringMap<const DeviceSymbol*> first;
  std::set<std::string> reported;
  unsigned errors = 0;
  for (const TranslationUnitFacts& unit : units) {
    for (const DeviceSymbol& symbol : unit.definitions) {
      auto [it, inserted] = first.try_emplace(symbol.symbol, &symbol);
      if (inserted)
        continue;
      const DeviceSymbol& earlier = *it->second;
      if (earlier.translationUnit == symbol.translationUnit)
        continue;
      if (earlier.weak && symbol.weak && earlier.definitionKey == symbol.definitionKey)
        continue; // one inline/template definition seen from two inputs
      if (!reported.insert(symbol.symbol).second)
        continue;
      ++errors;
      std::string what = describe(symbol);
      std::string symbolText = symbol.symbol == symbol.name
                                   ? "'" + symbol.symbol + "'"
                                   : "'" + symbol.symbol + "' (" + what + ")";
      if (earlier.weak && symbol.weak) {
        diagnostics.error(symbol.location,
                          "device symbol " + symbolText + " has different definitions in " +
                              earlier.translationUnit + " and " + symbol.translationUnit +
                              "; the device linker would keep only one");
        diagnostics.note(earlier.location,
                         "the definition used by " + earlier.translationUnit + " is here");
        continue;
      }
      diagnostics.error(symbol.location, "device symbol " + symbolText + " is defined in both " +
                                             earlier.translationUnit + " and " +
                                             symbol.translationUnit);
      if (earlier.location.file == symbol.location.file)
        diagnostics.note(earlier.location,
                         "both inputs include this definition; make it 'inline' or a template, "
                         "or define it in one .cu file");
      else
        diagnostics.note(earlier.location, "first defined here, in " + earlier.translationUnit);
    }
  }
  return errors;
}

// One kernel per symbol: an inline kernel or template instance seen from several inputs is one.
// Kernels with internal linkage are each input's own, however they are named.
static void mergeKernels(std::vector<TranslationUnitFacts>& units, Module& module) {
  llvm::StringMap<size_t> index;
  for (TranslationUnitFacts& unit : units) {
    for (Kernel& kernel : unit.kernels) {
      std::string key = kernel.symbol;
      if (kernel.internalLinkage)
        key += "\n" + unit.input;
      auto [it, inserted] = index.try_emplace(key, module.kernels.size());
      if (inserted) {
        module.kernels.push_back(std::move(kernel));
        continue;
      }
      auto& units = module.kernels[it->second].translationUnits;
      for (const std::string& input : kernel.translationUnits)
        if (std::find(units.begin(), units.end(), input) == units.end())
          units.push_back(input);
    }
  }
}

static void mergeRecords(std::vector<TranslationUnitFacts>& units, Module& module) {
  std::set<std::string> seen;
  for (TranslationUnitFacts& unit : units)
    for (Record& record : unit.records)
      if (seen.insert(record.cName).second)
        module.records.push_back(std::move(record));
}

llvm::Expected<Module> buildModule(std::vector<TranslationUnitFacts> units,
                                   SourceDiagnostics& diagnostics) {
  Module module;
  for (const TranslationUnitFacts& unit : units)
    module.inputs.push_back(unit.input);
  unsigned errors = checkUniqueDefinitions(units, diagnostics);
  mergeKernels(units, module);
  mergeRecords(units, module);
  std::set<std::string> others, libraryTemplates;
  for (const TranslationUnitFacts& unit : units) {
    others.insert(unit.otherEntries.begin(), unit.otherEntries.end());
    libraryTemplates.insert(unit.libraryKernelTemplates.begin(), unit.libraryKernelTemplates.end());
    module.deviceSideLaunch |= unit.deviceSideLaunch;
  }
  module.otherEntries.assign(others.begin(), others.end());
  module.libraryKernelTemplates.assign(libraryTemplates.begin(), libraryTemplates.end());
  if (!assignLauncherNames(module.kernels, diagnostics))
    ++errors;
  if (errors)
    return reportedInputError("module checks failed");
  deriveFacts(module);
  return module;
}

} // namespace tlc
