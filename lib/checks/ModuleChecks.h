// Module-wide checks over every input: each externally visible device symbol is defined once,
// and every kernel gets a unique launcher name. The same definition reached from several inputs
// (an inline function or a template in a shared header, one explicit instantiation in two
// files) is one definition, not a conflict.
#pragma once

#include "frontend/Extractor.h"
#include "model/Model.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace tlc {

class SourceDiagnostics;

// Merges per-input facts into one module (kernels deduplicated by symbol, in input order),
// checks it and fills its derived facts (model/DerivedFacts.h). Problems go to `diagnostics`; if
// any, returns a reported InputError.
llvm::Expected<Module> buildModule(std::vector<TranslationUnitFacts> units,
                                   SourceDiagnostics& diagnostics);

} // namespace tlc
