// Helpers shared by the unit tests: fixture paths, running the tlc binary, parsing fixtures
// through the library.
#pragma once

#include "checks/Analysis.h"
#include "support/Error.h"
#include "support/Process.h"

#include <string>
#include <vector>

// Fails the test with the error's message unless `expected` holds a value.
#define REQUIRE_EXPECTED(expected)                                                                 \
  do {                                                                                             \
    if (!(expected))                                                                               \
      FAIL(::tlc::summarize((expected).takeError()).message);                                      \
  } while (false)

namespace tlc::test {

std::string fixture(const std::string& relative);
std::string sample(const std::string& relative); // a file under samples/
// A file's whole contents; fails the test if it cannot be read.
std::string readText(const std::string& path);
std::string scratchDir(const std::string& name); // fresh, empty folder for one test

struct ToolRun {
  int exitCode = 0;
  std::string out;
  std::string err;
};
// Runs the tlc binary under test with `args`; environment overrides as "NAME=value".
ToolRun runTlc(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

FrontendOptions frontendFor(const std::string& arch = "sm_90a");

// Parses and checks `inputs` through the library; fails the test on any error.
Analysis analyzeOk(const std::vector<std::string>& inputs, const std::string& arch = "sm_90a");

const Kernel& kernelNamed(const Module& module, const std::string& displayName);

bool toolkitAvailable();

} // namespace tlc::test
