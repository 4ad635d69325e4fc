// Remote storage URLs: ccache's forms and attributes, parsed by libcurl's URL parser.
#include "cache/RemoteStorage.h"

#include "support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <curl/curl.h>

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

// One URL parsed by libcurl (it knows no redis scheme, but parses its URLs all the same).
class ParsedUrl {
public:
  ParsedUrl() : Handle(curl_url()) {}
  ~ParsedUrl() { curl_url_cleanup(Handle); }
  ParsedUrl(const ParsedUrl&) = delete;
  ParsedUrl& operator=(const ParsedUrl&) = delete;

  bool parse(const std::string& url) {
    return Handle && curl_url_set(Handle, CURLUPART_URL, url.c_str(),
                                  CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK;
  }
  // A part, percent-decoded where that applies; nullopt when the URL has none.
  std::optional<std::string> part(CURLUPart which, bool decode = false) const {
    char* value = nullptr;
    if (curl_url_get(Handle, which, &value, decode ? CURLU_URLDECODE : 0) != CURLUE_OK || !value)
      return std::nullopt;
    std::string text = value;
    curl_free(value);
    return text;
  }

private:
  CURLU* Handle;
};

llvm::Error urlError(llvm::StringRef display, const llvm::Twine& reason) {
  return usageError("remote storage URL '" + display + "': " + reason);
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
      return urlError(url.display, "'" + name + "' takes a number of milliseconds, not '" +
                                       value + "'");
    (name == "connect-timeout" ? url.connectTimeout : url.operationTimeout) =
        std::chrono::milliseconds(milliseconds);
    return llvm::Error::success();
  }
  return urlError(url.display, "unknown attribute '" + attribute +
                                   "' (tlc knows connect-timeout=MS, operation-timeout=MS and "
                                   "read-only)");
}

llvm::Error parseRedis(RemoteUrl& url, const ParsedUrl& parsed) {
  url.scheme = RemoteUrl::Scheme::Redis;
  url.user = parsed.part(CURLUPART_USER, true).value_or("");
  url.password = parsed.part(CURLUPART_PASSWORD, true).value_or("");
  if (url.password.empty() && !url.user.empty())
    std::swap(url.user, url.password); // redis://PASSWORD@HOST
  url.port = 6379;
  if (auto port = parsed.part(CURLUPART_PORT))
    url.port = std::stoi(*port); // libcurl accepts only digits here
  std::string pathText = parsed.part(CURLUPART_PATH).value_or("/");
  llvm::StringRef path = llvm::StringRef(pathText).drop_front();
  if (!path.empty() && path.getAsInteger(10, url.database))
    return urlError(url.display, "'/" + path + "' is not a database number");
  if (parsed.part(CURLUPART_QUERY))
    return urlError(url.display, "a redis URL takes no query");
  return llvm::Error::success();
}

llvm::Error parseHttp(RemoteUrl& url, const ParsedUrl& parsed, llvm::StringRef address) {
  url.scheme = RemoteUrl::Scheme::Http;
  if (parsed.part(CURLUPART_QUERY) || parsed.part(CURLUPART_FRAGMENT))
    return urlError(url.display, "an http URL takes no query or fragment (keys are appended to "
                                 "its path)");
  url.baseUrl = address.rtrim('/').str();
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

  ParsedUrl parsed;
  if (!parsed.parse(address.str()))
    return urlError(url.display, "not a URL (expected redis://[[USER:]PASSWORD@]HOST[:PORT][/DB] "
                                 "or http://HOST[:PORT]/PATH)");
  std::string scheme = llvm::StringRef(parsed.part(CURLUPART_SCHEME).value_or("")).lower();
  url.host = parsed.part(CURLUPART_HOST).value_or("");
  if (url.host.size() > 2 && url.host.front() == '[') // an IPv6 address
    url.host = url.host.substr(1, url.host.size() - 2);
  if (url.host.empty())
    return urlError(url.display, "no host");
  if (scheme == "redis") {
    if (llvm::Error error = parseRedis(url, parsed))
      return error;
  } else if (scheme == "http" || scheme == "https") {
    if (llvm::Error error = parseHttp(url, parsed, address))
      return error;
  } else {
    return urlError(url.display, "unknown scheme '" + scheme + "' (tlc speaks redis:// and http://)");
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
