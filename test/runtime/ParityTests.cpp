// Launchers of what only nvcc's own names reach (static and anonymous-namespace kernels), of
// kernels taking empty tags and the toolkit's vector types, under the fake driver.
#include "FakeDriver.h"
#include "parity.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>

using namespace tlc_test;

TEST_CASE("static and anonymous-namespace kernels launch by the image's symbols") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(1, 32);
  int data[32];
  REQUIRE(parity_hidden(&config, data, 5) == TLC_SUCCESS);
  REQUIRE(parity_anonymous(&config, data) == TLC_SUCCESS);
  std::vector<fake_cuda_call> launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 2);
  // nvcc's names, whole-program: the static kernel's plain mangling (Clang's would be
  // _ZL6hiddenPii), the anonymous namespace under nvcc's own per-file name.
  CHECK(std::string(launches[0].symbol) == "_Z6hiddenPii");
  CHECK(std::string(launches[0].symbol) == tlc_parity_kernel_name(TLC_PARITY_KERNEL_hidden));
  CHECK(std::string(launches[1].symbol).find("_GLOBAL__N__") != std::string::npos);
  CHECK(launches[0].param_values[1] == 5);
}

TEST_CASE("an empty tag takes no C parameter and its kernel slot still gets its byte") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(1, 32);
  float x[32];
  REQUIRE(parity_tagged(&config, x, 32) == TLC_SUCCESS);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  REQUIRE(launch.param_count == 3); // x, the tag, n
  CHECK(launch.param_values[0] == reinterpret_cast<unsigned long long>(x));
  CHECK(launch.param_values[2] == 32);
}

TEST_CASE("the toolkit's vector types pass by value as the toolkit lays them out") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(1, 1);
  float4 out[1];
  float4 value = {1.f, 2.f, 3.f, 4.f};
  uchar4 colour = {7, 8, 9, 10};
  REQUIRE(parity_vectors(&config, out, value, colour) == TLC_SUCCESS);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  REQUIRE(launch.param_count == 3);
  unsigned long long firstTwo = 0;
  std::memcpy(&firstTwo, &value, sizeof firstTwo); // the fake keeps a parameter's first 8 bytes
  CHECK(launch.param_values[1] == firstTwo);
  unsigned colourBits = 0;
  std::memcpy(&colourBits, &colour, sizeof colourBits);
  CHECK(launch.param_values[2] == colourBits);
}
