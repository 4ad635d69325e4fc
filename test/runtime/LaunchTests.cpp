// Launching: arguments and shape, dynamic shared memory, cuLaunchKernelEx attributes, clusters
// and bad configs.
#include "FakeDriver.h"

#include "basic.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>

using namespace tlc_test;

namespace {

constexpr unsigned kKiB = 1024;

tlc_status launchStage(unsigned sharedBytes, int device = 0) {
  tlc_config config = makeConfig<tlc_config>(2, 128, device);
  config.shared_bytes = sharedBytes;
  return basic_stage(&config, nullptr, nullptr, 256);
}

// The cuKernelSetAttribute calls that set `attribute`.
std::vector<fake_cuda_call> attributeSets(CUfunction_attribute attribute) {
  std::vector<fake_cuda_call> sets;
  for (const fake_cuda_call& call : loggedCalls("cuKernelSetAttribute"))
    if (call.attribute == attribute)
      sets.push_back(call);
  return sets;
}

std::vector<fake_cuda_call> sharedLimitSets() {
  return attributeSets(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
}

std::vector<fake_cuda_call> nonPortableSets() {
  return attributeSets(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
}

// The symbols nvcc gives basic.cu's kernels, written out rather than read from the library's
// own table, so a launcher wired to the wrong kernel cannot pass.
std::string symbolOf(int kernel) {
  switch (kernel) {
  case TLC_BASIC_KERNEL_vadd:
    return "_Z4vaddPKfS0_Pfi";
  case TLC_BASIC_KERNEL_scale:
    return "_Z5scalePffi";
  case TLC_BASIC_KERNEL_stage:
    return "_Z5stagePKfPfi";
  case TLC_BASIC_KERNEL_clustered:
    return "_Z9clusteredPf";
  }
  FAIL("no kernel " << kernel << " in basic.cu");
  return "";
}

unsigned long long bitsOf(float value) {
  unsigned bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

} // namespace

TEST_CASE("a plain launch passes its shape, stream and arguments to cuLaunchKernel") {
  useDevices("9.0");
  tlc_config config = {};
  config.grid[0] = 4;
  config.grid[1] = 2; // grid[2] == 0 means 1
  config.block[0] = 128;
  config.stream = reinterpret_cast<CUstream>(0x5000);
  float data[1];
  REQUIRE(basic_scale(&config, data, 2.5f, 77) == TLC_SUCCESS);

  CHECK(countCalls("cuLaunchKernelEx") == 0);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  CHECK(std::string(launch.symbol) == symbolOf(TLC_BASIC_KERNEL_scale));
  CHECK(launch.grid[0] == 4);
  CHECK(launch.grid[1] == 2);
  CHECK(launch.grid[2] == 1);
  CHECK(launch.block[0] == 128);
  CHECK(launch.block[1] == 1);
  CHECK(launch.block[2] == 1);
  CHECK(launch.shared_bytes == 0);
  CHECK(launch.stream == config.stream);
  REQUIRE(launch.param_count == 3);
  CHECK(launch.param_values[0] == reinterpret_cast<unsigned long long>(data));
  CHECK(launch.param_values[1] == bitsOf(2.5f));
  CHECK(launch.param_values[2] == 77);
}

TEST_CASE("launch_kernel launches by index and rejects a bad index") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(1, 32);
  float* x = nullptr;
  float factor = 3.0f;
  int n = 5;
  void* args[] = {&x, &factor, &n};
  REQUIRE(tlc_basic_launch_kernel(&config, TLC_BASIC_KERNEL_scale, args) == TLC_SUCCESS);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  CHECK(std::string(launch.symbol) == symbolOf(TLC_BASIC_KERNEL_scale));
  CHECK(launch.params[1] == &factor);
  CHECK(launch.param_values[2] == 5);

  CHECK(tlc_basic_launch_kernel(&config, TLC_BASIC_KERNELS, args) == TLC_ERROR_INVALID_VALUE);
  CHECK(tlc_basic_launch_kernel(&config, -1, args) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("no kernel -1"));
  CHECK(countCalls("cuLaunchKernel") == 1);
}

TEST_CASE("more dynamic shared memory than the limit raises it once per device and kernel") {
  useDevices("9.0,9.0");
  REQUIRE(launchStage(64 * kKiB) == TLC_SUCCESS);
  auto sets = sharedLimitSets();
  REQUIRE(sets.size() == 1);
  CHECK(std::string(sets[0].symbol) == symbolOf(TLC_BASIC_KERNEL_stage));
  CHECK(sets[0].device == 0);
  CHECK(sets[0].value == 64 * kKiB);

  REQUIRE(launchStage(64 * kKiB) == TLC_SUCCESS);
  REQUIRE(launchStage(10 * kKiB) == TLC_SUCCESS);
  CHECK(sharedLimitSets().size() == 1);

  REQUIRE(launchStage(100 * kKiB) == TLC_SUCCESS); // larger: raised again
  sets = sharedLimitSets();
  REQUIRE(sets.size() == 2);
  CHECK(sets[1].value == 100 * kKiB);

  REQUIRE(launchStage(64 * kKiB, 1) == TLC_SUCCESS); // another device has its own limit
  sets = sharedLimitSets();
  REQUIRE(sets.size() == 3);
  CHECK(sets[2].device == 1);
  CHECK(sets[2].value == 64 * kKiB);

  tlc_config config = makeConfig<tlc_config>(2, 128);
  config.shared_bytes = 64 * kKiB; // another kernel too
  REQUIRE(basic_vadd(&config, nullptr, nullptr, nullptr, 0) == TLC_SUCCESS);
  sets = sharedLimitSets();
  REQUIRE(sets.size() == 4);
  CHECK(std::string(sets[3].symbol) == symbolOf(TLC_BASIC_KERNEL_vadd));

  int limit = 0;
  REQUIRE(fake_cuda_kernel_attribute(symbolOf(TLC_BASIC_KERNEL_stage).c_str(), 0,
                                     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, &limit) == 0);
  CHECK(limit == 100 * kKiB);
  CHECK(countCalls("cuLaunchKernel") == 6);
}

TEST_CASE("small dynamic shared memory launches read the limit once and never raise it") {
  useDevices("9.0");
  REQUIRE(launchStage(0) == TLC_SUCCESS);
  CHECK(countCalls("cuKernelGetAttribute") == 0);
  REQUIRE(launchStage(1 * kKiB) == TLC_SUCCESS);
  CHECK(countCalls("cuKernelGetAttribute") == 1);
  REQUIRE(launchStage(2 * kKiB) == TLC_SUCCESS);
  REQUIRE(launchStage(48 * kKiB) == TLC_SUCCESS);
  CHECK(countCalls("cuKernelGetAttribute") == 1);
  CHECK(countCalls("cuKernelSetAttribute") == 0);
  CHECK(countCalls("cuLaunchKernel") == 4);
}

TEST_CASE("more dynamic shared memory than the device has fails with TLC_ERROR_INVALID_VALUE") {
  useDevices("9.0");
  REQUIRE(launchStage(300 * kKiB) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("basic_stage") &&
                                         Catch::Contains("307200 bytes of dynamic shared memory") &&
                                         Catch::Contains("CUDA_ERROR_INVALID_VALUE"));
  CHECK(countCalls("cuLaunchKernel") == 0);
}

TEST_CASE("after unload the reloaded kernels get their shared memory limit raised again") {
  useDevices("9.0");
  REQUIRE(launchStage(64 * kKiB) == TLC_SUCCESS);
  REQUIRE(tlc_basic_unload() == TLC_SUCCESS);
  REQUIRE(launchStage(64 * kKiB) == TLC_SUCCESS);
  CHECK(sharedLimitSets().size() == 2);
  CHECK(countCalls("cuLaunchKernel") == 2);
}

TEST_CASE("a cluster in the config launches with cuLaunchKernelEx and a cluster attribute") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(8, 128);
  config.cluster[0] = 4; // y and z default to 1
  config.shared_bytes = 1 * kKiB;
  config.stream = reinterpret_cast<CUstream>(0x6000);
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);

  CHECK(countCalls("cuLaunchKernel") == 0);
  fake_cuda_call launch = onlyCall("cuLaunchKernelEx");
  CHECK(std::string(launch.symbol) == symbolOf(TLC_BASIC_KERNEL_scale));
  CHECK(launch.grid[0] == 8);
  CHECK(launch.block[0] == 128);
  CHECK(launch.shared_bytes == 1 * kKiB);
  CHECK(launch.stream == config.stream);
  CHECK(launch.param_count == 3);
  REQUIRE(launch.attribute_count == 1);
  auto cluster = launchAttribute(launch, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION).clusterDim;
  CHECK(cluster.x == 4);
  CHECK(cluster.y == 1);
  CHECK(cluster.z == 1);
  CHECK(nonPortableSets().empty());
}

TEST_CASE("cooperative, programmatic dependent and L2 window launches set their attributes") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(4, 64);
  config.cooperative = 1;
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);
  config.cooperative = 0;
  config.programmatic_dependent_launch = 1;
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);
  config.programmatic_dependent_launch = 0;
  float window[16];
  config.l2_persist_base = window;
  config.l2_persist_bytes = sizeof window;
  config.l2_persist_hit_ratio = 0.75f;
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);

  CHECK(countCalls("cuLaunchKernel") == 0);
  auto launches = loggedCalls("cuLaunchKernelEx");
  REQUIRE(launches.size() == 3);
  for (const fake_cuda_call& launch : launches)
    CHECK(launch.attribute_count == 1);
  CHECK(launchAttribute(launches[0], CU_LAUNCH_ATTRIBUTE_COOPERATIVE).cooperative == 1);
  CHECK(launchAttribute(launches[1], CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
            .programmaticStreamSerializationAllowed == 1);
  CUaccessPolicyWindow policy =
      launchAttribute(launches[2], CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW).accessPolicyWindow;
  CHECK(policy.base_ptr == window);
  CHECK(policy.num_bytes == sizeof window);
  CHECK(policy.hitRatio == 0.75f);
  CHECK(policy.hitProp == CU_ACCESS_PROPERTY_PERSISTING);
  CHECK(policy.missProp == CU_ACCESS_PROPERTY_STREAMING);
}

TEST_CASE("all launch attributes of one config go to one cuLaunchKernelEx") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(4, 64);
  float window[4];
  config.cluster[0] = 2;
  config.cooperative = 1;
  config.programmatic_dependent_launch = 1;
  config.l2_persist_base = window;
  config.l2_persist_bytes = sizeof window;
  config.l2_persist_hit_ratio = 1.0f;
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);
  fake_cuda_call launch = onlyCall("cuLaunchKernelEx");
  CHECK(launch.attribute_count == 4);
  CHECK(launchAttribute(launch, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION).clusterDim.x == 2);
  CHECK(launchAttribute(launch, CU_LAUNCH_ATTRIBUTE_COOPERATIVE).cooperative == 1);
  CHECK(launchAttribute(launch, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
            .programmaticStreamSerializationAllowed == 1);
  CHECK(launchAttribute(launch, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW)
            .accessPolicyWindow.hitRatio == 1.0f);
}

TEST_CASE("clusters over 8 blocks allow non-portable sizes once per device and kernel") {
  useDevices("9.0,9.0");
  tlc_config config = makeConfig<tlc_config>(32, 64);
  config.cluster[0] = 16;
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);
  auto sets = nonPortableSets();
  REQUIRE(sets.size() == 1);
  CHECK(std::string(sets[0].symbol) == symbolOf(TLC_BASIC_KERNEL_scale));
  CHECK(sets[0].device == 0);
  CHECK(sets[0].value == 1);

  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);
  config.cluster[0] = 4;
  config.cluster[1] = 3; // 12 blocks
  config.grid[1] = 3;
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);
  CHECK(nonPortableSets().size() == 1);

  config.device = 1;
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);
  sets = nonPortableSets();
  REQUIRE(sets.size() == 2);
  CHECK(sets[1].device == 1);

  config.cluster[1] = 2; // 8 blocks: portable
  config.grid[1] = 2;
  REQUIRE(basic_vadd(&config, nullptr, nullptr, nullptr, 0) == TLC_SUCCESS);
  CHECK(nonPortableSets().size() == 2);
  CHECK(countCalls("cuLaunchKernelEx") == 5);
}

TEST_CASE("a kernel compiled with a cluster shape launches plainly when the grid fits") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(4, 32);
  REQUIRE(basic_clustered(&config, nullptr) == TLC_SUCCESS);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  CHECK(std::string(launch.symbol) == symbolOf(TLC_BASIC_KERNEL_clustered));
  CHECK(countCalls("cuLaunchKernelEx") == 0);
}

TEST_CASE("a grid that is not a multiple of the cluster fails with TLC_ERROR_INVALID_VALUE") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(5, 32);
  config.cluster[0] = 2;
  CHECK(basic_scale(&config, nullptr, 1.0f, 0) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_basic_last_error(),
             Catch::Contains("basic_scale") &&
                 Catch::Contains("the grid (5, 1, 1) is not a multiple of the cluster (2, 1, 1)"));

  // The compiled __cluster_dims__(2, 1, 1) counts too, with or without launch attributes.
  tlc_config plain = makeConfig<tlc_config>(3, 32);
  CHECK(basic_clustered(&plain, nullptr) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("basic_clustered"));
  tlc_config dependent = makeConfig<tlc_config>(3, 32);
  dependent.programmatic_dependent_launch = 1;
  CHECK(basic_clustered(&dependent, nullptr) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("not a multiple of the cluster (2, 1, 1)"));

  CHECK(countCalls("cuLaunchKernel") == 0);
  CHECK(countCalls("cuLaunchKernelEx") == 0);
}

TEST_CASE(
    "an L2 window without a base or with a bad hit ratio fails with TLC_ERROR_INVALID_VALUE") {
  useDevices("9.0");
  float window[4];
  tlc_config config = makeConfig<tlc_config>(1, 32);
  config.l2_persist_bytes = sizeof window;
  config.l2_persist_hit_ratio = 0.5f;
  CHECK(basic_scale(&config, nullptr, 1.0f, 0) == TLC_ERROR_INVALID_VALUE); // no base
  config.l2_persist_base = window;
  config.l2_persist_hit_ratio = 1.5f;
  CHECK(basic_scale(&config, nullptr, 1.0f, 0) == TLC_ERROR_INVALID_VALUE);
  config.l2_persist_hit_ratio = -0.1f;
  CHECK(basic_scale(&config, nullptr, 1.0f, 0) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("hit ratio in [0, 1]"));
  CHECK(countCalls("cuLaunchKernelEx") == 0);
}

TEST_CASE("a NULL config or an empty grid or block fails with TLC_ERROR_INVALID_VALUE") {
  useDevices("9.0");
  CHECK(basic_scale(nullptr, nullptr, 1.0f, 0) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("basic_scale: config is NULL"));
  tlc_config noGrid = makeConfig<tlc_config>(0, 32);
  CHECK(basic_scale(&noGrid, nullptr, 1.0f, 0) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("grid[0] and block[0] must be at least 1"));
  tlc_config noBlock = makeConfig<tlc_config>(1, 0);
  CHECK(basic_scale(&noBlock, nullptr, 1.0f, 0) == TLC_ERROR_INVALID_VALUE);
  CHECK(countCalls("cuLaunchKernel") == 0);
}

TEST_CASE("a device ordinal out of range fails with TLC_ERROR_NO_DEVICE") {
  useDevices("9.0,9.0");
  tlc_config config = makeConfig<tlc_config>(1, 32, 2);
  CHECK(basic_scale(&config, nullptr, 1.0f, 0) == TLC_ERROR_NO_DEVICE);
  CHECK_THAT(tlc_basic_last_error(),
             Catch::Contains("there is no CUDA device 2 (this host has 2)"));
  config.device = -1;
  CHECK(basic_scale(&config, nullptr, 1.0f, 0) == TLC_ERROR_NO_DEVICE);
  CHECK(tlc_basic_load(5) == TLC_ERROR_NO_DEVICE);
  CHECK(countCalls("cuDevicePrimaryCtxRetain") == 0);
  CHECK(countCalls("cuLaunchKernel") == 0);
}
