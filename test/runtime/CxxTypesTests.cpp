// NAME.h from C++, compiled with -Werror -pedantic -Wall -Wextra -Wshadow -Wold-style-cast
// -Wconversion (test/runtime/CMakeLists.txt): each launcher is one function, as in C, whose
// address can be taken; the launchers of namespace tlc::NAME take a launch shape as <<<...>>>
// says it ({grid, block, shared, stream}), pointers to the CUDA toolkit's own 16-bit float types
// where a launcher takes tlc's mirrors, the caller's own struct where the kernel takes one, and
// float for a __half; under the fake driver. The CUDA headers come first here and after NAME.h in
// CxxTypesOrder.cpp: either order works. A global named as a parameter and cuda_fp16.h's `half`
// are in scope before NAME.h, so that -Wshadow would see a launcher's parameter hiding them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

int n = 0; // as cxx_mixed's parameter `n`: NAME.h's definitions must not shadow it

#include "FakeDriver.h"
#include "cxx.h"
#include "cxx_params.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <type_traits>

using namespace tlc_test;

tlc_status launchMixedAfterNameH(dim3 grid, dim3 block, __half* h, const __nv_bfloat16* b);
extern "C" tlc_status launchWithParamsFromC(const void* params, const void* many, void* out);

namespace {

unsigned long long bitsOf(const void* pointer) {
  return reinterpret_cast<unsigned long long>(pointer);
}

// Whether tlc::cxx::mixed takes (launch, H, B, ...): a const __half* must not go where __half*
// does.
template <typename H, typename B, typename = void> struct takes : std::false_type {};
template <typename H, typename B>
struct takes<H, B,
             decltype(void(tlc::cxx::mixed(std::declval<const tlc_config&>(), std::declval<H>(),
                                           std::declval<B>(), nullptr, nullptr, nullptr, 0)))>
    : std::true_type {};

// Whether tlc::cxx::with_params takes P for its struct, M for its pointer to const structs and
// F for its __half.
template <typename P, typename M, typename F, typename = void>
struct takesParams : std::false_type {};
template <typename P, typename M, typename F>
struct takesParams<P, M, F,
                   decltype(void(tlc::cxx::with_params(std::declval<const tlc_config&>(),
                                                       std::declval<P>(), std::declval<M>(),
                                                       nullptr, std::declval<F>(), 1.0f, 0)))>
    : std::true_type {};

} // namespace

// One name, one function, as in C: its address is a plain function pointer.
static_assert(std::is_same<decltype(&cxx_mixed),
                           tlc_status (*)(const tlc_config*, tlc_half*, const tlc_bfloat16*,
                                          tlc_half2*, const tlc_bfloat162*, float4*, int)>::value,
              "cxx_mixed is one C function");

static_assert(takes<__half*, const __nv_bfloat16*>::value, "CUDA pointers convert");
static_assert(takes<tlc_half*, __nv_bfloat16*>::value, "a non-const pointer goes to const");
static_assert(!takes<const __half*, const __nv_bfloat16*>::value, "const is kept");
static_assert(!takes<__nv_bfloat16*, const __nv_bfloat16*>::value, "bf16 is not half");
static_assert(!takes<short*, const __nv_bfloat16*>::value, "a 2-byte integer is not half");

// 16-bit floats by value: the CUDA type and float or double, as cuda_fp16.h converts; never an
// integer's bits.
static_assert(std::is_convertible<__half, tlc_half>::value, "__half is tlc_half's bits");
static_assert(std::is_convertible<float, tlc_half>::value, "float converts to tlc_half");
static_assert(std::is_convertible<double, tlc_bfloat16>::value, "double converts to bfloat16");
static_assert(!std::is_convertible<int16_t, tlc_half>::value, "an int16_t is not a half");
static_assert(!std::is_convertible<uint16_t, tlc_bfloat16>::value, "nor a uint16_t a bfloat16");
static_assert(!std::is_convertible<int, tlc_half>::value, "nor an int");
static_assert(!std::is_convertible<__nv_bfloat16, tlc_half>::value, "bf16 is not half");
static_assert(!std::is_convertible<uint32_t, tlc_half2>::value, "nor a uint32_t a half2");

// The caller's struct, by value and through pointers (const kept); the mirror still. A type of
// its size and alignment whose fields differ is refused where it is passed
// (test/runtime/CxxRefused.cpp).
static_assert(takesParams<mylib::Params, const mylib::Params*, float>::value, "own struct");
static_assert(takesParams<cxx_mylib_Params, const cxx_mylib_Params*, __half>::value, "mirror");
static_assert(takesParams<const mylib::Params&, mylib::Params*, double>::value, "to const");
static_assert(!takesParams<float4, const mylib::Params*, float>::value, "float4 is no Params");
static_assert(!takesParams<mylib::Params, const mylib::Inner*, float>::value, "Inner* is not");
static_assert(!takesParams<mylib::Params, const mylib::Params*, short>::value, "short no half");

TEST_CASE("a C++ launcher's address can be taken: one name, one function") {
  useDevices("9.0");
  auto* launcher = &cxx_mixed;
  std::function<tlc_status(const tlc_launch&, __half*, const __nv_bfloat16*, __half2*,
                           const __nv_bfloat162*, float4*, int)>
      wrapped = tlc::cxx::mixed;
  tlc_config config = tlc_config_dims(dim3(2), dim3(32));
  REQUIRE(launcher(&config, nullptr, nullptr, nullptr, nullptr, nullptr, 1) == TLC_SUCCESS);
  REQUIRE(wrapped({4, 64}, nullptr, nullptr, nullptr, nullptr, nullptr, 1) == TLC_SUCCESS);
  std::vector<fake_cuda_call> launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 2);
  CHECK((launches[0].grid[0] == 2 && launches[0].block[0] == 32));
  CHECK((launches[1].grid[0] == 4 && launches[1].block[0] == 64));
}

TEST_CASE("C++ callers pass the CUDA types' pointers where launchers take tlc's mirrors") {
  useDevices("9.0");
  __half h[4];
  __nv_bfloat16 b[4];
  __half2 h2[4];
  __nv_bfloat162 b2[4];
  float4 v[4];
  tlc_config config = tlc_config_dims(dim3(2, 3), dim3(64, 2, 2));
  REQUIRE(tlc::cxx::mixed(config, h, b, h2, b2, v, 4) == TLC_SUCCESS);
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

TEST_CASE("C++ callers give grid, block, shared memory and stream as <<<...>>> does") {
  useDevices("9.0");
  __half h[1];
  __nv_bfloat16 b[1];
  tlc_half* mirror = reinterpret_cast<tlc_half*>(h); // tlc's own types still pass
  int blocks = 5;                                    // an int, as <<<...>>> takes it
  CUstream stream = reinterpret_cast<CUstream>(0x5000);
  REQUIRE(tlc::cxx::mixed({blocks, dim3(32, 4)}, mirror, b, nullptr, nullptr, nullptr, 1) ==
          TLC_SUCCESS);
  REQUIRE(launchMixedAfterNameH(dim3(9), 128, h, b) == TLC_SUCCESS);
  REQUIRE(tlc::cxx::mixed({dim3(1, 2, 3), 64, 4096, stream}, h, b, nullptr, nullptr, nullptr, 1) ==
          TLC_SUCCESS);
  size_t shared = 100;
  REQUIRE(tlc::cxx::mixed({1u, 32L, shared, nullptr}, h, b, nullptr, nullptr, nullptr, 1) ==
          TLC_SUCCESS);
  std::vector<fake_cuda_call> launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 4);
  CHECK((launches[0].grid[0] == 5 && launches[0].grid[1] == 1 && launches[0].grid[2] == 1));
  CHECK((launches[0].block[0] == 32 && launches[0].block[1] == 4 && launches[0].block[2] == 1));
  CHECK(launches[0].param_values[0] == bitsOf(h));
  CHECK(launches[0].shared_bytes == 0);
  CHECK(launches[0].stream == nullptr);
  CHECK((launches[1].grid[0] == 9 && launches[1].block[0] == 128 && launches[1].block[1] == 1));
  CHECK(launches[1].param_values[1] == bitsOf(b));
  CHECK((launches[2].grid[0] == 1 && launches[2].grid[1] == 2 && launches[2].grid[2] == 3));
  CHECK(launches[2].block[0] == 64);
  CHECK(launches[2].shared_bytes == 4096);
  CHECK(launches[2].stream == stream);
  CHECK(launches[3].shared_bytes == 100);
}

TEST_CASE("C++ callers pass their own struct where the kernel takes it, and float for __half") {
  useDevices("9.0");
  mylib::Params params;
  params.inner.x = 1.5f;
  params.inner.y = 7;
  params.h = __float2half(2.0f);
  params.s = 3;
  params.scale = 4.0f;
  mylib::Params many[2] = {params, params};
  mylib::Params out[2];
  REQUIRE(tlc::cxx::with_params({2, 64}, params, many, out, 1.0f, 0.5, 2) == TLC_SUCCESS);
  // The C launcher, its address and the mirror, with the CUDA types by value.
  cxx_mylib_Params mirror;
  std::memcpy(&mirror, &params, sizeof mirror);
  tlc_config config = tlc_config_dims(dim3(1), dim3(1));
  auto* launcher = &cxx_with_params;
  REQUIRE(launcher(&config, mirror, reinterpret_cast<const cxx_mylib_Params*>(many),
                   reinterpret_cast<cxx_mylib_Params*>(out), __float2half(1.0f),
                   __float2bfloat16(0.5f), 2) == TLC_SUCCESS);
  REQUIRE(launchWithParamsFromC(&params, many, out) == TLC_SUCCESS); // C99 (CHeader.c)
  std::vector<fake_cuda_call> launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 3);
  for (const fake_cuda_call& launch : launches) {
    REQUIRE(launch.param_count == 6);
    unsigned long long first8;
    std::memcpy(&first8, &params, sizeof first8); // inner.x and inner.y
    CHECK(launch.param_values[0] == first8);
    CHECK(launch.param_values[1] == bitsOf(many));
    CHECK(launch.param_values[2] == bitsOf(out));
    CHECK(launch.param_values[3] == 0x3c00); // 1.0 as cuda_fp16.h converts it
    CHECK(launch.param_values[4] == 0x3f00); // 0.5 as cuda_bf16.h converts it
    CHECK(launch.param_values[5] == 2);
  }
}
