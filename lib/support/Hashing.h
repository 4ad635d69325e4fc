// SHA-256 of files and strings, as lowercase hex (manifests, cache keys, tlc verify).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tlc {

std::string sha256Hex(llvm::StringRef data);
llvm::Expected<std::string> sha256OfFile(llvm::StringRef path);
// Whether `text` is a SHA-256 as these write it: 64 lowercase hex digits.
bool isSha256Hex(llvm::StringRef text);

} // namespace tlc
