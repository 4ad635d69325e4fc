// Launch-path details of the runtime no generated module reaches directly: config.size, the L2
// persisting limit an L2 window raises, the block size named in a refused launch, and
// find_kernel's list of ambiguous matches.
#include "Errors.h"

#include "FakeDriver.h"
#include "internal/TestModules.h"

#include <string>

using namespace tlc_test;
using tlc::runtime::lastError;

namespace {

// jit.cu's kernels in sm_90a SASS, for devices of 9.0.
struct JitModule : TestModule {
  JitModule(const char* image = "jit_sm_90a.cubin", ImageTarget target = kSm90a)
      : TestModule("jit", image, {target}, jitKernels()) {}
};

tlc_status fill(JitModule& module, const tlc_config& config) {
  void* out = nullptr;
  int value = 1, n = 1;
  void* args[] = {&out, &value, &n};
  return tlc::runtime::launch(module.get(), kJitFill, &config, args);
}

// A config with an L2 window of `bytes` at hit ratio `ratio`.
tlc_config windowConfig(size_t bytes, float ratio) {
  static float window[4];
  tlc_config config = makeConfig<tlc_config>(1, 32);
  config.l2_persist_base = window;
  config.l2_persist_bytes = bytes;
  config.l2_persist_hit_ratio = ratio;
  return config;
}

std::vector<size_t> limitsSet() {
  std::vector<size_t> values;
  for (const fake_cuda_call& call : loggedCalls("cuCtxSetLimit")) {
    CHECK(call.attribute == CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
    values.push_back(static_cast<size_t>(call.value));
  }
  return values;
}

constexpr size_t kMiB = size_t(1) << 20;

} // namespace

TEST_CASE("config.size 0 or this library's size launches") {
  useDevices("9.0");
  JitModule jit;
  tlc_config config = makeConfig<tlc_config>(1, 32);
  REQUIRE(fill(jit, config) == TLC_SUCCESS);
  config.size = sizeof(tlc_config);
  REQUIRE(fill(jit, config) == TLC_SUCCESS);
  CHECK(countCalls("cuLaunchKernel") == 2);
}

TEST_CASE("config.size smaller than any tlc_config fails with TLC_ERROR_INVALID_VALUE") {
  useDevices("9.0");
  JitModule jit;
  tlc_config config = makeConfig<tlc_config>(1, 32);
  config.size = sizeof(tlc_config) - 4;
  REQUIRE(fill(jit, config) == TLC_ERROR_INVALID_VALUE);
  CHECK(std::string(lastError()) ==
        "jit_fill: config.size is " + std::to_string(sizeof(tlc_config) - 4) +
            ", smaller than any tlc_config (" + std::to_string(sizeof(tlc_config)) +
            "); set it to sizeof(tlc_config) or 0");
  CHECK(fake_cuda_log_size() == 0); // checked before the driver is touched
}

TEST_CASE("a larger config from a newer header launches only if the fields it adds are zero") {
  useDevices("9.0");
  JitModule jit;
  struct NewerConfig {
    tlc_config config;
    unsigned char added[16];
  } newer = {};
  newer.config = makeConfig<tlc_config>(1, 32);
  newer.config.size = sizeof newer;
  REQUIRE(fill(jit, newer.config) == TLC_SUCCESS);
  newer.added[3] = 1;
  REQUIRE(fill(jit, newer.config) == TLC_ERROR_INVALID_VALUE);
  CHECK(std::string(lastError()) ==
        "jit_fill: the config sets fields this library does not know (byte " +
            std::to_string(sizeof(tlc_config) + 3) + " of " + std::to_string(sizeof newer) +
            "): it was built by an older tlc than the caller's header");
  CHECK(countCalls("cuLaunchKernel") == 1);
}

TEST_CASE("an L2 window raises the persisting L2 limit to cover it and never lowers it") {
  useDevices("9.0");
  JitModule jit;
  REQUIRE(fill(jit, windowConfig(kMiB, 0.5f)) == TLC_SUCCESS);
  CHECK(limitsSet() == std::vector<size_t>{kMiB / 2});
  CHECK(onlyCall("cuCtxSetLimit").context == fake_cuda_primary_context(0));

  fake_cuda_clear_log();
  REQUIRE(fill(jit, windowConfig(kMiB, 0.5f)) == TLC_SUCCESS); // enough already
  REQUIRE(fill(jit, windowConfig(kMiB / 4, 1.0f)) == TLC_SUCCESS);
  CHECK(countCalls("cuCtxGetLimit") == 2); // one read per window launch
  CHECK(limitsSet().empty());

  REQUIRE(fill(jit, windowConfig(4 * kMiB, 1.0f)) == TLC_SUCCESS);
  CHECK(limitsSet() == std::vector<size_t>{4 * kMiB});
  // No more than the device can set aside (the fake's 9.0: 30 MiB).
  REQUIRE(fill(jit, windowConfig(64 * kMiB, 1.0f)) == TLC_SUCCESS);
  CHECK(limitsSet() == std::vector<size_t>{4 * kMiB, 30 * kMiB});
  CHECK(countCalls("cuLaunchKernelEx") == 4);
}

TEST_CASE("a limit the caller reset to give the L2 back is raised again by the next window") {
  useDevices("9.0");
  JitModule jit;
  REQUIRE(fill(jit, windowConfig(2 * kMiB, 1.0f)) == TLC_SUCCESS);
  // The reset docs/launcher-api.md describes, in the context the launches use.
  usePrimaryContext(0);
  auto setLimit = entryPoint<PFN_cuCtxSetLimit_v3010>("cuCtxSetLimit", 3010);
  REQUIRE(setLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0) == CUDA_SUCCESS);
  fake_cuda_clear_log();
  REQUIRE(fill(jit, windowConfig(2 * kMiB, 1.0f)) == TLC_SUCCESS);
  CHECK(limitsSet() == std::vector<size_t>{2 * kMiB});
}

TEST_CASE("an L2 window over the device's maximum fails with TLC_ERROR_INVALID_VALUE") {
  useDevices("9.0");
  JitModule jit;
  REQUIRE(fill(jit, windowConfig(200 * kMiB, 0.5f)) == TLC_ERROR_INVALID_VALUE);
  CHECK(std::string(lastError()) ==
        "jit_fill: an L2 persistence window of 209715200 bytes exceeds device 0's maximum of "
        "134217728 (CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE)");
  CHECK(countCalls("cuCtxSetLimit") == 0);
  CHECK(countCalls("cuLaunchKernelEx") == 0);
}

TEST_CASE("in the caller's own context the persisting limit is its own") {
  useDevices("9.0");
  JitModule jit;
  CUcontext own = fake_cuda_create_context(0);
  REQUIRE(fake_cuda_set_current(own) == 0);
  REQUIRE(fill(jit, windowConfig(kMiB, 1.0f)) == TLC_SUCCESS);
  REQUIRE(fill(jit, windowConfig(kMiB, 1.0f)) == TLC_SUCCESS);
  auto reads = loggedCalls("cuCtxGetLimit");
  REQUIRE(reads.size() == 3); // the first launch reads again under the lock before raising
  for (const fake_cuda_call& read : reads)
    CHECK(read.context == own);
  CHECK(onlyCall("cuCtxSetLimit").context == own);
  // The primary context's limit is its own: raised at its first window launch.
  REQUIRE(fake_cuda_set_current(nullptr) == 0);
  REQUIRE(fill(jit, windowConfig(kMiB, 1.0f)) == TLC_SUCCESS);
  CHECK(limitsSet() == std::vector<size_t>{kMiB, kMiB});
}

TEST_CASE("a device without persisting L2 takes the window as a hint and sets no limit") {
  useDevices("7.5");
  JitModule jit("jit_sm_75.cubin", {"sm_75", 75, 0, false});
  REQUIRE(fill(jit, windowConfig(kMiB, 1.0f)) == TLC_SUCCESS);
  CHECK(countCalls("cuCtxGetLimit") == 0);
  CHECK(countCalls("cuCtxSetLimit") == 0);
  CHECK(launchAttribute(onlyCall("cuLaunchKernelEx"), CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW)
            .accessPolicyWindow.num_bytes == kMiB);
}

TEST_CASE("a refused persisting L2 limit fails the launch with TLC_ERROR_LAUNCH naming it") {
  useDevices("9.0");
  JitModule jit;
  fake_cuda_fail("cuCtxSetLimit", CUDA_ERROR_NOT_SUPPORTED, 1);
  REQUIRE(fill(jit, windowConfig(kMiB, 1.0f)) == TLC_ERROR_LAUNCH);
  CHECK(std::string(lastError()) ==
        "jit_fill: cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE) failed for kernel jit_fill "
        "on device 0: CUDA_ERROR_NOT_SUPPORTED (operation not supported)");
  CHECK(countCalls("cuLaunchKernelEx") == 0);
  fake_cuda_clear_log();
  REQUIRE(fill(jit, windowConfig(kMiB, 1.0f)) == TLC_SUCCESS); // nothing was remembered
  CHECK(limitsSet() == std::vector<size_t>{kMiB});
}

TEST_CASE("a refused launch names a block larger than the kernel allows") {
  useDevices("9.0");
  JitModule jit;
  tlc_config config = makeConfig<tlc_config>(1, 2048);
  REQUIRE(fill(jit, config) == TLC_ERROR_LAUNCH);
  CHECK(std::string(lastError()) ==
        "jit_fill: cuLaunchKernel failed for kernel jit_fill on device 0: "
        "CUDA_ERROR_INVALID_VALUE (invalid argument); a block of 2048 threads exceeds the 1024 "
        "this kernel allows on device 0");
  config.block[0] = 32;
  config.block[1] = 16;
  config.block[2] = 4;
  config.cooperative = 1;
  REQUIRE(fill(jit, config) == TLC_ERROR_LAUNCH);
  CHECK_THAT(lastError(), Catch::Contains("cuLaunchKernelEx failed") &&
                              Catch::EndsWith("a block of 2048 threads exceeds the 1024 this "
                                              "kernel allows on device 0"));
}

TEST_CASE("a refused launch with a block that fits says nothing about the block") {
  useDevices("9.0");
  JitModule jit;
  tlc_config config = makeConfig<tlc_config>(1, 1024);
  fake_cuda_fail("cuLaunchKernel", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 1);
  REQUIRE(fill(jit, config) == TLC_ERROR_LAUNCH);
  CHECK_THAT(lastError(), Catch::EndsWith("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (too many resources "
                                          "requested for launch)"));
  // Another error is not about the block, however large: the limit is not even read.
  config.block[0] = 2048;
  fake_cuda_fail("cuLaunchKernel", CUDA_ERROR_LAUNCH_FAILED, 1);
  fake_cuda_clear_log();
  REQUIRE(fill(jit, config) == TLC_ERROR_LAUNCH);
  CHECK_THAT(lastError(), !Catch::Contains("threads exceeds"));
  CHECK(countCalls("cuKernelGetAttribute") == 0);
}

TEST_CASE("an ambiguous find_kernel lists each match as its launcher name and symbol") {
  useDevices("9.0");
  TestModule module("mod", "jit_ptx.fatbin", {kCompute80},
                    {kernel("_Z4fillPi", "fill_int"), kernel("_Z4fillPf", "fill_float"),
                     kernel("_Z5clearPi", "clear"), kernel("_Z10fill_int_2Pi", "fill_int_2")});
  int found = -1;
  REQUIRE(tlc::runtime::findKernel(module.get(), "fill", &found) == TLC_ERROR_AMBIGUOUS);
  // fill_int_2 is a numbered variant of fill_int, which also matches: left out.
  CHECK(std::string(lastError()) == "tlc_mod_find_kernel: 'fill' matches 2 kernels: "
                                    "mod_fill_int (_Z4fillPi), mod_fill_float (_Z4fillPf)");
  CHECK(found == -1);
  REQUIRE(tlc::runtime::findKernel(module.get(), "Pi", &found) == TLC_ERROR_AMBIGUOUS);
  CHECK(std::string(lastError()) ==
        "tlc_mod_find_kernel: 'Pi' matches 2 kernels: mod_fill_int (_Z4fillPi), mod_clear "
        "(_Z5clearPi)");
  CHECK(fake_cuda_log_size() == 0);
}

TEST_CASE("a long ambiguous match list is cut at the message's size") {
  useDevices("9.0");
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i)
    names.push_back("kernel_with_a_long_name_" + std::string(1, char('a' + i % 26)) +
                    std::to_string(i) + "x");
  std::vector<KernelInfo> kernels;
  for (const std::string& name : names)
    kernels.push_back(kernel(name.c_str(), name.c_str()));
  TestModule module("mod", "jit_ptx.fatbin", {kCompute80}, kernels);
  int found = -1;
  REQUIRE(tlc::runtime::findKernel(module.get(), "long_name", &found) == TLC_ERROR_AMBIGUOUS);
  std::string message = lastError();
  CHECK_THAT(message, Catch::StartsWith("tlc_mod_find_kernel: 'long_name' matches 200 kernels: "
                                        "mod_kernel_with_a_long_name_a0x "
                                        "(kernel_with_a_long_name_a0x)"));
  CHECK(message.size() == tlc::runtime::kMessageSize - 1);
}
