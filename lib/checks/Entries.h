// --entry: keep launchers only for the named kernels. A kernel is named by its C++ name (all
// instantiations of a template), its name with template arguments, its launcher name or its
// exact symbol. Kernels left out stay in the image and are listed as other entries.
#pragma once

#include "model/Model.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

// Keeps the kernels `entries` name and derives the module's facts again (kernel indices,
// tensor-map slices). InputError for an entry that names no kernel, listing the kernels and
// the closest match.
llvm::Error selectEntries(Module& module, const std::vector<std::string>& entries);

} // namespace tlc
