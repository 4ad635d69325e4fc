// Make-style dependency files (`--depfile`), as Ninja's and Make's depfile support reads them:
// `target: every file the build read`, so that editing any header re-runs tlc.
#pragma once

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

// A path as a depfile spells it, the way GCC writes them and Ninja (1.11 on) and GNU Make read
// them: a backslash before ' ', '#' and ':', '$' doubled. InputError for a path the syntax
// cannot spell (line breaks and other control characters, a trailing backslash or colon).
llvm::Expected<std::string> depfilePath(const std::string& path);

// `target` is written as given (Make finds a rule's depfile entries by the target's name as the
// Makefile spells it); the dependencies absolute, de-duplicated and sorted, escaped as
// depfilePath does. The file is replaced only when its contents change.
llvm::Error writeDepfile(const std::string& path, const std::string& target,
                         const std::vector<std::string>& dependencies);

} // namespace tlc
