// The human-readable kernel listing of `tlc inspect`.
#pragma once

#include "model/Model.h"

#include "llvm/Support/raw_ostream.h"

namespace tlc {

void printKernelTable(const Module& module, llvm::raw_ostream& out);

} // namespace tlc
