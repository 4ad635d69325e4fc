// SHA-256 of files and strings, by OpenSSL's libcrypto: it uses the CPU's SHA extensions where
// there are some (here 1.9 GB/s against LLVM's portable 0.5), and the cache checks every output
// of every hit against its SHA-256.
#include "support/Hashing.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>
#include <vector>

namespace tlc {

namespace {

struct ContextDeleter {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};
using DigestContext = std::unique_ptr<EVP_MD_CTX, ContextDeleter>;

DigestContext newSha256() {
  DigestContext context(EVP_MD_CTX_new());
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
    return nullptr;
  return context;
}

std::string finish(EVP_MD_CTX& context) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  if (EVP_DigestFinal_ex(&context, digest, &length) != 1 || length != 32)
    return "";
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest, length), /*LowerCase=*/true);
}

} // namespace

std::string sha256Hex(llvm::StringRef data) {
  DigestContext context = newSha256();
  if (!context || EVP_DigestUpdate(context.get(), data.data(), data.size()) != 1)
    return ""; // libcrypto out of memory: matches no digest
  return finish(*context);
}

llvm::Expected<std::string> sha256OfFile(llvm::StringRef path) {
  // Opened as every file tlc reads (support/Files.h): a FIFO or a device in a file's place is
  // refused, never waited on or read without end.
  auto file = ReadableFile::open(path.str());
  if (!file)
    return file.takeError();
  DigestContext context = newSha256();
  std::vector<char> buffer(1 << 20);
  while (context) {
    ssize_t read = ::read(file->fd(), buffer.data(), buffer.size());
    if (read < 0 && errno == EINTR)
      continue;
    if (read < 0)
      return inputError("cannot read '" + path + "': " + std::strerror(errno));
    if (read == 0)
      break;
    if (EVP_DigestUpdate(context.get(), buffer.data(), static_cast<size_t>(read)) != 1)
      context.reset();
  }
  if (!context)
    return inputError("cannot hash '" + path + "': libcrypto failed");
  return finish(*context);
}

bool isSha256Hex(llvm::StringRef text) {
  return text.size() == 64 &&
         llvm::all_of(text, [](char c) { return llvm::isDigit(c) || (c >= 'a' && c <= 'f'); });
}

llvm::Expected<std::string> FileDigests::of(const std::string& path) {
  std::lock_guard<std::mutex> lock(Mutex);
  auto known = Digests.find(path);
  if (known != Digests.end())
    return known->second;
  auto digest = sha256OfFile(path);
  if (digest)
    Digests[path] = *digest;
  return digest;
}

} // namespace tlc
