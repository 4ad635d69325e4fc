// Starting, hanging and killing the test servers (Servers.h).
#include "Servers.h"

#include <catch2/catch.hpp>

#include "llvm/Support/FileSystem.h"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace tlc::test {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

bool listening(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = loopback(port);
  bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return connected;
}

} // namespace

std::string programOrSkip(const std::string& program, const std::string& package) {
  auto path = llvm::sys::findProgramByName(program, {"/usr/sbin", "/usr/bin", "/sbin"});
  if (!path)
    path = llvm::sys::findProgramByName(program);
  if (path)
    return *path;
  std::cout << "skipped: " << program << " is not installed (Debian package " << package
            << "); the remote cache is not tested against it" << std::endl;
  std::exit(77);
}

int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address = loopback(0);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

void Server::start(const std::vector<std::string>& argv, int port, const std::string& logFile) {
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef("/dev/null"),
                                                llvm::StringRef(logFile), llvm::StringRef(logFile)};
  std::string error;
  Process = llvm::sys::ExecuteNoWait(argv.front(), args, std::nullopt, redirects, 0, &error);
  REQUIRE(Process.Pid > 0);
  Running = true;
  Port = port;
  for (int tries = 0; tries < 200 && !listening(port); ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!listening(port)) {
    std::ifstream log(logFile);
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    FAIL(argv.front() << " did not listen on port " << port << ":\n" << text);
  }
}

void Server::hang() {
  REQUIRE(Running);
  REQUIRE(::kill(Process.Pid, SIGSTOP) == 0);
}

void Server::kill() {
  if (!Running)
    return;
  ::kill(Process.Pid, SIGKILL);
  llvm::sys::Wait(Process, std::nullopt);
  Running = false;
}

RedisServer::RedisServer(const std::string& dir, const std::vector<std::string>& settings) {
  std::string program = programOrSkip("redis-server", "redis-server");
  int port = freePort();
  std::vector<std::string> argv = {
      program,        "--bind", "127.0.0.1", "--port", std::to_string(port), "--save", "",
      "--appendonly", "no",     "--dir",     dir,      "--daemonize",        "no"};
  argv.insert(argv.end(), settings.begin(), settings.end());
  start(argv, port, dir + "/redis.log");
}

HttpServer::HttpServer(const std::string& dir) : Root(dir + "/data") {
  std::string program = programOrSkip("nginx", "nginx-light");
  int port = freePort();
  llvm::sys::fs::create_directories(Root + "/cache");
  // One process (no master), in the foreground, everything it writes inside `dir`; PUT creates
  // the folders a key needs, as an HTTP cache server does.
  std::ofstream(dir + "/nginx.conf")
      << "daemon off;\nmaster_process off;\npid " << dir << "/nginx.pid;\nerror_log " << dir
      << "/error.log;\nevents { worker_connections 64; }\nhttp {\n  access_log off;\n"
      << "  client_body_temp_path " << dir << "/body;\n  proxy_temp_path " << dir
      << "/proxy;\n  fastcgi_temp_path " << dir << "/fastcgi;\n  uwsgi_temp_path " << dir
      << "/uwsgi;\n  scgi_temp_path " << dir << "/scgi;\n  server {\n    listen 127.0.0.1:" << port
      << ";\n    root " << Root << ";\n    client_max_body_size 0;\n    location / {\n"
      << "      dav_methods PUT;\n      create_full_put_path on;\n    }\n  }\n}\n";
  start({program, "-p", dir, "-e", dir + "/error.log", "-c", dir + "/nginx.conf"}, port,
        dir + "/nginx.out");
}

FakeServer::FakeServer(const std::string& dir, const std::string& mode) {
  std::string python = programOrSkip("python3", "python3");
  int port = freePort();
  start({python, TLC_FAKE_REMOTE_SERVER, mode, "--port", std::to_string(port)}, port,
        dir + "/" + mode + ".log");
  std::string scheme = llvm::StringRef(mode).starts_with("http") ? "http" : "redis";
  Url = scheme + "://127.0.0.1:" + std::to_string(port) + (scheme == "http" ? "/cache" : "");
}

} // namespace tlc::test
