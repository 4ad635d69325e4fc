// The build cache's remote tier against real servers (label `remote`): two "machines" (two
// local cache folders) sharing one redis-server or one nginx, entries damaged on the server,
// and servers that are down, hang or die in the middle of a build. Every build must succeed;
// a remote that fails costs a miss and exactly one warning. Servers that misbehave on purpose
// (trickling, lying about sizes, endless) end each call by its deadline and within its limit.
#include "BuildSupport.h"
#include "Servers.h"
#include "TestSupport.h"

#include "cache/RemoteStorage.h"
#include "support/Process.h"

#include <catch2/catch.hpp>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <fstream>
#include <thread>

#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tlc;
using namespace tlc::test;
using Catch::Matchers::Contains;

namespace {

const char* const Outputs[] = {"libvadd.so", "vadd.h", "vadd.json"};

// `tlc build -v` of the vadd sample: -v prints every command tlc runs, so a build that ran no
// tool prints no nvcc line.
ToolRun buildVadd(const std::string& cache, const std::string& remote, const std::string& out) {
  return runTlc({"build", sample("vadd/vadd.cu"), "-o", out, "-v"},
                {"TLC_CACHE_DIR=" + cache, "TLC_REMOTE_STORAGE=" + remote});
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

// Built, with exactly one warning, about this remote.
void checkBuiltWithOneWarning(const ToolRun& run, const std::string& remote) {
  INFO(run.err);
  CHECK(run.exitCode == 0);
  CHECK(occurrences(run.err, "warning:") == 1);
  CHECK_THAT(run.err, Contains("tlc: warning: remote storage " + remote + ": "));
  CHECK_THAT(run.err, !Contains("cached vadd"));
}

void checkSameOutputs(const std::string& a, const std::string& b) {
  for (const char* file : Outputs) {
    INFO(file);
    CHECK(readText(a + "/" + file) == readText(b + "/" + file));
  }
  CHECK(runTlc({"verify", b}).exitCode == 0);
}

// Machine 1 builds and stores; machine 2, with an empty local cache, gets the build from the
// remote without running a tool, then finds it in its own cache even with the remote gone.
void checkSharedBetweenMachines(const std::string& dir, const std::string& remote, Server& server) {
  ToolRun first = buildVadd(dir + "/cache1", remote, dir + "/out1");
  INFO(first.err);
  REQUIRE(first.exitCode == 0);
  CHECK_THAT(first.err, Contains("nvcc"));
  CHECK_THAT(first.err, !Contains("warning:"));

  ToolRun second = buildVadd(dir + "/cache2", remote, dir + "/out2");
  INFO(second.err);
  REQUIRE(second.exitCode == 0);
  CHECK_THAT(second.err, Contains("cached vadd (remote "));
  CHECK_THAT(second.err, !Contains("nvcc"));
  CHECK_THAT(second.err, !Contains("warning:"));
  checkSameOutputs(dir + "/out1", dir + "/out2");

  server.kill();
  ToolRun local = buildVadd(dir + "/cache2", remote, dir + "/out3");
  INFO(local.err);
  REQUIRE(local.exitCode == 0);
  CHECK_THAT(local.err, Contains("cached vadd ("));
  CHECK_THAT(local.err, !Contains("(remote"));
  CHECK_THAT(local.err, !Contains("warning:")); // a local hit never asks the remote
  checkSameOutputs(dir + "/out1", dir + "/out3");
}

// The packed entries an HTTP server holds (every file but the indexes).
std::vector<std::string> storedEntries(const std::string& root) {
  std::vector<std::string> entries;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end; it != end && !ec;
       it.increment(ec))
    if (it->type() == llvm::sys::fs::file_type::regular_file &&
        llvm::sys::path::filename(it->path()) != "index")
      entries.push_back(it->path());
  return entries;
}

} // namespace

TEST_CASE("two machines share builds through redis-server", "[remote]") {
  std::string dir = scratchDir("remote-redis");
  RedisServer redis(dir);
  checkSharedBetweenMachines(dir, redis.url(), redis);
}

TEST_CASE("two machines with checkouts in different folders share builds under a base folder",
          "[remote]") {
  std::string dir = scratchDir("remote-relocated");
  RedisServer redis(dir);
  // Machine 1 builds /.../one/src/vadd.cu from one/build, machine 2 the same file in
  // /.../deeper/two from its build/: relative to the working folder both are ../src/vadd.cu.
  auto buildFrom = [&](const std::string& checkout, const std::string& cache) {
    for (const char* folder : {"/src", "/build"})
      REQUIRE(!llvm::sys::fs::create_directories(checkout + folder));
    REQUIRE(!llvm::sys::fs::copy_file(sample("vadd/vadd.cu"), checkout + "/src/vadd.cu"));
    RunOptions options;
    options.separateErrors = true;
    options.workingDir = checkout + "/build";
    options.environment =
        environmentWith({"TLC_CACHE_DIR=" + cache, "TLC_REMOTE_STORAGE=" + redis.url(),
                         "TLC_BASE_DIR=" + dir + "/checkouts"});
    auto result = runCommand(
        {TLC_BINARY, "build", checkout + "/src/vadd.cu", "-o", checkout + "/out", "-v"}, options);
    REQUIRE_EXPECTED(result);
    INFO(result->errors);
    REQUIRE(result->exitCode == 0);
    return result->errors;
  };
  CHECK_THAT(buildFrom(dir + "/checkouts/one", dir + "/cache1"), Contains("nvcc"));
  std::string second = buildFrom(dir + "/checkouts/deeper/two", dir + "/cache2");
  CHECK_THAT(second, Contains("cached vadd (remote "));
  CHECK_THAT(second, !Contains("nvcc"));
  checkSameOutputs(dir + "/checkouts/one/out", dir + "/checkouts/deeper/two/out");
}

TEST_CASE("two machines share builds through an HTTP server (nginx with WebDAV PUT)", "[remote]") {
  std::string dir = scratchDir("remote-http");
  HttpServer http(dir);
  std::string url = http.url();
  checkSharedBetweenMachines(dir, url, http);
}

TEST_CASE("a damaged remote entry is not used but rebuilt and replaced with one warning",
          "[remote]") {
  std::string dir = scratchDir("remote-damaged");
  HttpServer http(dir);
  REQUIRE(buildVadd(dir + "/cache1", http.url(), dir + "/out1").exitCode == 0);
  std::vector<std::string> entries = storedEntries(http.root());
  REQUIRE(entries.size() == 1);
  std::string packed = readText(entries[0]);
  std::string good = packed;
  size_t library = packed.find("ELF"); // inside libvadd.so's bytes
  REQUIRE(library != std::string::npos);
  packed[library + 100] ^= 0x20;
  std::ofstream(entries[0], std::ios::binary | std::ios::trunc) << packed;

  ToolRun damaged = buildVadd(dir + "/cache2", http.url(), dir + "/out2");
  checkBuiltWithOneWarning(damaged, http.url());
  CHECK_THAT(damaged.err, Contains("does not match its SHA-256; not used, building instead"));
  CHECK_THAT(damaged.err, Contains("nvcc"));
  checkSameOutputs(dir + "/out1", dir + "/out2");

  // The rebuild put a good entry in the damaged one's place.
  CHECK(readText(entries[0]) == good);
  ToolRun healed = buildVadd(dir + "/cache3", http.url(), dir + "/out3");
  INFO(healed.err);
  CHECK(healed.exitCode == 0);
  CHECK_THAT(healed.err, Contains("cached vadd (remote "));
  CHECK_THAT(healed.err, !Contains("warning:"));
}

TEST_CASE("a remote that is down costs a miss and one warning", "[remote]") {
  std::string dir = scratchDir("remote-down");
  int closed = freePort();
  std::string redis = "redis://127.0.0.1:" + std::to_string(closed);
  ToolRun viaRedis = buildVadd(dir + "/cache1", redis, dir + "/out1");
  checkBuiltWithOneWarning(viaRedis, redis);
  CHECK_THAT(viaRedis.err, Contains("Connection refused"));

  std::string http = "http://127.0.0.1:" + std::to_string(closed) + "/cache";
  ToolRun viaHttp = buildVadd(dir + "/cache2", http, dir + "/out2");
  checkBuiltWithOneWarning(viaHttp, http);
  checkSameOutputs(dir + "/out1", dir + "/out2");
}

TEST_CASE("a redis-server that hangs is given up after the timeout and one that died at once",
          "[remote]") {
  std::string dir = scratchDir("remote-redis-hang");
  RedisServer redis(dir);
  std::string url = redis.url() + "|operation-timeout=1500";
  std::string shown = redis.url(); // attributes are part of what the warning names
  redis.hang();
  ToolRun hung = buildVadd(dir + "/cache1", url, dir + "/out1");
  checkBuiltWithOneWarning(hung, shown + "|operation-timeout=1500");
  CHECK_THAT(hung.err, Contains("no reply within 1500 ms"));

  redis.kill();
  ToolRun dead = buildVadd(dir + "/cache2", url, dir + "/out2");
  checkBuiltWithOneWarning(dead, shown + "|operation-timeout=1500");
  checkSameOutputs(dir + "/out1", dir + "/out2");
}

TEST_CASE("an HTTP server that hangs is given up after the timeout", "[remote]") {
  std::string dir = scratchDir("remote-http-hang");
  HttpServer http(dir);
  std::string url = http.url() + "|connect-timeout=500|operation-timeout=1000";
  http.hang();
  ToolRun hung = buildVadd(dir + "/cache1", url, dir + "/out1");
  checkBuiltWithOneWarning(hung, url);
  CHECK_THAT(hung.err, Contains("timed out"));
  CHECK(runTlc({"verify", dir + "/out1"}).exitCode == 0);
}

TEST_CASE("a redis-server killed in the middle of a build costs one warning", "[remote]") {
  std::string dir = scratchDir("remote-redis-killed");
  RedisServer redis(dir);
  // nvcc runs under a launcher that says it started and waits for a go: the lookup (a miss,
  // over a live connection) is over by then, and the store is still to come.
  std::string started = dir + "/started", go = dir + "/go";
  std::string gate =
      "touch '" + started + "'; while [ ! -e '" + go + "' ]; do sleep 0.05; done; exec \"$@\"";
  ToolRun run;
  std::thread builder([&] {
    run = runTlc({"build", sample("vadd/vadd.cu"), "-o", dir + "/out1", "--launcher", "sh",
                  "--launcher", "-c", "--launcher", gate, "--launcher", "sh"},
                 {"TLC_CACHE_DIR=" + dir + "/cache1", "TLC_REMOTE_STORAGE=" + redis.url()});
  });
  for (int tries = 0; tries < 1200 && !llvm::sys::fs::exists(started); ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  redis.kill();
  std::ofstream(go.c_str()) << "";
  builder.join();
  REQUIRE(llvm::sys::fs::exists(started));
  checkBuiltWithOneWarning(run, redis.url());
  CHECK_THAT(run.err, Contains("SET failed")); // the store found the server gone
  CHECK(runTlc({"verify", dir + "/out1"}).exitCode == 0);
}

TEST_CASE("the option remote-storage wins over TLC_REMOTE_STORAGE and the empty URL turns it off",
          "[remote]") {
  std::string dir = scratchDir("remote-options");
  std::string down = "redis://127.0.0.1:" + std::to_string(freePort());
  ToolRun off =
      runTlc({"build", sample("vadd/vadd.cu"), "-o", dir + "/out", "--remote-storage", ""},
             {"TLC_CACHE_DIR=" + dir + "/cache", "TLC_REMOTE_STORAGE=" + down});
  INFO(off.err);
  CHECK(off.exitCode == 0);
  CHECK_THAT(off.err, !Contains("warning:"));

  ToolRun bad = runTlc({"build", sample("vadd/vadd.cu"), "-o", dir + "/out", "--remote-storage",
                        "ftp://me:secret@host"},
                       {"TLC_CACHE_DIR=" + dir + "/cache2", "TLC_REMOTE_STORAGE=" + down});
  CHECK(bad.exitCode == 2);
  CHECK_THAT(bad.err, Contains("tlc: error: remote storage URL 'ftp://me:********@host': "
                               "unknown scheme 'ftp'"));
  CHECK_THAT(bad.err, !Contains("secret"));
  ToolRun badEnvironment =
      runTlc({"build", sample("vadd/vadd.cu"), "-o", dir + "/out"},
             {"TLC_CACHE_DIR=" + dir + "/cache2", "TLC_REMOTE_STORAGE=redis://host/db"});
  CHECK(badEnvironment.exitCode == 2);
  CHECK_THAT(badEnvironment.err, Contains("'/db' is not a database number"));

  ToolRun stats = runTlc({"cache", "stats"}, {"TLC_REMOTE_STORAGE=redis://:pw@team-cache:6379"});
  CHECK_THAT(stats.out, Contains("remote:  redis://:********@team-cache:6379"));
  CHECK_THAT(runTlc({"cache", "stats"}).out, Contains("remote:  none"));
}

TEST_CASE("a client whose server died gets an error, not SIGPIPE", "[remote]") {
  // A value far larger than a socket's buffer takes several writes: the first reaches the dead
  // server's closed socket, the next would raise SIGPIPE and end the process.
  std::string big(32 << 20, 'x');
  std::string dir = scratchDir("remote-sigpipe");
  RedisServer redis(dir);
  HttpServer http(dir);
  for (Server* server : {static_cast<Server*>(&redis), static_cast<Server*>(&http)}) {
    std::string url = server == &redis ? redis.url() : http.url();
    INFO(url);
    auto storage = RemoteStorage::create(url);
    REQUIRE_EXPECTED(storage);
    auto missing = (*storage)->get("tlc-test/none"); // connected now
    REQUIRE_EXPECTED(missing);
    CHECK(!*missing);
    server->kill();
    llvm::Error error = (*storage)->put("tlc-test/big", big);
    bool failed = static_cast<bool>(error);
    CHECK(failed);
    llvm::consumeError(std::move(error));
  }
}

TEST_CASE("values of several MiB come back whole, and a missing key as none", "[remote]") {
  // Redis answers in 1 MiB pieces (RedisStorage.cpp): sizes around the pieces' edges.
  std::string dir = scratchDir("remote-large-values");
  RedisServer redis(dir);
  HttpServer http(dir);
  for (const std::string& url : {redis.url(), http.url()}) {
    INFO(url);
    auto storage = RemoteStorage::create(url);
    REQUIRE_EXPECTED(storage);
    for (size_t size : {size_t(1), size_t(1 << 20) - 1, size_t(1 << 20), size_t(1 << 20) + 1,
                        size_t(3 << 20) + 12345, size_t(4 << 20)}) {
      INFO(size);
      std::string value(size, '\0');
      for (size_t i = 0; i < size; ++i)
        value[i] = static_cast<char>((i * 131) ^ (i >> 12));
      std::string key = "tlc-test/value-" + std::to_string(size);
      REQUIRE(!(*storage)->put(key, value));
      auto back = (*storage)->get(key);
      REQUIRE_EXPECTED(back);
      REQUIRE(*back);
      CHECK((*back)->size() == size);
      CHECK(**back == value);
    }
    auto missing = (*storage)->get("tlc-test/never-stored");
    REQUIRE_EXPECTED(missing);
    CHECK(!*missing);
  }
}

TEST_CASE("a Redis user allowed only GET reads whole values and cannot write", "[remote]") {
  // docs/team-cache.md suggests such users for machines that only read the cache.
  std::string dir = scratchDir("remote-get-only");
  RedisServer redis(dir, {"--user", "writer", "on", ">w", "~*", "+@all", "--user", "reader", "on",
                          ">r", "~*", "+get"});
  std::string address = redis.url().substr(std::string("redis://").size());
  auto writer = RemoteStorage::create("redis://writer:w@" + address);
  auto reader = RemoteStorage::create("redis://reader:r@" + address);
  REQUIRE_EXPECTED(writer);
  REQUIRE_EXPECTED(reader);
  std::string value((3 << 20) + 5, 'v');
  REQUIRE(!(*writer)->put("tlc-test/shared", value));
  for (int twice = 0; twice < 2; ++twice) { // refused GETRANGE once, then GET straight away
    auto back = (*reader)->get("tlc-test/shared");
    REQUIRE_EXPECTED(back);
    REQUIRE(*back);
    CHECK(**back == value);
  }
  auto missing = (*reader)->get("tlc-test/never-stored");
  REQUIRE_EXPECTED(missing);
  CHECK(!*missing);
  llvm::Error refused = (*reader)->put("tlc-test/shared", "other");
  bool failed = static_cast<bool>(refused);
  REQUIRE(failed);
  CHECK_THAT(summarize(std::move(refused)).message, Contains("NOPERM"));
}

namespace {

// A Redis server that lies: GETRANGE answers a full first piece, STRLEN a size of 1 PB. It
// answers one connection, reading each command whole before it replies.
class LyingRedis {
public:
  LyingRedis() {
    Listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(Listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(Listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    Port = ntohs(address.sin_port);
    REQUIRE(::listen(Listener, 1) == 0);
    Server = std::thread([this] { serve(); });
  }
  ~LyingRedis() {
    ::shutdown(Listener, SHUT_RDWR);
    ::close(Listener);
    Server.join();
  }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(Port); }

private:
  void serve() {
    int client = ::accept(Listener, nullptr, nullptr);
    if (client < 0)
      return;
    std::string pending;
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(client, buffer, sizeof buffer)) > 0) {
      pending.append(buffer, got);
      // Replies once a command is complete: GETRANGE key start end (4 arguments) or STRLEN key.
      if (pending.find("GETRANGE") != std::string::npos && count(pending, "\r\n") >= 9) {
        reply(client, "$" + std::to_string(1 << 20) + "\r\n" + std::string(1 << 20, 'x') + "\r\n");
        pending.clear();
      } else if (pending.find("STRLEN") != std::string::npos && count(pending, "\r\n") >= 5) {
        reply(client, ":1000000000000000\r\n");
        pending.clear();
      }
    }
    ::close(client);
  }
  static size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  }
  static void reply(int client, const std::string& text) {
    for (size_t sent = 0; sent < text.size();) {
      ssize_t n = ::write(client, text.data() + sent, text.size() - sent);
      if (n <= 0)
        return;
      sent += n;
    }
  }
  int Listener = -1;
  int Port = 0;
  std::thread Server;
};

} // namespace

TEST_CASE("a Redis server claiming a value of a petabyte gets an error, not a crash", "[remote]") {
  LyingRedis liar;
  auto storage = RemoteStorage::create(liar.url());
  REQUIRE_EXPECTED(storage);
  auto value = (*storage)->get("tlc-test/huge");
  REQUIRE(!value);
  CHECK_THAT(summarize(value.takeError()).message,
             Contains("1000000000000000 bytes, more than tlc reads"));
}

// ---- Servers that misbehave: every call ends by its deadline, within its size limit ----------

namespace {

// A client of `url` (attributes included) reading values of at most `limit` bytes.
std::unique_ptr<RemoteStorage> storageFor(const std::string& url, uint64_t limit = MaxRemoteValue) {
  auto parsed = parseRemoteUrl(url);
  REQUIRE_EXPECTED(parsed);
  parsed->valueLimit = limit;
  return parsed->scheme == RemoteUrl::Scheme::Redis ? createRedisStorage(std::move(*parsed))
                                                    : createHttpStorage(std::move(*parsed));
}

struct Failure {
  std::string message;
  double seconds = 0;
};

// The error a get() ended in, and how long it took; fails the test if it found a value.
Failure failedGet(RemoteStorage& storage, const std::string& key = "tlc-test/key") {
  auto start = std::chrono::steady_clock::now();
  auto value = storage.get(key);
  Failure failure;
  failure.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(!value);
  failure.message = summarize(value.takeError()).message;
  return failure;
}

// This process's peak resident memory (VmHWM), in MiB.
long peakMiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stol(line.substr(6)) / 1024;
  FAIL("no VmHWM in /proc/self/status");
  return 0;
}

} // namespace

TEST_CASE("a Redis server that sends a byte at a time is given up at the operation's deadline",
          "[remote]") {
  // Each byte used to restart hiredis' read timeout: the lookup waited for ever.
  std::string dir = scratchDir("remote-redis-trickle");
  FakeServer trickle(dir, "redis-trickle");
  auto storage = storageFor(trickle.url() + "|operation-timeout=1000");
  Failure failure = failedGet(*storage);
  CHECK_THAT(failure.message, Contains("GETRANGE failed: no reply within 1000 ms"));
  CHECK(failure.seconds < 2.5);
}

TEST_CASE("a Redis reply announcing 2.5 GB is refused before it is read", "[remote]") {
  // It used to be read whole, 11.6 GB resident for a 1 MiB piece asked for.
  std::string dir = scratchDir("remote-redis-huge");
  FakeServer huge(dir, "redis-huge");
  auto storage = storageFor(huge.url());
  long before = peakMiB();
  Failure failure = failedGet(*storage);
  CHECK_THAT(failure.message, Contains("the reply to GETRANGE announces 2500000000 bytes, more "
                                       "than tlc reads (1048576)"));
  CHECK(peakMiB() - before < 64);
  CHECK(failure.seconds < 2);
}

TEST_CASE("a Redis array reply is refused before hiredis takes memory for its elements",
          "[remote]") {
  std::string dir = scratchDir("remote-redis-array");
  FakeServer array(dir, "redis-array");
  auto storage = storageFor(array.url());
  long before = peakMiB();
  CHECK_THAT(failedGet(*storage).message, Contains("unexpected reply to GETRANGE"));
  CHECK(peakMiB() - before < 64);
}

TEST_CASE("a Redis server that closes in the middle of a value costs an error", "[remote]") {
  std::string dir = scratchDir("remote-redis-close");
  FakeServer closing(dir, "redis-close");
  auto storage = storageFor(closing.url());
  CHECK_THAT(failedGet(*storage).message,
             Contains("GETRANGE failed: Server closed the connection"));
}

TEST_CASE("a Redis value larger than tlc reads is refused by GET too, before it is read",
          "[remote]") {
  // A reader allowed only GET gets whole values: the limit is the value's, announced first.
  std::string dir = scratchDir("remote-get-limit");
  RedisServer redis(dir, {"--user", "writer", "on", ">w", "~*", "+@all", "--user", "reader", "on",
                          ">r", "~*", "+get"});
  std::string address = redis.url().substr(std::string("redis://").size());
  auto writer = storageFor("redis://writer:w@" + address);
  REQUIRE(!writer->put("tlc-test/big", std::string(3 << 20, 'v')));
  auto reader = storageFor("redis://reader:r@" + address, 1 << 20);
  CHECK_THAT(failedGet(*reader, "tlc-test/big").message,
             Contains("the reply to GET announces 3145728 bytes, more than tlc reads (1048576)"));
  auto small = storageFor("redis://reader:r@" + address, 4 << 20);
  auto value = small->get("tlc-test/big");
  REQUIRE_EXPECTED(value);
  CHECK((*value)->size() == size_t(3 << 20));
}

TEST_CASE("an endless HTTP body is cut off at the value limit", "[remote]") {
  std::string dir = scratchDir("remote-http-endless");
  FakeServer endless(dir, "http-endless");
  auto storage = storageFor(endless.url(), 8 << 20);
  CHECK_THAT(failedGet(*storage).message, Contains("is larger than tlc reads (8388608 bytes)"));
}

TEST_CASE("an endless HTTP body that memory cannot hold is an error, not an abort", "[remote]") {
  // std::bad_alloc in libcurl's write callback used to cross libcurl's C frames: std::terminate.
  // A child process with little address space left reads one, within the 2 GiB value limit.
  std::string dir = scratchDir("remote-http-memory");
  FakeServer endless(dir, "http-endless");
  std::string url = endless.url() + "|operation-timeout=30000";
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::ifstream status("/proc/self/status");
    long sizeKiB = 0;
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmSize:", 0) == 0)
        sizeKiB = std::stol(line.substr(7));
    rlimit limit{};
    limit.rlim_cur = limit.rlim_max = (sizeKiB << 10) + (rlim_t(512) << 20);
    ::setrlimit(RLIMIT_AS, &limit);
    auto parsed = parseRemoteUrl(url);
    auto storage = createHttpStorage(std::move(*parsed));
    auto value = storage->get("tlc-test/key");
    bool said = !value && summarize(value.takeError())
                                  .message.find("not enough memory for the "
                                                "answer") != std::string::npos;
    ::_exit(said ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("the child's wait status: " << status);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("an HTTP server that sends less than its Content-Length costs an error", "[remote]") {
  std::string dir = scratchDir("remote-http-short");
  FakeServer liar(dir, "http-short");
  auto storage = storageFor(liar.url());
  CHECK_THAT(failedGet(*storage).message, Contains("transfer closed with 99990 bytes remaining"));
}

TEST_CASE("an HTTP body announced larger than tlc reads is refused before it comes", "[remote]") {
  // Its bytes come at one a second: it used to be waited for until the timeout.
  std::string dir = scratchDir("remote-http-huge");
  FakeServer huge(dir, "http-huge-length");
  auto storage = storageFor(huge.url());
  Failure failure = failedGet(*storage);
  CHECK_THAT(failure.message, Contains("the answer for tlc-test/key is larger than tlc reads "
                                       "(2147483648 bytes)"));
  CHECK(failure.seconds < 2);
}
