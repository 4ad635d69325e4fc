// support/Files: the one reading primitive refuses what is not a regular file without waiting on
// it (a FIFO without a writer, a device, a folder) and what is larger than its limit, naming the
// file and saying why; regular files of any size up to the limit read whole.
#include "support/Files.h"

#include "TestSupport.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

using namespace tlc;

namespace {

std::string refusal(const std::string& path, uint64_t limit = kDefaultReadLimit) {
  auto read = readFile(path, limit);
  if (read)
    return "read " + std::to_string(read->size()) + " bytes";
  return summarize(read.takeError()).message;
}

} // namespace

TEST_CASE("readFile reads regular files only, without blocking, up to its limit", "[support]") {
  std::string dir = test::scratchDir("files-read");
  REQUIRE(!writeFile(dir + "/text", "hello", 0600));
  REQUIRE(!writeFile(dir + "/empty", "", 0600));
  auto text = readFile(dir + "/text");
  REQUIRE_EXPECTED(text);
  CHECK(*text == "hello");
  auto empty = readFile(dir + "/empty");
  REQUIRE_EXPECTED(empty);
  CHECK(empty->empty());

  // A FIFO nobody writes to: a blocking open would never return.
  ::unlink((dir + "/fifo").c_str()); // left by an earlier run
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  CHECK_THAT(refusal(dir + "/fifo"), Catch::Contains("'" + dir + "/fifo'") &&
                                         Catch::Contains("a FIFO, not a regular file"));
  CHECK_THAT(refusal("/dev/zero"), Catch::Contains("a character device, not a regular file"));
  CHECK_THAT(refusal(dir), Catch::Contains("a directory, not a regular file"));
  CHECK_THAT(refusal(dir + "/missing"), Catch::Contains("cannot read '" + dir + "/missing'"));

  CHECK(refusal(dir + "/text", 5) == "read 5 bytes");
  CHECK_THAT(refusal(dir + "/text", 4), Catch::Contains("5 bytes, more than the 4 tlc reads"));

  auto buffer = readFileBuffer(dir + "/text");
  REQUIRE_EXPECTED(buffer);
  CHECK((*buffer)->getBuffer() == "hello");
}

TEST_CASE("checkWritable accepts a new or regular file and refuses what a rename would replace",
          "[support]") {
  std::string dir = test::scratchDir("files-writable");
  REQUIRE(!writeFile(dir + "/file", "x", 0600));
  REQUIRE(::symlink((dir + "/file").c_str(), (dir + "/link").c_str()) == 0);
  REQUIRE(::symlink((dir + "/nowhere").c_str(), (dir + "/dangling").c_str()) == 0);
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  for (const std::string& path : {dir + "/new", dir + "/file", dir + "/link", dir + "/dangling"}) {
    INFO(path);
    CHECK(summarize(checkWritable(path)).message.empty());
  }
  const std::pair<std::string, const char*> refused[] = {
      {dir + "/fifo", "(a FIFO)"},
      {"/dev/null", "(a character device)"},
      {"/dev/full", "(a character device)"},
      {dir, "(a directory)"},
  };
  for (const auto& [path, kind] : refused) {
    INFO(path);
    CHECK_THAT(
        summarize(checkWritable(path)).message,
        Catch::Contains("cannot write '" + path + "': it exists and is not a regular file") &&
            Catch::Contains(kind));
  }
  // writeFile refuses them the same way, before it makes a temporary beside them.
  CHECK_THAT(summarize(writeFile(dir + "/fifo", "x")).message, Catch::Contains("(a FIFO)"));
}

TEST_CASE("ReadableFile opens regular files only and knows their size", "[support]") {
  std::string dir = test::scratchDir("files-readable");
  REQUIRE(!writeFile(dir + "/text", "hello", 0600));
  auto file = ReadableFile::open(dir + "/text");
  REQUIRE_EXPECTED(file);
  CHECK(file->size() == 5);
  char buffer[8] = {};
  CHECK(::read(file->fd(), buffer, sizeof buffer) == 5); // a blocking descriptor, at its start
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  auto fifo = ReadableFile::open(dir + "/fifo");
  REQUIRE(!fifo);
  CHECK_THAT(summarize(fifo.takeError()).message, Catch::Contains("a FIFO, not a regular file"));
  auto limited = ReadableFile::open(dir + "/text", 4);
  REQUIRE(!limited);
  CHECK_THAT(summarize(limited.takeError()).message, Catch::Contains("more than the 4"));
}
