// The arguments after `--`, which go to Clang's parse only, screened as nvcc's are
// (NvccOptions.h): the parse reads the user's code, it never writes a file, loads a plugin or
// passes anything on to another tool. Two layers keep that promise:
//  - screenParseArguments reads each argument with Clang's own option table and refuses, as a
//    usage error naming it, what is not a preprocessor, include, warning or language option:
//    dependency files (-MD, -MF), serialized diagnostics, time traces, statistics, plugins,
//    modules and their cache, crash reports, -Xclang, -mllvm and the other pass-throughs, the
//    action and target (tlc decides those), positional arguments and response files.
//  - keepParseFromWriting clears, in the compiler invocation the parse runs, every field through
//    which a syntax-only parse writes or loads something, whatever spelling set it.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace clang {
class CompilerInvocation;
}

namespace tlc {

llvm::Error screenParseArguments(llvm::ArrayRef<std::string> args);

void keepParseFromWriting(clang::CompilerInvocation& invocation);

} // namespace tlc
