// Images with PTX: which target each device runs, PTX JIT-compiled once per process on devices
// without matching SASS, JIT failures with the JIT's own log, and TLC_ERROR_NO_BINARY only when
// nothing fits.
#include "FakeDriver.h"
#include "internal/TestModules.h"

#include <string>

using namespace tlc_test;
using tlc::runtime::lastError;

TEST_CASE("a PTX-only image is JIT-compiled on a device without SASS, once per process") {
  useDevices("9.0");
  TestModule jit("jit", "jit_ptx.fatbin", {kCompute80}, jitKernels());
  for (int i = 0; i < 3; ++i)
    REQUIRE(launchOn(jit.get(), 0) == TLC_SUCCESS);
  CHECK(countCalls("cuLibraryLoadData") == 1);
  CHECK(fake_cuda_jit_count() == 1);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 3);
  for (const fake_cuda_call& launch : launches) {
    CHECK(launch.code == FAKE_CUDA_CODE_PTX);
    CHECK(launch.sm == 80);
    CHECK(launch.param_count == 3);
  }
  CHECK(targetOf(jit.get(), 0) == "compute_80");
}

TEST_CASE("SASS serves the devices it runs on and PTX the others") {
  useDevices("9.0,8.6,10.0");
  TestModule jit("jit", "jit_sm_90a_ptx.fatbin", {kSm90a, kCompute80}, jitKernels());
  for (int device = 0; device < 3; ++device)
    REQUIRE(launchOn(jit.get(), device) == TLC_SUCCESS);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 3);
  CHECK(launches[0].code == FAKE_CUDA_CODE_SASS);
  CHECK(launches[0].sm == 90);
  CHECK(launches[1].code == FAKE_CUDA_CODE_PTX);
  CHECK(launches[2].code == FAKE_CUDA_CODE_PTX);
  CHECK(fake_cuda_jit_count() == 2); // devices 1 and 2, not 0
  CHECK(countCalls("cuLibraryLoadData") == 1);
  CHECK(targetOf(jit.get(), 0) == "sm_90a");
  CHECK(targetOf(jit.get(), 1) == "compute_80");
  CHECK(targetOf(jit.get(), 2) == "compute_80");
}

TEST_CASE("SASS is preferred to PTX of the same arch where both run") {
  useDevices("8.6");
  TestModule jit("jit", "jit_sm_80_ptx.fatbin", {kSm80, kCompute80}, jitKernels());
  REQUIRE(launchOn(jit.get(), 0) == TLC_SUCCESS);
  CHECK(onlyCall("cuLaunchKernel").code == FAKE_CUDA_CODE_SASS);
  CHECK(fake_cuda_jit_count() == 0);
  CHECK(targetOf(jit.get(), 0) == "sm_80");
}

TEST_CASE("image_target says which target a device runs without loading anything") {
  useDevices("9.0,8.6,7.5");
  TestModule jit("jit", "jit_sm_90a_ptx.fatbin", {kSm90a, kCompute80}, jitKernels());
  CHECK(targetOf(jit.get(), 0) == "sm_90a");
  CHECK(targetOf(jit.get(), 1) == "compute_80");
  CHECK(targetOf(jit.get(), 2) == "TLC_ERROR_NO_BINARY");
  CHECK_THAT(lastError(), Catch::Contains("no code for device 2") &&
                              Catch::Contains("compute capability 7.5") &&
                              Catch::Contains("sm_90a (SASS), compute_80 (PTX)") &&
                              Catch::Contains("--arch sm_75"));
  CHECK(targetOf(jit.get(), 3) == "TLC_ERROR_NO_DEVICE");
  CHECK(targetOf(jit.get(), -1) == "TLC_ERROR_NO_DEVICE");
  CHECK(tlc::runtime::imageTarget(jit.get(), 0, nullptr) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(lastError(), Catch::Contains("tlc_jit_image_target: the result pointer is NULL"));
  CHECK(countCalls("cuLibraryLoadData") == 0);
  CHECK(countCalls("cuDevicePrimaryCtxRetain") == 0);
  CHECK(fake_cuda_jit_count() == 0);
}

TEST_CASE("image_target without a driver fails as a launch would") {
  useDevices("9.0");
  fake_cuda_fail("cuInit", CUDA_ERROR_UNKNOWN, FAKE_CUDA_ALWAYS);
  TestModule jit("jit", "jit_ptx.fatbin", {kCompute80}, jitKernels());
  CHECK(targetOf(jit.get(), 0) == "TLC_ERROR_NO_DRIVER");
}

TEST_CASE("TLC_ERROR_NO_BINARY only when neither SASS nor PTX fits, saying how to rebuild") {
  useDevices("7.5,9.0");
  TestModule jit("jit", "jit_sm_90a_ptx.fatbin", {kSm90a, kCompute80}, jitKernels());
  REQUIRE(launchOn(jit.get(), 0) == TLC_ERROR_NO_BINARY);
  std::string message = lastError();
  CHECK_THAT(message, Catch::StartsWith("jit: no code for device 0 (") &&
                          Catch::Contains("compute capability 7.5): the image holds sm_90a "
                                          "(SASS), compute_80 (PTX)") &&
                          Catch::Contains("rebuild with --arch sm_75 for this device, or with a "
                                          "PTX target such as compute_75"));
  CHECK(countCalls("cuLibraryLoadData") == 0); // known before asking the driver
  CHECK(fake_cuda_primary_retains(0) == 0);
  CHECK(launchOn(jit.get(), 1) == TLC_SUCCESS); // the other device is served
}

TEST_CASE("a JIT failure returns TLC_ERROR_IMAGE with the JIT's own log and the next launch "
          "retries") {
  useDevices("8.6");
  TestModule jit("jit", "jit_ptx.fatbin", {kCompute80}, jitKernels());
  fake_cuda_fail("jit", CUDA_ERROR_INVALID_PTX, 1);
  REQUIRE(launchOn(jit.get(), 0) == TLC_ERROR_IMAGE);
  // As on an H100: the load succeeds, and the first lookup reports the JIT's failure.
  CHECK_THAT(lastError(),
             Catch::StartsWith("jit: the driver could not JIT-compile the image's PTX "
                               "(compute_80) for device 0 (") &&
                 Catch::Contains("compute capability 8.6): cuLibraryGetKernel failed: "
                                 "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)") &&
                 Catch::EndsWith("; JIT log: ptxas fatal   : " FAKE_CUDA_JIT_INJECTED));
  CHECK(fake_cuda_loaded_libraries() == 0); // unloaded again
  CHECK(fake_cuda_primary_retains(0) == 0);

  REQUIRE(launchOn(jit.get(), 0) == TLC_SUCCESS);
  CHECK(countCalls("cuLibraryLoadData") == 2);
  CHECK(fake_cuda_jit_count() == 2);
}

TEST_CASE("a JIT failure on a later device carries that JIT's log") {
  useDevices("9.0,8.6");
  TestModule jit("jit", "jit_sm_90a_ptx.fatbin", {kSm90a, kCompute80}, jitKernels());
  REQUIRE(launchOn(jit.get(), 0) == TLC_SUCCESS); // SASS: no JIT
  fake_cuda_fail("jit", CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 1);
  REQUIRE(launchOn(jit.get(), 1) == TLC_ERROR_IMAGE);
  CHECK_THAT(lastError(), Catch::Contains("could not JIT-compile the image's PTX (compute_80) for "
                                          "device 1") &&
                              Catch::Contains("cuKernelGetFunction failed: "
                                              "CUDA_ERROR_UNSUPPORTED_PTX_VERSION") &&
                              Catch::Contains("JIT log: ptxas fatal   : " FAKE_CUDA_JIT_INJECTED));
  CHECK(launchOn(jit.get(), 0) == TLC_SUCCESS); // device 0 is not affected
  CHECK(fake_cuda_primary_retains(1) == 0);
}

TEST_CASE("PTX the JIT rejects returns its message, such as an unresolved function") {
  // Relocatable PTX loaded as a whole program, as a module not marked relocatable would be.
  useDevices("8.6");
  TestModule link("link", "link_unresolved.fatbin", {kCompute80}, {kernel("link_main", "main")},
                  false);
  REQUIRE(launchOn(link.get(), 0) == TLC_ERROR_IMAGE);
  CHECK_THAT(lastError(),
             Catch::EndsWith("JIT log: ptxas fatal   : Unresolved extern function '_Z5twicei'"));
  CHECK(countCalls("cuLinkCreate") == 0);
}

TEST_CASE("a kernel only other targets hold does not stop the image from loading, and its "
          "launch says so") {
  useDevices("9.0");
  std::vector<KernelInfo> kernels = jitKernels();
  KernelInfo elsewhere = kernel("_Z13before_hopperPi", "before_hopper");
  elsewhere.targets = 1u << 1; // compute_80 only: its code is under #if __CUDA_ARCH__ < 900
  kernels.push_back(elsewhere);
  TestModule jit("jit", "jit_sm_90a_ptx.fatbin", {kSm90a, kCompute80}, kernels);
  REQUIRE(launchOn(jit.get(), 0, kJitFill) == TLC_SUCCESS);
  CHECK(launchOn(jit.get(), 0, 2) == TLC_ERROR_NO_BINARY);
  CHECK_THAT(lastError(), Catch::Contains("kernel _Z13before_hopperPi has no code for device 0") &&
                              Catch::Contains("only for other targets"));
  CHECK(loggedCalls("cuLaunchKernel").size() == 1);
}

TEST_CASE("a kernel missing from the image although its targets say it is there fails the load") {
  useDevices("9.0");
  std::vector<KernelInfo> kernels = jitKernels();
  kernels.push_back(kernel("_Z13before_hopperPi", "before_hopper"));
  TestModule jit("jit", "jit_sm_90a_ptx.fatbin", {kSm90a, kCompute80}, kernels);
  CHECK(launchOn(jit.get(), 0, kJitFill) == TLC_ERROR_IMAGE);
  CHECK_THAT(lastError(), Catch::Contains("kernel _Z13before_hopperPi is not in the device image"));
}
