// Small file operations with tlc's error conventions.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

// Every input exists and is a regular file; otherwise an InputError naming the first that is not.
llvm::Error checkInputFiles(const std::vector<std::string>& inputs);

llvm::Error writeFile(const std::string& path, llvm::StringRef contents);

// Writes through a temporary file and a rename, so readers never see half a file; leaves the
// file (and its timestamp) alone when it already holds `contents`.
llvm::Error replaceFileIfChanged(const std::string& path, llvm::StringRef contents);

llvm::Expected<std::string> readFile(const std::string& path);

// An absolute path without "." or ".." (resolved through the file system where ".." follows a
// symbolic link), as depfiles need them.
std::string absolutePath(const std::string& path);

} // namespace tlc
