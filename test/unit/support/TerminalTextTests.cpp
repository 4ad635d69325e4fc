// support/TerminalText: a name from a device image reaches the terminal as text, never as a
// command (test/fuzz found image names printed raw in tlc's messages).
#include "support/TerminalText.h"

#include "TestSupport.h"

#include "support/Files.h"

#include <catch2/catch.hpp>

using namespace tlc;

TEST_CASE("control characters and bidirectional overrides reach the terminal escaped",
          "[support]") {
  CHECK(terminalText("plain 'k' of k.ptx\n\tline two") == "plain 'k' of k.ptx\n\tline two");
  CHECK(terminalText("k\x1b]0;title\x07") == "k\\x1B]0;title\\x07");
  CHECK(terminalText("\x1b[2J") == "\\x1B[2J");
  CHECK(terminalText("a\rb\x7f") == "a\\x0Db\\x7F");
  CHECK(terminalText("caf\xc3\xa9 \xe2\x80\xae") == "caf\xc3\xa9 \\u202E"); // é stays, RLO not
  CHECK(terminalText("\xc2\x9b") == "\\x9B");                               // C1 CSI
  CHECK(terminalText("\xff\xfe") == "\\xFF\\xFE");                          // no UTF-8
}

TEST_CASE("an image entry's name sets no terminal title in tlc's error", "[support]") {
  std::string dir = test::scratchDir("terminal-text-image");
  REQUIRE(!writeFile(dir + "/k.ptx",
                     ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry k\x1b]0;title\x07(.param .pred p) { ret; }\n"));
  test::ToolRun built = test::runTlc({"build", dir + "/k.ptx", "-o", dir + "/out"});
  CHECK(built.exitCode == 2);
  CHECK(built.err.find('\x1b') == std::string::npos);
  CHECK_THAT(built.err, Catch::Contains("k\\x1B]0;title\\x07"));
}
