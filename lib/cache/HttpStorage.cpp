// The HTTP client of the remote cache: libcurl's easy API, GET and PUT of BASE/KEY, as ccache's
// HTTP storage and common HTTP caches (nginx with WebDAV PUT, bazel-remote...) speak.
#include "cache/RemoteStorage.h"

#include "support/Error.h"

#include <curl/curl.h>

#include <cstring>
#include <mutex>

namespace tlc {
namespace {

size_t appendBody(char* data, size_t size, size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

struct Upload {
  const std::string* body;
  size_t offset = 0;
};

size_t readBody(char* buffer, size_t size, size_t count, void* source) {
  Upload& upload = *static_cast<Upload*>(source);
  size_t length = std::min(size * count, upload.body->size() - upload.offset);
  std::memcpy(buffer, upload.body->data() + upload.offset, length);
  upload.offset += length;
  return length;
}

class HttpStorage : public RemoteStorage {
public:
  explicit HttpStorage(RemoteUrl url) : RemoteStorage(std::move(url)) {
    static std::once_flag initialized;
    std::call_once(initialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    Handle = curl_easy_init();
    Headers = curl_slist_append(nullptr, "Content-Type: application/octet-stream");
    // libcurl waits up to a second for "100 Continue" before a large PUT; no server needs it.
    Headers = curl_slist_append(Headers, "Expect:");
  }
  ~HttpStorage() override {
    curl_slist_free_all(Headers);
    if (Handle)
      curl_easy_cleanup(Handle);
  }

  llvm::Expected<std::optional<std::string>> get(const std::string& key) override {
    std::string body;
    prepare(key);
    curl_easy_setopt(Handle, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(Handle, CURLOPT_WRITEFUNCTION, appendBody);
    curl_easy_setopt(Handle, CURLOPT_WRITEDATA, &body);
    auto status = perform("GET");
    if (!status)
      return status.takeError();
    if (*status == 404)
      return std::nullopt;
    if (*status != 200)
      return inputError("GET answered HTTP " + std::to_string(*status));
    return body;
  }

  llvm::Error put(const std::string& key, const std::string& value) override {
    Upload upload{&value};
    std::string ignored;
    prepare(key);
    curl_easy_setopt(Handle, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(Handle, CURLOPT_READFUNCTION, readBody);
    curl_easy_setopt(Handle, CURLOPT_READDATA, &upload);
    curl_easy_setopt(Handle, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(value.size()));
    curl_easy_setopt(Handle, CURLOPT_WRITEFUNCTION, appendBody);
    curl_easy_setopt(Handle, CURLOPT_WRITEDATA, &ignored);
    auto status = perform("PUT");
    if (!status)
      return status.takeError();
    if (*status < 200 || *status > 299)
      return inputError("PUT answered HTTP " + std::to_string(*status));
    return llvm::Error::success();
  }

private:
  // Options every request shares; reset first, so nothing of the last request carries over
  // (the connection does: libcurl keeps it alive between requests).
  void prepare(const std::string& key) {
    curl_easy_reset(Handle);
    Address = Url.baseUrl + "/" + key;
    curl_easy_setopt(Handle, CURLOPT_URL, Address.c_str());
    curl_easy_setopt(Handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(Handle, CURLOPT_NOSIGNAL, 1L); // timeouts without SIGALRM
    curl_easy_setopt(Handle, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(Url.connectTimeout.count()));
    curl_easy_setopt(Handle, CURLOPT_TIMEOUT_MS,
                     static_cast<long>((Url.connectTimeout + Url.operationTimeout).count()));
    curl_easy_setopt(Handle, CURLOPT_HTTPHEADER, Headers);
    curl_easy_setopt(Handle, CURLOPT_ERRORBUFFER, ErrorText);
    ErrorText[0] = '\0';
  }

  llvm::Expected<long> perform(const char* method) {
    if (!Handle)
      return inputError("cannot start libcurl");
    CURLcode code = curl_easy_perform(Handle);
    if (code != CURLE_OK)
      return inputError(std::string(method) + " failed: " +
                        (ErrorText[0] ? ErrorText : curl_easy_strerror(code)));
    long status = 0;
    curl_easy_getinfo(Handle, CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

  CURL* Handle = nullptr;
  curl_slist* Headers = nullptr;
  std::string Address;
  char ErrorText[CURL_ERROR_SIZE];
};

} // namespace

std::unique_ptr<RemoteStorage> createHttpStorage(RemoteUrl url) {
  return std::make_unique<HttpStorage>(std::move(url));
}

} // namespace tlc
