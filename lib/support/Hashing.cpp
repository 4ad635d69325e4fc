// SHA-256 of files and strings.
#include "support/Hashing.h"

#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"

namespace tlc {

std::string sha256Hex(llvm::StringRef data) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(data)), /*LowerCase=*/true);
}

llvm::Expected<std::string> sha256OfFile(llvm::StringRef path) {
  auto buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return inputError("cannot read '" + path + "': " + buffer.getError().message());
  return sha256Hex((*buffer)->getBuffer());
}

bool isSha256Hex(llvm::StringRef text) {
  return text.size() == 64 &&
         llvm::all_of(text, [](char c) { return llvm::isDigit(c) || (c >= 'a' && c <= 'f'); });
}

} // namespace tlc
