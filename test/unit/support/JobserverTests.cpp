// support/Jobserver: MAKEFLAGS as make writes it, and joining make's pipe, here a pipe and a
// named pipe this test makes itself: tokens read and written back byte for byte, descriptors
// make did not pass on refused. (The interrupt handlers are tested on real tlc processes in
// JobLimitTests.cpp.)
#include "support/Jobserver.h"

#include "TestSupport.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <future>

using tlc::MakeFlags;

namespace {

// A pipe as make sets one up, holding `tokens`; closed when the test ends.
struct TokenPipe {
  explicit TokenPipe(const std::string& tokens) {
    REQUIRE(::pipe(fds) == 0);
    REQUIRE(::write(fds[1], tokens.data(), tokens.size()) == ssize_t(tokens.size()));
  }
  ~TokenPipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  // Every byte now in the pipe (taken out and put back).
  std::string contents() const {
    int flags = fcntl(fds[0], F_GETFL);
    fcntl(fds[0], F_SETFL, flags | O_NONBLOCK);
    std::string bytes;
    char byte;
    while (::read(fds[0], &byte, 1) == 1)
      bytes += byte;
    fcntl(fds[0], F_SETFL, flags);
    REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == ssize_t(bytes.size()));
    return bytes;
  }
  MakeFlags flags() const {
    return tlc::parseMakeFlags(" -j4 --jobserver-auth=" + std::to_string(fds[0]) + "," +
                               std::to_string(fds[1]));
  }
  int fds[2];
};

std::unique_ptr<tlc::Jobserver> joinOk(const MakeFlags& flags) {
  auto server = tlc::Jobserver::join(flags);
  if (!server)
    FAIL(llvm::toString(server.takeError()));
  return std::move(*server);
}

std::string joinProblem(const MakeFlags& flags) {
  auto server = tlc::Jobserver::join(flags);
  REQUIRE(!server);
  return llvm::toString(server.takeError());
}

} // namespace

TEST_CASE("MAKEFLAGS: make 4.4's named pipe, older makes' descriptors, -j", "[jobs]") {
  MakeFlags fifo = tlc::parseMakeFlags("-j8 --jobserver-auth=fifo:/tmp/GMfifo1234");
  CHECK(fifo.jobserver == MakeFlags::Kind::Fifo);
  CHECK(fifo.fifo == "/tmp/GMfifo1234");
  CHECK(fifo.jobs == 8);

  // make 4.3 puts its single-letter flags first, without a dash.
  MakeFlags pipe = tlc::parseMakeFlags("sw -j2 --jobserver-auth=3,4");
  CHECK(pipe.jobserver == MakeFlags::Kind::Pipe);
  CHECK(pipe.readFd == 3);
  CHECK(pipe.writeFd == 4);
  CHECK(pipe.jobs == 2);

  MakeFlags old = tlc::parseMakeFlags(" --jobserver-fds=5,6 -j");
  CHECK(old.jobserver == MakeFlags::Kind::Pipe);
  CHECK(old.readFd == 5);
  CHECK(old.jobs == 0); // -j alone: no limit

  // The last --jobserver-auth counts; negative descriptors mean none.
  CHECK(tlc::parseMakeFlags("--jobserver-auth=3,4 --jobserver-auth=fifo:/x").fifo == "/x");
  CHECK(tlc::parseMakeFlags("--jobserver-auth=fifo:/x --jobserver-auth=-2,-2").jobserver ==
        MakeFlags::Kind::None);
  // What follows `--` are variable assignments, not flags.
  MakeFlags assigned = tlc::parseMakeFlags("-j3 -- CFLAGS=--jobserver-auth=fifo:/y");
  CHECK(assigned.jobserver == MakeFlags::Kind::None);
  CHECK(assigned.jobs == 3);

  CHECK(tlc::parseMakeFlags("-j 6").jobs == 6);
  CHECK(tlc::parseMakeFlags("--jobs=5").jobs == 5);
  CHECK(tlc::parseMakeFlags("k").jobserver == MakeFlags::Kind::None);
  CHECK(tlc::parseMakeFlags("").jobs == 0);
  CHECK(tlc::parseMakeFlags("--jobserver-auth=fifo:").jobserver == MakeFlags::Kind::None);
}

TEST_CASE("a joined pipe gives its tokens and takes the same bytes back", "[jobs]") {
  TokenPipe pipe("+a");
  {
    std::unique_ptr<tlc::Jobserver> server = joinOk(pipe.flags());
    tlc::JobSlots slots(4, server.get());
    slots.acquire(); // the own slot: the pipe is untouched
    CHECK(pipe.contents() == "+a");
    slots.acquire();
    slots.acquire();
    CHECK(pipe.contents().empty());
    CHECK(server->held() == 2);
    slots.release();
    slots.release();
    CHECK(server->held() == 0);
    std::string back = pipe.contents();
    std::sort(back.begin(), back.end());
    CHECK(back == "+a");
    slots.release();
  }
  // make's own descriptor is still blocking (tlc reads through a descriptor of its own).
  CHECK((fcntl(pipe.fds[0], F_GETFL) & O_NONBLOCK) == 0);
}

TEST_CASE("a job waits on the pipe until another process gives a token back", "[jobs]") {
  TokenPipe pipe("");
  std::unique_ptr<tlc::Jobserver> server = joinOk(pipe.flags());
  tlc::JobSlots slots(4, server.get());
  slots.acquire();
  auto second = std::async(std::launch::async, [&] { slots.acquire(); });
  CHECK(second.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  REQUIRE(::write(pipe.fds[1], "t", 1) == 1); // another job of the build ended
  REQUIRE(second.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(server->held() == 1);
  slots.release();
  slots.release();
  CHECK(pipe.contents() == "t");
}

TEST_CASE("a job waiting on the pipe takes the own slot when it comes free", "[jobs]") {
  TokenPipe pipe("");
  std::unique_ptr<tlc::Jobserver> server = joinOk(pipe.flags());
  tlc::JobSlots slots(4, server.get());
  slots.acquire();
  auto second = std::async(std::launch::async, [&] { slots.acquire(); });
  CHECK(second.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  slots.release(); // wakes the waiter out of poll()
  REQUIRE(second.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(server->held() == 0);
  slots.release();
  CHECK(pipe.contents().empty());
}

TEST_CASE("a named pipe (make 4.4) works the same", "[jobs]") {
  std::string path = tlc::test::scratchDir("jobserver-fifo") + "/fifo";
  ::unlink(path.c_str());
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  int keep = ::open(path.c_str(), O_RDWR); // make holds it open too
  REQUIRE(keep >= 0);
  REQUIRE(::write(keep, "++", 2) == 2);
  {
    std::unique_ptr<tlc::Jobserver> server =
        joinOk(tlc::parseMakeFlags("-j3 --jobserver-auth=fifo:" + path));
    tlc::JobSlots slots(8, server.get());
    for (int i = 0; i < 3; ++i)
      slots.acquire();
    CHECK(server->held() == 2);
    for (int i = 0; i < 3; ++i)
      slots.release();
  }
  fcntl(keep, F_SETFL, O_NONBLOCK);
  char tokens[8];
  CHECK(::read(keep, tokens, sizeof tokens) == 2);
  ::close(keep);
}

TEST_CASE("tokens still held when the jobserver is closed are written back", "[jobs]") {
  TokenPipe pipe("xy");
  {
    std::unique_ptr<tlc::Jobserver> server = joinOk(pipe.flags());
    REQUIRE(server->take().kind == tlc::TokenSource::Taken::Token);
    REQUIRE(server->take().kind == tlc::TokenSource::Taken::Token);
    CHECK(pipe.contents().empty());
  }
  std::string back = pipe.contents();
  std::sort(back.begin(), back.end());
  CHECK(back == "xy");
}

TEST_CASE("descriptors make did not pass on, and paths that are no pipe, are refused", "[jobs]") {
  // Closed descriptors (make closes them for recipes it does not know to be recursive).
  TokenPipe closed("");
  MakeFlags flags = closed.flags();
  int readFd = ::dup(closed.fds[0]), writeFd = ::dup(closed.fds[1]);
  ::close(readFd);
  ::close(writeFd);
  flags.readFd = readFd;
  flags.writeFd = writeFd;
  CHECK_THAT(joinProblem(flags), Catch::Contains("not make's jobserver pipe"));

  // The numbers reused by files of the process's own.
  std::string file = tlc::test::scratchDir("jobserver-refused") + "/file";
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT, 0600);
  REQUIRE(fd >= 0);
  flags.readFd = flags.writeFd = fd;
  CHECK_THAT(joinProblem(flags), Catch::Contains("not make's jobserver pipe"));

  // Two different pipes.
  TokenPipe other("");
  flags.readFd = closed.fds[0];
  flags.writeFd = other.fds[1];
  CHECK_THAT(joinProblem(flags), Catch::Contains("not make's jobserver pipe"));
  ::close(fd);

  CHECK_THAT(joinProblem(tlc::parseMakeFlags("--jobserver-auth=fifo:" + file)),
             Catch::Contains("is not a named pipe"));
  CHECK_THAT(joinProblem(tlc::parseMakeFlags("--jobserver-auth=fifo:" + file + ".missing")),
             Catch::Contains("cannot open"));
  CHECK_THAT(joinProblem(tlc::parseMakeFlags("-j4")), Catch::Contains("names no jobserver"));
}
