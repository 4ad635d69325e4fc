// Remote storage URLs: ccache's forms and attributes. Parsed here rather than by libcurl's URL
// parser: libcurl is loaded only for HTTP storage (HttpStorage.cpp), never for every build.
#include "cache/RemoteStorage.h"

#include "support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include "llvm/ADT/STLExtras.h"

#include <optional>

namespace tlc {

std::string maskRemotePassword(llvm::StringRef url) {
  size_t schemeEnd = url.find("://");
  if (schemeEnd == llvm::StringRef::npos)
    return url.str();
  llvm::StringRef scheme = url.take_front(schemeEnd);
  size_t authorityStart = schemeEnd + 3;
  size_t authorityEnd = url.find_first_of("/?#|", authorityStart);
  llvm::StringRef authority = url.slice(authorityStart, authorityEnd);
  size_t at = authority.rfind('@');
  if (at == llvm::StringRef::npos)
    return url.str();
  llvm::StringRef userInfo = authority.take_front(at);
  size_t colon = userInfo.find(':');
  std::string masked;
  if (colon != llvm::StringRef::npos)
    masked = userInfo.take_front(colon + 1).str() + "********";
  else if (scheme == "http" || scheme == "https")
    masked = userInfo.str(); // a user name alone
  else
    masked = "********"; // redis://PASSWORD@HOST: the lone part is the password
  return (url.take_front(authorityStart) + masked + url.drop_front(authorityStart + at)).str();
}

namespace {

llvm::Error urlError(llvm::StringRef display, const llvm::Twine& reason) {
  return usageError("remote storage URL '" + display + "': " + reason);
}

// %XX escapes decoded (a password may hold '@', ':' or '/' only escaped); nullopt when one is
// malformed.
std::optional<std::string> percentDecoded(llvm::StringRef text) {
  std::string decoded;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      decoded += text[i];
      continue;
    }
    if (i + 2 >= text.size() || !llvm::isHexDigit(text[i + 1]) || !llvm::isHexDigit(text[i + 2]))
      return std::nullopt;
    decoded +=
        static_cast<char>(llvm::hexDigitValue(text[i + 1]) * 16 + llvm::hexDigitValue(text[i + 2]));
    i += 2;
  }
  return decoded;
}

llvm::Error applyAttribute(RemoteUrl& url, llvm::StringRef attribute) {
  auto [name, value] = attribute.split('=');
  name = name.trim();
  value = value.trim();
  if (name == "read-only" && value.empty()) {
    url.readOnly = true;
    return llvm::Error::success();
  }
  if (name == "connect-timeout" || name == "operation-timeout") {
    unsigned milliseconds = 0;
    if (value.getAsInteger(10, milliseconds) || milliseconds == 0)
      return urlError(url.display,
                      "'" + name + "' takes a number of milliseconds, not '" + value + "'");
    (name == "connect-timeout" ? url.connectTimeout : url.operationTimeout) =
        std::chrono::milliseconds(milliseconds);
    return llvm::Error::success();
  }
  return urlError(url.display, "unknown attribute '" + attribute +
                                   "' (tlc knows connect-timeout=MS, operation-timeout=MS and "
                                   "read-only)");
}

// USER:PASSWORD, each percent-decoded.
llvm::Error parseUserInfo(RemoteUrl& url, llvm::StringRef userInfo) {
  auto [user, password] = userInfo.split(':');
  auto decodedUser = percentDecoded(user), decodedPassword = percentDecoded(password);
  if (!decodedUser || !decodedPassword)
    return urlError(url.display, "a malformed %-escape in its credentials");
  url.user = *decodedUser;
  url.password = *decodedPassword;
  return llvm::Error::success();
}

// HOST[:PORT] or [IPV6][:PORT].
llvm::Error parseHostPort(RemoteUrl& url, llvm::StringRef hostPort) {
  llvm::StringRef port;
  if (hostPort.starts_with("[")) {
    size_t close = hostPort.find(']');
    if (close == llvm::StringRef::npos)
      return urlError(url.display, "an IPv6 address without its ']'");
    url.host = hostPort.slice(1, close).str();
    llvm::StringRef rest = hostPort.drop_front(close + 1);
    if (!rest.empty() && !rest.consume_front(":"))
      return urlError(url.display, "'" + rest + "' after the host");
    port = rest;
  } else {
    auto [host, rest] = hostPort.split(':');
    url.host = host.str();
    port = rest;
  }
  if (url.host.empty())
    return urlError(url.display, "no host");
  bool validHost = llvm::all_of(url.host, [](char c) {
    return llvm::isAlnum(c) || c == '-' || c == '.' || c == '_' || c == ':' || c == '%';
  });
  if (!validHost)
    return urlError(url.display, "'" + url.host + "' is not a host name or address");
  if (hostPort.ends_with(":") ||
      (!port.empty() && (port.getAsInteger(10, url.port) || url.port <= 0 || url.port > 65535)))
    return urlError(url.display, "'" + port + "' is not a port");
  return llvm::Error::success();
}

} // namespace

llvm::Expected<RemoteUrl> parseRemoteUrl(llvm::StringRef text) {
  RemoteUrl url;
  url.display = maskRemotePassword(text);
  llvm::SmallVector<llvm::StringRef, 4> parts;
  text.split(parts, '|');
  llvm::StringRef address = parts.front().trim();
  for (llvm::StringRef attribute : llvm::ArrayRef(parts).drop_front())
    if (llvm::Error error = applyAttribute(url, attribute))
      return error;

  // scheme://[userinfo@]host[:port][/path]: no spaces or control characters anywhere.
  size_t schemeEnd = address.find("://");
  bool printable = llvm::all_of(address, [](char c) { return c > 0x20 && c < 0x7f; });
  if (schemeEnd == llvm::StringRef::npos || schemeEnd == 0 || !printable)
    return urlError(url.display, "not a URL (expected redis://[[USER:]PASSWORD@]HOST[:PORT][/DB] "
                                 "or http://HOST[:PORT]/PATH)");
  std::string scheme = address.take_front(schemeEnd).lower();
  llvm::StringRef rest = address.drop_front(schemeEnd + 3);
  size_t authorityEnd = std::min(rest.find_first_of("/?#"), rest.size());
  llvm::StringRef authority = rest.take_front(authorityEnd), path = rest.drop_front(authorityEnd);
  if (path.contains('?') || path.contains('#'))
    return urlError(url.display, "a remote storage URL takes no query or fragment");
  size_t at = authority.rfind('@');
  if (at != llvm::StringRef::npos)
    if (llvm::Error error = parseUserInfo(url, authority.take_front(at)))
      return error;
  if (llvm::Error error = parseHostPort(
          url, at == llvm::StringRef::npos ? authority : authority.drop_front(at + 1)))
    return error;

  if (scheme == "redis") {
    url.scheme = RemoteUrl::Scheme::Redis;
    if (url.password.empty() && !url.user.empty())
      std::swap(url.user, url.password); // redis://PASSWORD@HOST
    if (url.port == 0)
      url.port = 6379;
    llvm::StringRef database = path.drop_front(path.empty() ? 0 : 1);
    if (!database.empty() && database.getAsInteger(10, url.database))
      return urlError(url.display, "'" + path + "' is not a database number");
  } else if (scheme == "http" || scheme == "https") {
    url.scheme = RemoteUrl::Scheme::Http;
    url.baseUrl = address.rtrim('/').str(); // libcurl sends USER:PASSWORD as basic authentication
  } else {
    return urlError(url.display,
                    "unknown scheme '" + scheme + "' (tlc speaks redis:// and http://)");
  }
  return url;
}

llvm::Expected<std::unique_ptr<RemoteStorage>> RemoteStorage::create(llvm::StringRef text) {
  auto url = parseRemoteUrl(text);
  if (!url)
    return url.takeError();
  if (url->scheme == RemoteUrl::Scheme::Redis)
    return createRedisStorage(std::move(*url));
  return createHttpStorage(std::move(*url));
}

} // namespace tlc
