// The remote cache's pieces without a server: URL forms (ccache's), password masking, packing an
// entry into one blob and unpacking it, checked, the dependencies an entry may list, and a local
// entry that can never be used giving way to the build's.
#include "BuildSupport.h"
#include "TestSupport.h"

#include "cache/Cache.h"
#include "cache/EntryPack.h"
#include "cache/RemoteStorage.h"
#include "support/Files.h"
#include "support/Hashing.h"

#include <catch2/catch.hpp>

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"

#include <sys/stat.h>
#include <unistd.h>

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

TEST_CASE("an entry may list only paths tlc writes, naming regular files or nothing", "[remote]") {
  std::string dir = scratchDir("entry-dependencies");
  REQUIRE(!writeFile(dir + "/k.cu", "__global__ void k() {}\n"));
  std::string fifo = dir + "/fifo";
  ::unlink(fifo.c_str()); // scratchDir() cannot remove one (LLVM's remove() refuses FIFOs)
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  llvm::scope_exit removeFifo([&] { ::unlink(fifo.c_str()); });
  PathRelocation asGiven;
  asGiven.setToolkit(dir + "/cuda");
  llvm::sys::fs::create_directories(dir + "/cuda/include");
  REQUIRE(!writeFile(dir + "/cuda/include/cuda.h", "#pragma once\n"));
  CHECK(unhashableDependency(dir + "/k.cu", asGiven).empty());
  CHECK(unhashableDependency(dir + "/gone.h", asGiven).empty()); // missing: a miss, nothing read
  CHECK(unhashableDependency("<cuda>/include/cuda.h", asGiven).empty());

  // What a forged entry would make tlc read without end, or at all.
  CHECK(unhashableDependency("/dev/zero", asGiven) == "not a regular file");
  CHECK(unhashableDependency(fifo, asGiven) == "not a regular file");
  CHECK(unhashableDependency(dir, asGiven) == "not a regular file");
  CHECK_THAT(unhashableDependency("/proc/self/status", asGiven),
             Contains("a file of the kernel's"));
  CHECK_THAT(unhashableDependency("/sys/kernel/uevent_seqnum", asGiven),
             Contains("a file of the kernel's"));
  // Forms tlc never writes: dots in an absolute or toolkit path, the toolkit itself, a relative
  // path without a base folder, another token, a line break (entry names are lines).
  CHECK(unhashableDependency(dir + "/../x.h", asGiven) == "not a path tlc writes");
  CHECK(unhashableDependency("<cuda>/../../etc/passwd", asGiven) == "not a path tlc writes");
  CHECK(unhashableDependency("<cuda>", asGiven) == "not a path tlc writes");
  CHECK(unhashableDependency("src/k.cu", asGiven) == "not a path tlc writes");
  CHECK(unhashableDependency("<home>/k.cu", asGiven) == "not a path tlc writes");
  CHECK(unhashableDependency(dir + "/k.cu\n" + dir + "/k.cu", asGiven) == "not a path tlc writes");
  CHECK(unhashableDependency("", asGiven) == "not a path tlc writes");

  // Under a base folder, relative paths are what tlc writes.
  auto based = PathRelocation::create(dir);
  REQUIRE_EXPECTED(based);
  CHECK(unhashableDependency("../x/k.cu", *based).empty());
}

TEST_CASE("a local entry that can never be used is replaced when the build is stored", "[remote]") {
  std::string dir = scratchDir("entry-replaced");
  llvm::sys::fs::create_directories(dir + "/out");
  REQUIRE(!writeFile(dir + "/out/a.bin", "a"));
  REQUIRE(!writeFile(dir + "/k.cu", "__global__ void k() {}\n"));
  auto cache = BuildCache::open(dir + "/cache");
  REQUIRE_EXPECTED(cache);
  PathRelocation asGiven;
  std::vector<CachedFile> files = {{"a.bin", sha256Hex("a")}};
  std::vector<std::string> outputs = {"a.bin"}, inputs = {dir + "/k.cu"};
  auto store = [&] {
    DependencyHashes hashes(asGiven);
    REQUIRE(!cache->store("key", dir + "/out", files, inputs, hashes));
  };
  auto found = [&] {
    DependencyHashes hashes(asGiven);
    return cache->find("key", outputs, inputs, hashes).has_value();
  };
  store();
  REQUIRE(found());

  // The entry of that name gains a file (as a forged remote entry stored before tlc checked
  // did): every lookup misses it, and the build's store used to lose to it for good.
  std::error_code ec;
  std::string entryDir;
  for (llvm::sys::fs::directory_iterator it(dir + "/cache/v1/key", ec), end; it != end && !ec;
       it.increment(ec))
    entryDir = it->path();
  REQUIRE(!entryDir.empty());
  REQUIRE(!writeFile(entryDir + "/evil.so", "x", 0600));
  std::string json = readText(entryDir + "/entry.json");
  size_t listed = json.find("\"files\"");
  REQUIRE(listed != std::string::npos);
  size_t open = json.find('[', listed);
  json.insert(open + 1, "{\"name\":\"evil.so\",\"sha256\":\"" + sha256Hex("x") + "\"},");
  REQUIRE(!writeFile(entryDir + "/entry.json", json, 0600));
  CHECK(!found());
  store();
  CHECK(found());
  CHECK(!llvm::sys::fs::exists(entryDir + "/evil.so"));
}
