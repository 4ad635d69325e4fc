// Relocatable modules on a device that needs PTX: the runtime links the image's relocatable PTX
// entries for the device (cuLink*) and loads the result; what a failed link says; and devices
// the linked image cannot serve.
#include "FakeDriver.h"
#include "internal/TestModules.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tlc_test;
using tlc::runtime::lastError;

namespace {

constexpr int kLinkMain = 0;
constexpr int kLinkSide = 1;

std::vector<KernelInfo> linkKernels() {
  return {kernel("link_main", "main"), kernel("link_side", "side")};
}

// link.fatbin: device-linked sm_90a SASS, and compute_80 PTX in one relocatable entry per input.
struct LinkModule : TestModule {
  LinkModule() : TestModule("link", "link.fatbin", {kSm90a, kCompute80}, linkKernels(), true) {}
};

} // namespace

TEST_CASE("a relocatable module's PTX is linked for a device without SASS, loaded and launched") {
  useDevices("8.6");
  LinkModule link;
  REQUIRE(launchOn(link.get(), 0, kLinkMain) == TLC_SUCCESS);
  REQUIRE(launchOn(link.get(), 0, kLinkSide) == TLC_SUCCESS);
  CHECK(countCalls("cuLinkCreate") == 1);
  auto added = loggedCalls("cuLinkAddData");
  REQUIRE(added.size() == 2); // one relocatable PTX entry per input, in the image's order
  CHECK(std::string(added[0].symbol) == "link.compute_80.1.ptx");
  CHECK(std::string(added[1].symbol) == "link.compute_80.2.ptx");
  CHECK(added[0].value == CU_JIT_INPUT_PTX);
  CHECK(onlyCall("cuLinkComplete").result == CUDA_SUCCESS);
  CHECK(onlyCall("cuLinkDestroy").result == CUDA_SUCCESS);
  fake_cuda_call load = onlyCall("cuLibraryLoadData");
  REQUIRE(load.image_count == 1);
  CHECK(load.image_codes[0] == FAKE_CUDA_CODE_LINKED);
  CHECK(load.image_sms[0] == 86);
  for (const fake_cuda_call& launch : loggedCalls("cuLaunchKernel")) {
    CHECK(launch.code == FAKE_CUDA_CODE_LINKED);
    CHECK(launch.param_count == 2);
  }
  CHECK(targetOf(link.get(), 0) == "compute_80");
}

TEST_CASE("a relocatable module's image read from a file is linked the same way") {
  useDevices("8.6");
  LinkModule link;
  REQUIRE(tlc::runtime::setImagePath(link.get(), imagePath("link.fatbin").c_str()) == TLC_SUCCESS);
  REQUIRE(launchOn(link.get(), 0) == TLC_SUCCESS);
  CHECK(countCalls("cuLinkAddData") == 2);
  CHECK(onlyCall("cuLibraryLoadData").image_codes[0] == FAKE_CUDA_CODE_LINKED);
}

TEST_CASE("a relocatable module's SASS is loaded as it is where it runs") {
  useDevices("9.0");
  LinkModule link;
  REQUIRE(launchOn(link.get(), 0) == TLC_SUCCESS);
  CHECK(countCalls("cuLinkCreate") == 0);
  CHECK(onlyCall("cuLibraryLoadData").image_count == 3);
  CHECK(onlyCall("cuLaunchKernel").code == FAKE_CUDA_CODE_SASS);
}

TEST_CASE("an unresolved function fails the link with TLC_ERROR_IMAGE and the linker's log") {
  useDevices("8.6");
  TestModule link("link", "link_unresolved.fatbin", {kCompute80}, {kernel("link_main", "main")},
                  true);
  REQUIRE(launchOn(link.get(), 0) == TLC_ERROR_IMAGE);
  CHECK_THAT(
      lastError(),
      Catch::StartsWith("link: cannot link the relocatable PTX (compute_80) for device 0 (") &&
          Catch::Contains("compute capability 8.6): cuLinkComplete failed: "
                          "CUDA_ERROR_UNKNOWN (unknown error); JIT log: error   : "
                          "Undefined reference to '_Z5twicei' in 'link.compute_80.1.ptx'"));
  CHECK(countCalls("cuLinkDestroy") == 1);
  CHECK(countCalls("cuLibraryLoadData") == 0);
  CHECK(fake_cuda_primary_retains(0) == 0);
  REQUIRE(launchOn(link.get(), 0) == TLC_ERROR_IMAGE); // tried again, as any failed load
  CHECK(countCalls("cuLinkCreate") == 2);
}

TEST_CASE("a dynamic-parallelism module's PTX fallback is refused with TLC_ERROR_NO_BINARY") {
  useDevices("8.6");
  TestModule dynamic("dynamic", "dynamic.fatbin", {kCompute80},
                     {kernel("dynamic_parent", "parent"), kernel("dynamic_child", "child")}, true);
  REQUIRE(launchOn(dynamic.get(), 0) == TLC_ERROR_NO_BINARY);
  CHECK_THAT(lastError(),
             Catch::StartsWith("dynamic: device 0 (") &&
                 Catch::Contains("the PTX fallback of a dynamic-parallelism module is not "
                                 "supported") &&
                 Catch::Contains("libcudadevrt") && Catch::Contains("--arch sm_86") &&
                 Catch::Contains("JIT log: error   : Undefined reference to "
                                 "'__cudaCDP2GetParameterBufferV2'"));
  CHECK(countCalls("cuLibraryLoadData") == 0);
}

TEST_CASE("a JIT failure while adding PTX to the link carries its log") {
  useDevices("8.6");
  LinkModule link;
  fake_cuda_fail("jit", CUDA_ERROR_INVALID_PTX, 1);
  REQUIRE(launchOn(link.get(), 0) == TLC_ERROR_IMAGE);
  CHECK_THAT(lastError(),
             Catch::Contains("cannot link the relocatable PTX (compute_80) for device 0") &&
                 Catch::Contains("cuLinkAddData failed: CUDA_ERROR_INVALID_PTX") &&
                 Catch::EndsWith("JIT log: ptxas fatal   : " FAKE_CUDA_JIT_INJECTED));
  CHECK(countCalls("cuLinkDestroy") == 1);
}

TEST_CASE("a failing cuLinkCreate fails with TLC_ERROR_DRIVER naming it") {
  useDevices("8.6");
  LinkModule link;
  fake_cuda_fail("cuLinkCreate", CUDA_ERROR_OUT_OF_MEMORY, 1);
  REQUIRE(launchOn(link.get(), 0) == TLC_ERROR_DRIVER);
  CHECK_THAT(lastError(),
             Catch::Equals("link: cuLinkCreate failed on device 0: CUDA_ERROR_OUT_OF_MEMORY (out "
                           "of memory)"));
  CHECK(countCalls("cuLinkDestroy") == 0);
}

// Each TEST_CASE runs in a process of its own (the runtime opens the driver once): no SECTIONs.
TEST_CASE("compressed relocatable PTX is a clear TLC_ERROR_IMAGE") {
  useDevices("8.6");
  TestModule link("link", "link_compressed.fatbin", {kCompute80}, linkKernels(), true);
  REQUIRE(launchOn(link.get(), 0) == TLC_ERROR_IMAGE);
  CHECK_THAT(lastError(), Catch::Contains("its PTX entry at offset 16 is compressed") &&
                              Catch::Contains("--compress=false"));
  CHECK(countCalls("cuLinkAddData") == 0);
  CHECK(countCalls("cuLinkDestroy") == countCalls("cuLinkCreate"));
}

TEST_CASE("a cubin holds no relocatable PTX to link") {
  useDevices("8.6");
  LinkModule link;
  REQUIRE(tlc::runtime::setImagePath(link.get(), imagePath("link_sm_90a.cubin").c_str()) ==
          TLC_SUCCESS);
  REQUIRE(launchOn(link.get(), 0) == TLC_ERROR_IMAGE);
  CHECK_THAT(lastError(), Catch::EndsWith("the image is not a fatbin, so it holds no PTX"));
  CHECK(countCalls("cuLinkCreate") == 0);
}

TEST_CASE("an image without PTX entries for the device's target has nothing to link") {
  useDevices("8.6");
  // Descriptor and image disagree: the image holds compute_80 PTX, the module says compute_75.
  constexpr ImageTarget compute75 = {"compute_75", 75, 0, true};
  TestModule link("link", "link.fatbin", {compute75}, linkKernels(), true);
  REQUIRE(launchOn(link.get(), 0) == TLC_ERROR_IMAGE);
  CHECK_THAT(lastError(), Catch::EndsWith("the image holds no PTX entry for it"));
  CHECK(countCalls("cuLinkAddData") == 0);
}

TEST_CASE("a fatbin the reader does not know is a clear TLC_ERROR_IMAGE") {
  useDevices("8.6");
  std::string broken = readFile(imagePath("link.fatbin"));
  broken[4] = 7; // the container's version
  char path[] = "/tmp/tlc_link_broken_XXXXXX";
  int file = mkstemp(path);
  REQUIRE(file >= 0);
  bool written = write(file, broken.data(), broken.size()) == ssize_t(broken.size());
  close(file);
  REQUIRE(written);
  LinkModule link;
  REQUIRE(tlc::runtime::setImagePath(link.get(), path) == TLC_SUCCESS);
  tlc_status status = launchOn(link.get(), 0);
  std::remove(path);
  REQUIRE(status == TLC_ERROR_IMAGE);
  CHECK_THAT(lastError(), Catch::EndsWith("its fatbin cannot be read: unknown fatbin version 7"));
}

TEST_CASE("a later device needing another target than the linked image gets "
          "TLC_ERROR_NO_BINARY") {
  useDevices("8.6,9.0,8.9,8.0");
  LinkModule link;
  REQUIRE(launchOn(link.get(), 0) == TLC_SUCCESS); // linked for 8.6
  REQUIRE(launchOn(link.get(), 1) == TLC_ERROR_NO_BINARY);
  CHECK_THAT(lastError(),
             Catch::StartsWith("link: no code for device 1 (") &&
                 Catch::Contains("compute capability 9.0, which needs sm_90a): the module's "
                                 "relocatable PTX (compute_80) was linked for device 0 (") &&
                 Catch::Contains("compute capability 8.6) when the image was loaded, and the "
                                 "runtime links it once per process") &&
                 Catch::Contains("--arch sm_90"));
  CHECK(targetOf(link.get(), 1) == "TLC_ERROR_NO_BINARY");
  CHECK(fake_cuda_primary_retains(1) == 0);
  // The same target on a device the code linked for 8.6 runs on.
  CHECK(launchOn(link.get(), 2) == TLC_SUCCESS);
  CHECK(targetOf(link.get(), 2) == "compute_80");
  // The same target, but linked code for 8.6 does not run on 8.0.
  CHECK(launchOn(link.get(), 3) == TLC_ERROR_NO_BINARY);
  CHECK_THAT(lastError(), Catch::Contains("device 3") && Catch::Contains("which needs compute_80"));
  CHECK(countCalls("cuLinkCreate") == 1);

  // After unloading, the first device to load links for itself.
  REQUIRE(tlc::runtime::unload(link.get()) == TLC_SUCCESS);
  CHECK(launchOn(link.get(), 1) == TLC_SUCCESS);
  CHECK(countCalls("cuLinkCreate") == 1);
}

TEST_CASE("a later device needing the relocatable PTX after SASS was loaded gets "
          "TLC_ERROR_NO_BINARY") {
  useDevices("9.0,8.6");
  LinkModule link;
  REQUIRE(launchOn(link.get(), 0) == TLC_SUCCESS); // SASS
  REQUIRE(launchOn(link.get(), 1) == TLC_ERROR_NO_BINARY);
  CHECK_THAT(lastError(),
             Catch::Contains("no code for device 1") &&
                 Catch::Contains("it needs the module's relocatable PTX (compute_80) linked for "
                                 "it, but the image was loaded for device 0 (") &&
                 Catch::Contains("which runs sm_90a), and the runtime links relocatable PTX "
                                 "only for the device it first loads the image on") &&
                 Catch::Contains("--arch sm_86"));
  CHECK(countCalls("cuLinkCreate") == 0);
  CHECK(targetOf(link.get(), 1) == "TLC_ERROR_NO_BINARY");
  CHECK(targetOf(link.get(), 0) == "sm_90a");
}
