// Real servers for the remote cache's tests: redis-server and nginx (WebDAV PUT), each started
// on a free port of 127.0.0.1 in a folder of its own, and stopped, hung or killed on demand; and
// misbehaving ones (test/bad-input/fakes/remote-server).
#pragma once

#include "llvm/Support/Program.h"

#include <string>
#include <vector>

namespace tlc::test {

// Ends the whole test program with CTest's "skipped" code (77) and a message saying why, when
// `program` is not installed. Returns the program's path otherwise.
std::string programOrSkip(const std::string& program, const std::string& package);

// A port on 127.0.0.1 nothing listens on (just now).
int freePort();

class Server {
public:
  Server() = default;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server() { kill(); }

  int port() const { return Port; }
  // Stops the process as a hung server would (SIGSTOP): it accepts connections (the kernel
  // does) but answers nothing.
  void hang();
  void kill(); // SIGKILL, and waits for it

protected:
  // Starts `argv` and waits until something listens on `port` (fails the test otherwise).
  void start(const std::vector<std::string>& argv, int port, const std::string& logFile);

private:
  llvm::sys::ProcessInfo Process;
  bool Running = false;
  int Port = 0;
};

class RedisServer : public Server {
public:
  // `settings`: more of redis-server's settings, as its command line takes them.
  explicit RedisServer(const std::string& dir, const std::vector<std::string>& settings = {});
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port()); }
};

class HttpServer : public Server {
public:
  explicit HttpServer(const std::string& dir);
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()) + "/cache"; }
  const std::string& root() const { return Root; } // the files under url()
private:
  std::string Root;
};

// A server that misbehaves as `mode` says (the modes of test/bad-input/fakes/remote-server:
// redis-trickle, redis-huge, http-endless, ...).
class FakeServer : public Server {
public:
  FakeServer(const std::string& dir, const std::string& mode);
  std::string url() const { return Url; }

private:
  std::string Url;
};

} // namespace tlc::test
