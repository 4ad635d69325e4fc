// The front half of every command: parse all inputs, extract, merge and check. `inspect` and
// `check` stop here; `build` renders and compiles what this returns.
#pragma once

#include "frontend/Frontend.h"
#include "model/Model.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace tlc {

struct Analysis {
  Module module;
  std::vector<std::string> filesRead; // inputs and every header Clang opened, sorted, unique
  // Per input, in input order: what its own parse opened (each input's compile is cached with
  // the files it read: commands/BuildCaching.h).
  std::vector<std::vector<std::string>> filesReadByInput;
  // Each header of the user's an input includes (absolute) -> the first input, in their order,
  // that includes it: the command clangd should use for it (CompileCommands.h).
  std::map<std::string, std::string> userHeaders;
  // The inputs' host functions with external linkage, each once, in the inputs' order
  // (TranslationUnitFacts::hostFunctions).
  std::vector<TranslationUnitFacts::HostFunction> hostFunctions;
};

// Diagnostics (Clang's and tlc's) go to stderr, colored as options.color says. On any error in
// any input, all of them are printed and a reported InputError is returned. `store`: the parses
// kept before (parseInputs).
llvm::Expected<Analysis> analyze(const std::vector<std::string>& inputs,
                                 const FrontendOptions& options, const CudaToolkit& toolkit,
                                 JobSlots* slots = nullptr, ParseStore* store = nullptr);

} // namespace tlc
