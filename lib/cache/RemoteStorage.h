// Remote storage for the build cache: a key-value store named by a URL in ccache's
// remote_storage forms, so one Redis or HTTP server can serve a team's ccache and tlc alike.
//
//   redis://[[USER:]PASSWORD@]HOST[:PORT][/DB]     (hiredis; port 6379, database 0)
//   http://[USER:PASSWORD@]HOST[:PORT][/PATH]      (libcurl; GET and PUT of URL/KEY, 404 = miss)
//
// As in ccache, attributes may follow the URL, each after a `|`: connect-timeout=MS (default
// 1000), operation-timeout=MS (default 5000) and read-only (never put). Every call (a get or a
// put, all its requests and replies) is bounded by those timeouts in all, not per read: a
// server that is down, hangs or sends a byte at a time costs at most their sum. A reply larger
// than tlc reads is refused from the size it announces, before its bytes come, and while they
// come, so a server that lies about it takes no more memory than that.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tlc {

// The largest value tlc reads from a remote: a larger one (a server's mistake, or one that
// claims a size it would never send) is refused before it takes that much memory.
constexpr uint64_t MaxRemoteValue = uint64_t(1) << 31;

struct RemoteUrl {
  enum class Scheme { Redis, Http };
  Scheme scheme = Scheme::Redis;
  std::string host;
  int port = 0;     // 0: the scheme's default
  std::string user; // redis: the ACL user name (Redis 6); http: basic authentication
  std::string password;
  int database = 0;    // redis only
  std::string baseUrl; // http only: the URL keys are appended to, credentials included
  std::string display; // the URL as given, password masked: for every message
  std::chrono::milliseconds connectTimeout{1000};
  std::chrono::milliseconds operationTimeout{5000};
  bool readOnly = false;
  uint64_t valueLimit = MaxRemoteValue; // tests lower it
};

// `url` with any password replaced by asterisks, for messages. Works on malformed URLs too.
std::string maskRemotePassword(llvm::StringRef url);

// Parses a remote storage URL; a UsageError naming the (masked) URL when it is malformed or its
// scheme is not one tlc speaks.
llvm::Expected<RemoteUrl> parseRemoteUrl(llvm::StringRef url);

// One connection to a remote store. Calls fail with an llvm::Error whose message is the reason
// alone (no URL): the caller says which storage it was.

class RemoteStorage {
public:
  virtual ~RemoteStorage() = default;

  // The value stored under `key`; nullopt when there is none.
  virtual llvm::Expected<std::optional<std::string>> get(const std::string& key) = 0;
  virtual llvm::Error put(const std::string& key, const std::string& value) = 0;

  const RemoteUrl& url() const { return Url; }

  // The client for `url` (parsed as above); connects lazily, on the first call.
  static llvm::Expected<std::unique_ptr<RemoteStorage>> create(llvm::StringRef url);

protected:
  explicit RemoteStorage(RemoteUrl url) : Url(std::move(url)) {}
  RemoteUrl Url;
};

// The clients, one per scheme (RedisStorage.cpp, HttpStorage.cpp).
std::unique_ptr<RemoteStorage> createRedisStorage(RemoteUrl url);
std::unique_ptr<RemoteStorage> createHttpStorage(RemoteUrl url);

} // namespace tlc
