// Two launcher libraries in one process: iso_a (as tlc builds it) and iso_b (the same kernels,
// linked against a runtime archive with another internal layout, standing for another tlc
// version's). Each carries its own hidden copy of the runtime, so neither can reach the other's
// state: they load, launch, fail and unload independently, and export nothing but their API.
#include "FakeDriver.h"

#include "iso_a.h"
#include "iso_b.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace tlc_test;

namespace {

tlc_status scaleA(unsigned grid = 4) {
  tlc_config config = makeConfig<tlc_config>(grid, 128);
  return iso_a_scale(&config, nullptr, 2.0f, 512);
}

tlc_status scaleB(unsigned grid = 4) {
  tlc_config config = makeConfig<tlc_config>(grid, 128);
  return iso_b_scale(&config, nullptr, 2.0f, 512);
}

// `nm -D --defined-only` of a library: one "TYPE NAME" per defined dynamic symbol.
std::vector<std::string> definedDynamicSymbols(const std::string& library) {
  std::string command = std::string(TLC_NM) + " -D --defined-only --format=posix '" + library + "'";
  std::vector<std::string> symbols;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  char line[1024];
  while (fgets(line, sizeof line, pipe)) {
    std::string text(line);
    size_t space = text.find(' ');
    REQUIRE(space != std::string::npos);
    symbols.push_back(text.substr(space + 1, 1) + " " + text.substr(0, space));
  }
  REQUIRE(pclose(pipe) == 0);
  return symbols;
}

void checkExportsOnlyItsApi(const std::string& module) {
  auto symbols = definedDynamicSymbols(moduleFile(module + "/lib" + module + ".so"));
  REQUIRE(!symbols.empty());
  for (const std::string& symbol : symbols) {
    INFO(module << ": " << symbol);
    std::string name = symbol.substr(2);
    CHECK(symbol[0] == 'T'); // functions only: no data, no weak or unique (process-wide) symbol
    CHECK((name.rfind(module + "_", 0) == 0 || name.rfind("tlc_" + module + "_", 0) == 0));
  }
}

} // namespace

TEST_CASE("each library exports its generated API and nothing of its runtime") {
  checkExportsOnlyItsApi("iso_a");
  checkExportsOnlyItsApi("iso_b");
}

TEST_CASE("two libraries with different runtimes load and launch side by side") {
  useDevices("9.0");
  REQUIRE(scaleA() == TLC_SUCCESS);
  REQUIRE(scaleB() == TLC_SUCCESS);
  REQUIRE(scaleA() == TLC_SUCCESS);
  CHECK(countCalls("cuLibraryLoadData") == 2); // each library loads its own image, once
  CHECK(countCalls("cuLaunchKernel") == 3);
  CHECK(tlc_iso_a_kernel_count() == TLC_ISO_A_KERNELS);
  CHECK(tlc_iso_b_kernel_count() == TLC_ISO_B_KERNELS);
}

TEST_CASE("a library's errors are its own") {
  useDevices("9.0");
  REQUIRE(scaleB() == TLC_SUCCESS);
  CHECK(scaleA(0) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_iso_a_last_error(), Catch::Contains("iso_a_scale"));
  CHECK(std::string(tlc_iso_b_last_error()).empty());
  CHECK(scaleB(0) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_iso_b_last_error(), Catch::Contains("iso_b_scale"));
  CHECK_THAT(tlc_iso_a_last_error(), Catch::Contains("iso_a_scale"));
}

TEST_CASE("unloading one library leaves the other loaded") {
  useDevices("9.0");
  REQUIRE(scaleA() == TLC_SUCCESS);
  REQUIRE(scaleB() == TLC_SUCCESS);
  auto loads = loggedCalls("cuLibraryLoadData");
  REQUIRE(loads.size() == 2);
  fake_cuda_clear_log();
  REQUIRE(tlc_iso_a_unload() == TLC_SUCCESS);
  auto unloads = loggedCalls("cuLibraryUnload");
  REQUIRE(unloads.size() == 1);
  CHECK(unloads[0].handle == loads[0].handle);
  REQUIRE(scaleB() == TLC_SUCCESS);
  CHECK(countCalls("cuLibraryLoadData") == 0);
  REQUIRE(scaleA() == TLC_SUCCESS); // and iso_a loads again
  CHECK(countCalls("cuLibraryLoadData") == 1);
}
