// The remote cache's pieces without a server: URL forms (ccache's), password masking, and
// packing an entry into one blob and unpacking it, checked.
#include "BuildSupport.h"
#include "TestSupport.h"

#include "cache/EntryPack.h"
#include "cache/RemoteStorage.h"
#include "support/Files.h"
#include "support/Hashing.h"

#include <catch2/catch.hpp>

#include "llvm/Support/FileSystem.h"

using namespace tlc;
using namespace tlc::test;
using Catch::Matchers::Contains;

namespace {

RemoteUrl parsed(const std::string& text) {
  auto url = parseRemoteUrl(text);
  REQUIRE_EXPECTED(url);
  return *url;
}

ErrorSummary refusal(const std::string& text) {
  auto url = parseRemoteUrl(text);
  REQUIRE(!url);
  return summarize(url.takeError());
}

} // namespace

TEST_CASE("remote URLs: redis in ccache's forms", "[remote]") {
  RemoteUrl plain = parsed("redis://cache.example");
  CHECK(plain.scheme == RemoteUrl::Scheme::Redis);
  CHECK(plain.host == "cache.example");
  CHECK(plain.port == 6379);
  CHECK(plain.database == 0);
  CHECK(plain.password.empty());
  CHECK(plain.connectTimeout.count() == 1000);
  CHECK(plain.operationTimeout.count() == 5000);
  CHECK(!plain.readOnly);

  RemoteUrl full = parsed("redis://alice:s%40cret@10.0.0.7:7000/3");
  CHECK(full.host == "10.0.0.7");
  CHECK(full.port == 7000);
  CHECK(full.user == "alice");
  CHECK(full.password == "s@cret");
  CHECK(full.database == 3);
  CHECK(full.display == "redis://alice:********@10.0.0.7:7000/3");

  RemoteUrl passwordOnly = parsed("redis://hunter2@localhost");
  CHECK(passwordOnly.user.empty());
  CHECK(passwordOnly.password == "hunter2");
  CHECK(passwordOnly.display == "redis://********@localhost");
  CHECK(parsed("redis://:hunter2@localhost/").password == "hunter2");

  RemoteUrl attributes =
      parsed("redis://localhost|connect-timeout=250|operation-timeout=900|read-only");
  CHECK(attributes.connectTimeout.count() == 250);
  CHECK(attributes.operationTimeout.count() == 900);
  CHECK(attributes.readOnly);
  CHECK(parsed("redis://[::1]:6380").host == "::1");
}

TEST_CASE("remote URLs: http keeps its path for the keys", "[remote]") {
  RemoteUrl url = parsed("http://cache.example:8080/tlc/");
  CHECK(url.scheme == RemoteUrl::Scheme::Http);
  CHECK(url.host == "cache.example");
  CHECK(url.baseUrl == "http://cache.example:8080/tlc");
  RemoteUrl credentials = parsed("https://bob:pw@cache.example/c");
  CHECK(credentials.baseUrl == "https://bob:pw@cache.example/c"); // libcurl authenticates
  CHECK(credentials.display == "https://bob:********@cache.example/c");
  CHECK(parsed("http://bob@cache.example").display == "http://bob@cache.example");
}

TEST_CASE("remote URLs: malformed ones are usage errors naming the URL, password masked",
          "[remote]") {
  ErrorSummary scheme = refusal("ftp://user:topsecret@host/x");
  CHECK(scheme.code == ExitCode::UsageError);
  CHECK_THAT(scheme.message, Contains("'ftp://user:********@host/x'"));
  CHECK_THAT(scheme.message, Contains("unknown scheme 'ftp'"));
  CHECK_THAT(scheme.message, !Contains("topsecret"));

  ErrorSummary garbage = refusal("not a url :topsecret@");
  CHECK(garbage.code == ExitCode::UsageError);
  CHECK_THAT(garbage.message, Contains("not a URL"));

  CHECK_THAT(refusal("redis://host/zero").message, Contains("'/zero' is not a database number"));
  CHECK_THAT(refusal("redis://host|connect-timeout=soon").message,
             Contains("'connect-timeout' takes a number of milliseconds"));
  CHECK_THAT(refusal("redis://pw@host|shards=a,b").message,
             Contains("unknown attribute 'shards=a,b'"));
  CHECK_THAT(refusal("redis://pw@host|shards=a,b").message, Contains("redis://********@host"));
  CHECK_THAT(refusal("http://host/c?x=1").message, Contains("takes no query"));
  CHECK_THAT(refusal("redis://").message, Contains("'redis://': no host"));
  CHECK_THAT(refusal("redis://host:63x9").message, Contains("'63x9' is not a port"));
  CHECK_THAT(refusal("redis://host:99999").message, Contains("is not a port"));
  CHECK_THAT(refusal("redis://a%zzb@host").message, Contains("malformed %-escape"));
  CHECK_THAT(refusal("http://bad host/").message, Contains("not a URL"));
  CHECK_THAT(refusal("http://ho$t/").message, Contains("'ho$t' is not a host name"));
}

TEST_CASE("a packed entry unpacks to the same files, each checked", "[remote]") {
  std::string dir = scratchDir("entry-pack");
  llvm::sys::fs::create_directories(dir + "/out/pkg");
  llvm::sys::fs::create_directories(dir + "/in");
  std::string library("\x7f"
                      "ELF\0\0binary\xff",
                      13);
  REQUIRE(!writeFile(dir + "/out/libm.so", library));
  REQUIRE(!writeFile(dir + "/out/pkg/__init__.py", "pass\n"));
  REQUIRE(!writeFile(dir + "/in/k.cu", "__global__ void k() {}\n"));
  EntryDescription entry;
  entry.files = {{"libm.so", sha256Hex(library)}, {"pkg/__init__.py", sha256Hex("pass\n")}};
  PathRelocation asGiven;
  DependencyHashes hashes(asGiven);
  entry.dependencies = hashDependencies({dir + "/in/k.cu"}, hashes);
  auto blob = packEntry(entry, dir + "/out");
  REQUIRE_EXPECTED(blob);

  auto unpacked = unpackEntry(*blob);
  REQUIRE_EXPECTED(unpacked);
  const EntryDescription& back = unpacked->description;
  REQUIRE(back.files.size() == 2);
  REQUIRE(unpacked->contents.size() == 2);
  CHECK(back.files[0].name == "libm.so");
  CHECK(unpacked->contents[0] == library);
  CHECK(back.files[1].name == "pkg/__init__.py");
  CHECK(unpacked->contents[1] == "pass\n");
  CHECK(back.dependencies == entry.dependencies);
  CHECK(entryName(back.dependencies) == entryName(entry.dependencies));

  // A file changed after the build hashed it is not packed.
  REQUIRE(!writeFile(dir + "/out/libm.so", "other"));
  auto changed = packEntry(entry, dir + "/out");
  REQUIRE(!changed);
  CHECK_THAT(summarize(changed.takeError()).message, Contains("changed since the build hashed it"));
}

TEST_CASE("a damaged entry is refused, saying why", "[remote]") {
  std::string dir = scratchDir("entry-damaged");
  llvm::sys::fs::create_directories(dir + "/out");
  REQUIRE(!writeFile(dir + "/out/a.bin", std::string(64, 'a')));
  EntryDescription entry;
  entry.files = {{"a.bin", sha256Hex(std::string(64, 'a'))}};
  auto blob = packEntry(entry, dir + "/out");
  REQUIRE_EXPECTED(blob);

  auto refused = [&](const std::string& bytes) {
    auto result = unpackEntry(bytes);
    REQUIRE(!result);
    return summarize(result.takeError()).message;
  };
  std::string flipped = *blob;
  flipped[flipped.size() - 3] ^= 1;
  CHECK_THAT(refused(flipped), Contains("'a.bin' does not match its SHA-256"));
  CHECK_THAT(refused(blob->substr(0, blob->size() - 1)), Contains("'a.bin' is cut short"));
  CHECK_THAT(refused(*blob + "x"), Contains("more bytes than its files"));
  CHECK_THAT(refused("hello"), Contains("not a tlc entry"));
  CHECK_THAT(refused(blob->substr(0, 20)), Contains("cut short"));

  // A name reaching out of the entry is refused even when its bytes match.
  std::string escaping = *blob;
  size_t at = escaping.find("\"a.bin\"");
  REQUIRE(at != std::string::npos);
  std::string header = escaping.substr(0, at) + "\"../../a.bin\"" + escaping.substr(at + 7);
  // The header grew by six bytes: fix its length so only the name is wrong.
  size_t lengthStart = header.find('\n') + 1, lengthEnd = header.find('\n', lengthStart);
  size_t length = std::stoul(header.substr(lengthStart, lengthEnd - lengthStart));
  header.replace(lengthStart, lengthEnd - lengthStart, std::to_string(length + 6));
  CHECK_THAT(refused(header), Contains("not a file name inside an entry"));
}
