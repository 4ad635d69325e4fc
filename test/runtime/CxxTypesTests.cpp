// NAME.h from C++ (compiled with -Werror): pointers to the CUDA toolkit's own 16-bit float and
// vector types where a launcher takes tlc's mirrors, dim3 grid and block, under the fake driver.
// The CUDA headers come first here and after NAME.h in CxxTypesOrder.cpp: either order works.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "FakeDriver.h"
#include "cxx.h"

#include <catch2/catch.hpp>

#include <type_traits>

using namespace tlc_test;

tlc_status launchMixedAfterNameH(dim3 grid, dim3 block, __half* h, const __nv_bfloat16* b);

namespace {

unsigned long long bitsOf(const void* pointer) {
  return reinterpret_cast<unsigned long long>(pointer);
}

// Whether cxx_mixed takes (config, H, B, ...): a const __half* must not go where __half* does.
template <typename H, typename B, typename = void> struct takes : std::false_type {};
template <typename H, typename B>
struct takes<H, B,
             decltype(void(cxx_mixed(std::declval<const tlc_config*>(), std::declval<H>(),
                                     std::declval<B>(), nullptr, nullptr, nullptr, 0)))>
    : std::true_type {};

} // namespace

static_assert(takes<__half*, const __nv_bfloat16*>::value, "CUDA pointers convert");
static_assert(takes<tlc_half*, __nv_bfloat16*>::value, "a non-const pointer goes to const");
static_assert(!takes<const __half*, const __nv_bfloat16*>::value, "const is kept");
static_assert(!takes<__nv_bfloat16*, const __nv_bfloat16*>::value, "bf16 is not half");
static_assert(!takes<short*, const __nv_bfloat16*>::value, "a 2-byte integer is not half");

TEST_CASE("C++ callers pass the CUDA types' pointers where launchers take tlc's mirrors") {
  useDevices("9.0");
  __half h[4];
  __nv_bfloat16 b[4];
  __half2 h2[4];
  __nv_bfloat162 b2[4];
  float4 v[4];
  tlc_config config = tlc_config_dims(dim3(2, 3), dim3(64, 2, 2));
  REQUIRE(cxx_mixed(&config, h, b, h2, b2, v, 4) == TLC_SUCCESS);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  REQUIRE(launch.param_count == 6);
  CHECK(launch.param_values[0] == bitsOf(h));
  CHECK(launch.param_values[1] == bitsOf(b));
  CHECK(launch.param_values[2] == bitsOf(h2));
  CHECK(launch.param_values[3] == bitsOf(b2));
  CHECK(launch.param_values[4] == bitsOf(v));
  CHECK(launch.param_values[5] == 4);
  CHECK((launch.grid[0] == 2 && launch.grid[1] == 3 && launch.grid[2] == 1));
  CHECK((launch.block[0] == 64 && launch.block[1] == 2 && launch.block[2] == 2));
}

TEST_CASE("C++ callers give dim3 grid and block in place of a config") {
  useDevices("9.0");
  __half h[1];
  __nv_bfloat16 b[1];
  tlc_half* mirror = reinterpret_cast<tlc_half*>(h); // tlc's own types still pass
  REQUIRE(cxx_mixed(dim3(5, 6, 7), dim3(32, 4), mirror, b, nullptr, nullptr, nullptr, 1) ==
          TLC_SUCCESS);
  REQUIRE(launchMixedAfterNameH(dim3(9), 128, h, b) == TLC_SUCCESS);
  std::vector<fake_cuda_call> launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 2);
  CHECK((launches[0].grid[0] == 5 && launches[0].grid[1] == 6 && launches[0].grid[2] == 7));
  CHECK((launches[0].block[0] == 32 && launches[0].block[1] == 4 && launches[0].block[2] == 1));
  CHECK(launches[0].param_values[0] == bitsOf(h));
  CHECK((launches[1].grid[0] == 9 && launches[1].block[0] == 128 && launches[1].block[1] == 1));
  CHECK(launches[1].param_values[1] == bitsOf(b));
}
