// Make-style dependency files (`--depfile`), as Ninja's and Make's depfile support reads them:
// `target: every file the build read`, so that editing any header re-runs tlc. And the reverse:
// the files a host compiler run with -MD read, for a cache entry of what it made.
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

// Whether `--depfile` may replace `path`: missing, empty, or a depfile of the shape tlc writes.
// UsageError for a file of other contents, a user's file named by mistake (`--depfile notes.txt`),
// which tlc never replaces.
llvm::Error checkDepfileReplaceable(const std::string& path);

// The prerequisites of every rule in `text`, a depfile as GCC and Clang write them (-MD), in
// order, unescaped as Make reads them: a backslash-newline is a space, 2N+1 backslashes and a
// space are N backslashes and a space in a path (2N and a space: N, then the path ends), `\#`
// is '#' and `$$` is '$'. Targets (a word ending in an unescaped ':') are left out. InputError
// for text that is no rule (no target before the first path).
llvm::Expected<std::vector<std::string>> depfilePrerequisites(const std::string& text);

} // namespace tlc
