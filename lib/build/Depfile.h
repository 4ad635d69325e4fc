// Make-style dependency files (`--depfile`), as Ninja's and Make's depfile support reads them:
// `target: every file the build read`, so that editing any header re-runs tlc.
#pragma once

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

// Paths are written absolute, de-duplicated and sorted, with spaces and '$' escaped. The file
// is replaced only when its contents change.
llvm::Error writeDepfile(const std::string& path, const std::string& target,
                         const std::vector<std::string>& dependencies);

} // namespace tlc
