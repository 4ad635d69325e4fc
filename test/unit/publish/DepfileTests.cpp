// publish/Depfile: reading a compiler's -MD output back, as Make reads it (the launcher's cache
// entry lists the headers it names), and reading back what tlc writes.
#include "TestSupport.h"

#include "publish/Depfile.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace tlc;
using namespace tlc::test;

namespace {

std::vector<std::string> prerequisites(const std::string& text) {
  auto read = depfilePrerequisites(text);
  REQUIRE_EXPECTED(read);
  return *read;
}

bool refused(const std::string& text) {
  auto read = depfilePrerequisites(text);
  if (read)
    return false;
  llvm::consumeError(read.takeError());
  return true;
}

} // namespace

TEST_CASE("a depfile as GCC writes it gives its prerequisites, not its target", "[depfile]") {
  CHECK(prerequisites("m_launcher.o: m_launcher.cpp /usr/include/stdc-predef.h m.h \\\n"
                      " /usr/include/stdint.h \\\n tlc-include/tlc/runtime.h\n") ==
        std::vector<std::string>{"m_launcher.cpp", "/usr/include/stdc-predef.h", "m.h",
                                 "/usr/include/stdint.h", "tlc-include/tlc/runtime.h"});
  // -MP's empty rules name each header as a target: they are left out.
  CHECK(prerequisites("a.o: a.c b.h\nb.h:\n") == std::vector<std::string>{"a.c", "b.h"});
}

TEST_CASE("a depfile's escapes are read as Make reads them", "[depfile]") {
  CHECK(prerequisites("o: my\\ dir/a.h x\\#y.h p$$q.h c\\:d.h") ==
        std::vector<std::string>{"my dir/a.h", "x#y.h", "p$q.h", "c:d.h"});
  // 2N+1 backslashes and a space: N backslashes and the space; 2N: N, and the path ends.
  CHECK(prerequisites("o: a\\\\\\ b.h c\\\\ d.h") ==
        std::vector<std::string>{"a\\ b.h", "c\\", "d.h"});
  CHECK(prerequisites("o: C:\\dir\\a.h") == std::vector<std::string>{"C:\\dir\\a.h"});
}

TEST_CASE("what writeDepfile writes reads back as the paths it was given", "[depfile]") {
  std::string dir = scratchDir("depfile-round-trip");
  std::vector<std::string> paths = {dir + "/with space/a.h", dir + "/hash#.h", dir + "/dollar$.h",
                                    dir + "/colon:x.h", dir + "/back\\ slash.h"};
  REQUIRE(!writeDepfile(dir + "/out.d", "target file.json", paths));
  std::vector<std::string> read = prerequisites(readText(dir + "/out.d"));
  std::sort(paths.begin(), paths.end());
  CHECK(read == paths);
}

TEST_CASE("text that is no rule is refused", "[depfile]") {
  CHECK(refused("a.h b.h\n"));
  CHECK(refused(": a.h\n"));
  CHECK_FALSE(refused("o: a.h\n"));
}
