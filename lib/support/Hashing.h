// SHA-256 of files and strings, as lowercase hex (manifests, cache keys, tlc verify).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <mutex>
#include <string>

namespace tlc {

std::string sha256Hex(llvm::StringRef data);
llvm::Expected<std::string> sha256OfFile(llvm::StringRef path);
// Whether `text` is a SHA-256 as these write it: 64 lowercase hex digits.
bool isSha256Hex(llvm::StringRef text);

// Files' SHA-256s, each file read once however often it is asked for, from any thread (a build's
// inputs: for the cache key, and again for the manifest).
class FileDigests {
public:
  llvm::Expected<std::string> of(const std::string& path);

private:
  std::mutex Mutex;
  std::map<std::string, std::string> Digests; // by path
};

} // namespace tlc
