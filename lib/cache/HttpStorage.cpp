// The HTTP client of the remote cache: libcurl's easy API, GET and PUT of BASE/KEY, as ccache's
// HTTP storage and common HTTP caches (nginx with WebDAV PUT, bazel-remote...) speak.
//
// libcurl is loaded at the first request, not linked: with the dozens of libraries it needs
// (TLS, HTTP/2, LDAP, SSH...) it would add about 10 ms to every tlc run, remote or not, where a
// cache hit takes a few tens. Its header still types every entry point.
#include "cache/RemoteStorage.h"

#include "support/Error.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <new>

namespace tlc {
namespace {

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

// The entry points tlc calls, from libcurl.so.4 (its soname since 2006).
struct Curl {
  decltype(&::curl_global_init) globalInit;
  decltype(&::curl_easy_init) easyInit;
  decltype(&::curl_easy_setopt) easySetopt;
  decltype(&::curl_easy_perform) easyPerform;
  decltype(&::curl_easy_getinfo) easyGetinfo;
  decltype(&::curl_easy_reset) easyReset;
  decltype(&::curl_easy_cleanup) easyCleanup;
  decltype(&::curl_easy_strerror) easyStrerror;
  decltype(&::curl_slist_append) slistAppend;
  decltype(&::curl_slist_free_all) slistFreeAll;

  // Loaded and initialized once per process; the library stays loaded.
  static llvm::Expected<const Curl*> load() {
    static Curl curl;
    static std::string failure;
    static std::once_flag loaded;
    std::call_once(loaded, [] {
      void* library = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
      if (!library) {
        failure = std::string("cannot load libcurl (Debian: libcurl4): ") + ::dlerror();
        return;
      }
      bool complete = true;
      auto resolve = [&](auto& entry, const char* name) {
        entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(::dlsym(library, name));
        complete = complete && entry;
      };
      resolve(curl.globalInit, "curl_global_init");
      resolve(curl.easyInit, "curl_easy_init");
      resolve(curl.easySetopt, "curl_easy_setopt");
      resolve(curl.easyPerform, "curl_easy_perform");
      resolve(curl.easyGetinfo, "curl_easy_getinfo");
      resolve(curl.easyReset, "curl_easy_reset");
      resolve(curl.easyCleanup, "curl_easy_cleanup");
      resolve(curl.easyStrerror, "curl_easy_strerror");
      resolve(curl.slistAppend, "curl_slist_append");
      resolve(curl.slistFreeAll, "curl_slist_free_all");
      if (!complete)
        failure = "libcurl.so.4 lacks an entry point tlc needs";
      else if (curl.globalInit(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        failure = "libcurl failed to initialize";
    });
    if (!failure.empty())
      return inputError(failure);
    return &curl;
  }
};

// A response body, read up to `limit` bytes: libcurl stops the transfer at the first byte
// beyond (the callback takes less than it was given), as it does when the memory for the body
// runs out (an exception must not cross libcurl's C frames). A body whose length the server
// announced has its memory taken once.
struct Download {
  Download(const Curl* curl, CURL* handle, uint64_t limit)
      : curl(curl), handle(handle), limit(limit) {}
  const Curl* curl;
  CURL* handle;
  uint64_t limit;
  std::string body;
  bool tooLarge = false, outOfMemory = false;
};

size_t appendBody(char* data, size_t size, size_t count, void* target) {
  auto* download = static_cast<Download*>(target);
  if (download->body.size() + size * count > download->limit) {
    download->tooLarge = true;
    return 0;
  }
  try {
    curl_off_t announced = -1; // Content-Length, when the server sent one
    if (download->body.empty() &&
        download->curl->easyGetinfo(download->handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
                                    &announced) == CURLE_OK &&
        announced > 0)
      download->body.reserve(std::min<uint64_t>(announced, download->limit));
    download->body.append(data, size * count);
  } catch (const std::bad_alloc&) {
    download->outOfMemory = true;
    return 0;
  }
  return size * count;
}

class HttpStorage : public RemoteStorage {
public:
  explicit HttpStorage(RemoteUrl url) : RemoteStorage(std::move(url)) {}
  ~HttpStorage() override {
    if (!C)
      return;
    C->slistFreeAll(Headers);
    if (Handle)
      C->easyCleanup(Handle);
  }

  llvm::Expected<std::optional<std::string>> get(const std::string& key) override {
    if (llvm::Error error = prepare(key))
      return error;
    Download download(C, Handle, Url.valueLimit);
    C->easySetopt(Handle, CURLOPT_HTTPGET, 1L);
    C->easySetopt(Handle, CURLOPT_WRITEFUNCTION, appendBody);
    C->easySetopt(Handle, CURLOPT_WRITEDATA, &download);
    auto status = perform("GET");
    if (bodyFailed(download))
      return bodyProblem(download, status.takeError(), key);
    if (!status)
      return status.takeError();
    if (*status == 404)
      return std::nullopt;
    if (*status != 200)
      return inputError("GET answered HTTP " + std::to_string(*status));
    return std::move(download.body);
  }

  llvm::Error put(const std::string& key, const std::string& value) override {
    Upload upload{&value};
    if (llvm::Error error = prepare(key))
      return error;
    Download ignored(C, Handle, Url.valueLimit);
    C->easySetopt(Handle, CURLOPT_UPLOAD, 1L);
    C->easySetopt(Handle, CURLOPT_READFUNCTION, readBody);
    C->easySetopt(Handle, CURLOPT_READDATA, &upload);
    C->easySetopt(Handle, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(value.size()));
    C->easySetopt(Handle, CURLOPT_WRITEFUNCTION, appendBody);
    C->easySetopt(Handle, CURLOPT_WRITEDATA, &ignored);
    auto status = perform("PUT");
    if (bodyFailed(ignored))
      return bodyProblem(ignored, status.takeError(), key);
    if (!status)
      return status.takeError();
    if (*status < 200 || *status > 299)
      return inputError("PUT answered HTTP " + std::to_string(*status));
    return llvm::Error::success();
  }

private:
  // Whether the body is why the transfer stopped: larger than tlc reads (announced so, which
  // libcurl refuses before reading it, or found so while reading), or the memory for it ran out.
  bool bodyFailed(const Download& download) const {
    return download.tooLarge || download.outOfMemory || LastCode == CURLE_FILESIZE_EXCEEDED;
  }

  // The body's failure in tlc's words: libcurl's own ("failed writing received data", "Maximum
  // file size exceeded") would not say which.
  static llvm::Error bodyProblem(const Download& download, llvm::Error transfer,
                                 const std::string& key) {
    llvm::consumeError(std::move(transfer));
    if (download.outOfMemory)
      return inputError("not enough memory for the answer for " + key + " (" +
                        std::to_string(download.body.size()) + " bytes read)");
    return inputError("the answer for " + key + " is larger than tlc reads (" +
                      std::to_string(download.limit) + " bytes)");
  }

  // Options every request shares; reset first, so nothing of the last request carries over
  // (the connection does: libcurl keeps it alive between requests).
  llvm::Error prepare(const std::string& key) {
    if (!C) {
      auto curl = Curl::load();
      if (!curl)
        return curl.takeError();
      C = *curl;
      Handle = C->easyInit();
      if (!Handle)
        return inputError("cannot start libcurl");
      Headers = C->slistAppend(nullptr, "Content-Type: application/octet-stream");
      // libcurl waits up to a second for "100 Continue" before a large PUT; no server needs it.
      Headers = C->slistAppend(Headers, "Expect:");
    }
    C->easyReset(Handle);
    Address = Url.baseUrl + "/" + key;
    C->easySetopt(Handle, CURLOPT_URL, Address.c_str());
    C->easySetopt(Handle, CURLOPT_PROTOCOLS_STR, "http,https");
    C->easySetopt(Handle, CURLOPT_NOSIGNAL, 1L); // timeouts without SIGALRM
    C->easySetopt(Handle, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(Url.connectTimeout.count()));
    C->easySetopt(Handle, CURLOPT_TIMEOUT_MS,
                  static_cast<long>((Url.connectTimeout + Url.operationTimeout).count()));
    C->easySetopt(Handle, CURLOPT_HTTPHEADER, Headers);
    // A body announced larger than tlc reads is refused before it comes.
    C->easySetopt(Handle, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(Url.valueLimit));
    C->easySetopt(Handle, CURLOPT_ERRORBUFFER, ErrorText);
    ErrorText[0] = '\0';
    return llvm::Error::success();
  }

  llvm::Expected<long> perform(const char* method) {
    CURLcode code = LastCode = C->easyPerform(Handle);
    if (code != CURLE_OK)
      return inputError(std::string(method) +
                        " failed: " + (ErrorText[0] ? ErrorText : C->easyStrerror(code)));
    long status = 0;
    C->easyGetinfo(Handle, CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

  const Curl* C = nullptr;
  CURL* Handle = nullptr;
  curl_slist* Headers = nullptr;
  std::string Address;
  char ErrorText[CURL_ERROR_SIZE];
  CURLcode LastCode = CURLE_OK;
};

} // namespace

std::unique_ptr<RemoteStorage> createHttpStorage(RemoteUrl url) {
  return std::make_unique<HttpStorage>(std::move(url));
}

} // namespace tlc
