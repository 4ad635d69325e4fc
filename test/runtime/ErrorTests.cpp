// Driver failures: each comes back as a status and a message that says what failed, and the
// runtime is left able to try again where trying again makes sense.
#include "FakeDriver.h"

#include "basic.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

using namespace tlc_test;

namespace {

tlc_status launchScale(int device = 0) {
  tlc_config config = makeConfig<tlc_config>(4, 128, device);
  return basic_scale(&config, nullptr, 2.0f, 512);
}

} // namespace

TEST_CASE("without a driver every call fails with TLC_ERROR_NO_DRIVER") {
  useDevices("9.0");
  // Read at the first launch, so setting it here, before any, is in time.
  const char* missing = "/nonexistent/tlc-runtime-test/libcuda.so.1";
  REQUIRE(setenv("TLC_TEST_LIBCUDA", missing, 1) == 0);

  REQUIRE(launchScale() == TLC_ERROR_NO_DRIVER);
  std::string message = tlc_basic_last_error();
  CHECK_THAT(message, Catch::Contains("no CUDA driver") && Catch::Contains(missing));
  CHECK(launchScale() == TLC_ERROR_NO_DRIVER); // remembered, with the same message
  CHECK(tlc_basic_last_error() == message);
  CHECK(tlc_basic_load(0) == TLC_ERROR_NO_DRIVER);
  CUfunction function = nullptr;
  CHECK(tlc_basic_get_function(TLC_BASIC_KERNEL_scale, 0, &function) == TLC_ERROR_NO_DRIVER);
  CHECK(tlc_basic_unload() == TLC_SUCCESS);
  CHECK(fake_cuda_log_size() == 0);
}

TEST_CASE("a driver lacking an entry point fails with TLC_ERROR_NO_DRIVER naming it") {
  useDevices("9.0");
  fake_cuda_hide("cuLaunchKernelEx");
  REQUIRE(launchScale() == TLC_ERROR_NO_DRIVER);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("lacks cuLaunchKernelEx (CUDA 11.6)"));
  CHECK(countCalls("cuInit") == 0);
  long logged = fake_cuda_log_size();
  CHECK(launchScale() == TLC_ERROR_NO_DRIVER); // remembered: the driver is not asked again
  CHECK(fake_cuda_log_size() == logged);
}

TEST_CASE("a failing cuInit fails with TLC_ERROR_NO_DRIVER and the driver's error") {
  useDevices("9.0");
  fake_cuda_fail("cuInit", CUDA_ERROR_UNKNOWN, FAKE_CUDA_ALWAYS);
  REQUIRE(launchScale() == TLC_ERROR_NO_DRIVER);
  CHECK_THAT(tlc_basic_last_error(),
             Catch::Contains("failed to initialise") && Catch::Contains("CUDA_ERROR_UNKNOWN"));
  CHECK(launchScale() == TLC_ERROR_NO_DRIVER);
  CHECK(countCalls("cuInit") == 1);
  CHECK(countCalls("cuLibraryLoadData") == 0);
}

TEST_CASE("a driver that finds no device fails with TLC_ERROR_NO_DEVICE") {
  useDevices("");
  REQUIRE(launchScale() == TLC_ERROR_NO_DEVICE);
  CHECK_THAT(tlc_basic_last_error(),
             Catch::Contains("found no device") && Catch::Contains("CUDA_ERROR_NO_DEVICE"));
}

TEST_CASE("a failing cuLibraryLoadData fails with TLC_ERROR_IMAGE and the next launch retries") {
  useDevices("9.0");
  fake_cuda_fail("cuLibraryLoadData", CUDA_ERROR_INVALID_IMAGE, 1);
  REQUIRE(launchScale() == TLC_ERROR_IMAGE);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("cannot load the device image (embedded)") &&
                                         Catch::Contains("CUDA_ERROR_INVALID_IMAGE"));
  CHECK(fake_cuda_primary_retains(0) == 0); // retained for the load, released after it failed

  REQUIRE(launchScale() == TLC_SUCCESS);
  CHECK(countCalls("cuLibraryLoadData") == 2);
  CHECK(fake_cuda_loaded_libraries() == 1);
}

TEST_CASE("a failing cuLibraryGetKernel fails with TLC_ERROR_IMAGE and unloads the library") {
  useDevices("9.0");
  fake_cuda_fail("cuLibraryGetKernel", CUDA_ERROR_NOT_FOUND, 1);
  REQUIRE(launchScale() == TLC_ERROR_IMAGE);
  CHECK_THAT(tlc_basic_last_error(),
             Catch::Contains(tlc_basic_kernel_name(0)) && Catch::Contains("CUDA_ERROR_NOT_FOUND"));
  CHECK(countCalls("cuLibraryUnload") == 1);
  CHECK(fake_cuda_loaded_libraries() == 0);
  REQUIRE(launchScale() == TLC_SUCCESS);
}

TEST_CASE("a failing primary context retain fails the launch and the next launch retries") {
  useDevices("9.0,9.0");
  fake_cuda_fail("cuDevicePrimaryCtxRetain", CUDA_ERROR_OUT_OF_MEMORY, 1);
  REQUIRE(launchScale(1) == TLC_ERROR_DRIVER);
  CHECK_THAT(tlc_basic_last_error(),
             Catch::Contains("cuDevicePrimaryCtxRetain failed on device 1") &&
                 Catch::Contains("CUDA_ERROR_OUT_OF_MEMORY"));
  CHECK(fake_cuda_primary_retains(1) == 0);
  CHECK(countCalls("cuLaunchKernel") == 0);

  REQUIRE(launchScale(1) == TLC_SUCCESS);
  CHECK(fake_cuda_primary_retains(1) == 1);
  CHECK(countCalls("cuLibraryLoadData") == 1); // the image stayed loaded
}

TEST_CASE("a launch the driver rejects fails with TLC_ERROR_LAUNCH and says what failed") {
  useDevices("9.0,9.0");
  REQUIRE(tlc_basic_load(1) == TLC_SUCCESS);
  fake_cuda_fail("cuLaunchKernel", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 1);
  REQUIRE(launchScale(1) == TLC_ERROR_LAUNCH);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("basic_scale") &&
                                         Catch::Contains("cuLaunchKernel failed for kernel "
                                                         "_Z5scalePffi on device 1") &&
                                         Catch::Contains("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"));
  CHECK(fake_cuda_current_context() == nullptr); // popped on the failure path too
  CHECK(countCalls("cuCtxPushCurrent") == countCalls("cuCtxPopCurrent"));

  fake_cuda_fail("cuLaunchKernelEx", CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 1);
  tlc_config config = makeConfig<tlc_config>(4, 128, 1);
  config.cooperative = 1;
  REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_ERROR_LAUNCH);
  CHECK_THAT(tlc_basic_last_error(),
             Catch::Contains("cuLaunchKernelEx failed") &&
                 Catch::Contains("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"));
  REQUIRE(launchScale(1) == TLC_SUCCESS);
}

TEST_CASE("a failing context push fails the launch with TLC_ERROR_DRIVER") {
  useDevices("9.0");
  REQUIRE(tlc_basic_load(0) == TLC_SUCCESS);
  fake_cuda_clear_log();
  fake_cuda_fail("cuCtxPushCurrent", CUDA_ERROR_INVALID_CONTEXT, 1);
  REQUIRE(launchScale() == TLC_ERROR_DRIVER);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("cuCtxPushCurrent failed") &&
                                         Catch::Contains("CUDA_ERROR_INVALID_CONTEXT"));
  CHECK(countCalls("cuLaunchKernel") == 0);
  CHECK(countCalls("cuCtxPopCurrent") == 0);
}

TEST_CASE("a failing shared memory limit read fails the launch with TLC_ERROR_DRIVER") {
  useDevices("9.0");
  fake_cuda_fail("cuKernelGetAttribute", CUDA_ERROR_INVALID_HANDLE, 1);
  tlc_config config = makeConfig<tlc_config>(1, 32);
  config.shared_bytes = 1024;
  REQUIRE(basic_stage(&config, nullptr, nullptr, 0) == TLC_ERROR_DRIVER);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("cuKernelGetAttribute failed for kernel") &&
                                         Catch::Contains("CUDA_ERROR_INVALID_HANDLE"));
  REQUIRE(basic_stage(&config, nullptr, nullptr, 0) == TLC_SUCCESS); // read again
  CHECK(countCalls("cuKernelGetAttribute") == 2);
}
