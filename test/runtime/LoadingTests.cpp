// Loading: lazy start, per-device state and contexts, unload, threads, multi-arch images,
// external images and get_function.
#include "FakeDriver.h"

#include "basic.h"
#include "external.h"
#include "multi.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <set>
#include <string>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

using namespace tlc_test;

namespace {

// Launches basic's `scale` (the simplest to call) on `device`.
tlc_status launchScale(int device, unsigned grid = 4) {
  tlc_config config = makeConfig<tlc_config>(grid, 128, device);
  return basic_scale(&config, nullptr, 2.0f, 512);
}

std::set<std::string> symbolsLookedUp() {
  std::set<std::string> symbols;
  for (const fake_cuda_call& call : loggedCalls("cuLibraryGetKernel"))
    symbols.insert(call.symbol);
  return symbols;
}

// basic.cu's kernels as nvcc names them.
std::set<std::string> basicSymbols() {
  return {"_Z4vaddPKfS0_Pfi", "_Z5scalePffi", "_Z5stagePKfPfi", "_Z9clusteredPf"};
}

} // namespace

TEST_CASE("nothing calls the driver before the first launch") {
  useDevices("9.0");
  int kernel = -1;
  CHECK(tlc_basic_kernel_count() == TLC_BASIC_KERNELS);
  CHECK(std::string(tlc_basic_kernel_name(TLC_BASIC_KERNEL_vadd)) == "_Z4vaddPKfS0_Pfi");
  CHECK(tlc_basic_find_kernel("vadd", &kernel) == TLC_SUCCESS);
  CHECK(std::string(tlc_basic_status_string(TLC_ERROR_IMAGE)) == "TLC_ERROR_IMAGE");
  CHECK(std::string(tlc_basic_last_error()).empty());
  CHECK(tlc_basic_set_image_path(nullptr) == TLC_SUCCESS);
  CHECK(tlc_basic_unload() == TLC_SUCCESS);
  REQUIRE(fake_cuda_log_size() == 0);

  REQUIRE(launchScale(0) == TLC_SUCCESS);
  CHECK(countCalls("cuInit") == 1);
  CHECK(countCalls("cuLibraryLoadData") == 1);
  CHECK(countCalls("cuLaunchKernel") == 1);
}

TEST_CASE("the image is loaded once and each kernel looked up once, however many launches") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(4, 64);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(basic_vadd(&config, nullptr, nullptr, nullptr, 0) == TLC_SUCCESS);
    REQUIRE(basic_scale(&config, nullptr, 1.0f, 0) == TLC_SUCCESS);
    REQUIRE(basic_stage(&config, nullptr, nullptr, 0) == TLC_SUCCESS);
  }
  CHECK(countCalls("cuLaunchKernel") == 9);
  CHECK(countCalls("cuInit") == 1);
  CHECK(countCalls("cuLibraryLoadData") == 1);
  CHECK(countCalls("cuLibraryGetKernel") == TLC_BASIC_KERNELS);
  CHECK(symbolsLookedUp() == basicSymbols());
  CHECK(countCalls("cuDevicePrimaryCtxRetain") == 1);
  // Each kernel's function in the primary context is resolved once: the first kernel when the
  // device is set up, the others at their first launch.
  std::set<std::string> resolved;
  for (const fake_cuda_call& call : loggedCalls("cuKernelGetFunction"))
    CHECK(resolved.insert(call.symbol).second);
  CHECK(resolved == std::set<std::string>{tlc_basic_kernel_name(0),
                                          tlc_basic_kernel_name(TLC_BASIC_KERNEL_vadd),
                                          tlc_basic_kernel_name(TLC_BASIC_KERNEL_scale),
                                          tlc_basic_kernel_name(TLC_BASIC_KERNEL_stage)});
  for (const fake_cuda_call& launch : loggedCalls("cuLaunchKernel"))
    CHECK(launch.handle != nullptr);
  std::set<std::string> entryPoints;
  for (const fake_cuda_call& call : loggedCalls("cuGetProcAddress"))
    CHECK(entryPoints.insert(call.symbol).second); // each asked for once
}

TEST_CASE("tlc_NAME_load prepares a device without launching") {
  useDevices("9.0");
  REQUIRE(tlc_basic_load(0) == TLC_SUCCESS);
  CHECK(countCalls("cuLibraryLoadData") == 1);
  CHECK(fake_cuda_primary_retains(0) == 1);
  CHECK(fake_cuda_chosen_sm(0) == 90);
  CHECK(countCalls("cuLaunchKernel") == 0);
  CHECK(fake_cuda_current_context() == nullptr);

  fake_cuda_clear_log();
  REQUIRE(tlc_basic_load(0) == TLC_SUCCESS);
  REQUIRE(launchScale(0) == TLC_SUCCESS);
  CHECK(loggedFunctions() == std::vector<std::string>{"cuCtxGetCurrent", "cuCtxPushCurrent",
                                                      "cuKernelGetFunction", "cuLaunchKernel",
                                                      "cuCtxPopCurrent"});
  fake_cuda_clear_log();
  REQUIRE(launchScale(0) == TLC_SUCCESS); // the function is known now: no lookup at all
  CHECK(loggedFunctions() == std::vector<std::string>{"cuCtxGetCurrent", "cuCtxPushCurrent",
                                                      "cuLaunchKernel", "cuCtxPopCurrent"});
}

TEST_CASE("a launch on device 1 retains device 1's primary context only") {
  useDevices("9.0,9.0");
  REQUIRE(launchScale(1) == TLC_SUCCESS);
  CHECK(fake_cuda_primary_retains(1) == 1);
  CHECK(fake_cuda_primary_retains(0) == 0);
  for (const char* perDevice : {"cuDeviceGet", "cuDeviceGetAttribute", "cuDevicePrimaryCtxRetain"})
    for (const fake_cuda_call& call : loggedCalls(perDevice))
      CHECK(call.device == 1);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].device == 1);
  CHECK(launches[0].context == fake_cuda_primary_context(1));
}

TEST_CASE("a launch with no current context pushes the primary context and pops it after") {
  useDevices("9.0");
  REQUIRE(fake_cuda_current_context() == nullptr);
  REQUIRE(launchScale(0) == TLC_SUCCESS);
  CHECK(fake_cuda_current_context() == nullptr);
  CHECK(fake_cuda_context_depth() == 0);

  std::vector<fake_cuda_call> calls = loggedCalls();
  size_t launch = 0;
  while (launch < calls.size() && std::string(calls[launch].function) != "cuLaunchKernel")
    ++launch;
  REQUIRE(launch > 0);
  REQUIRE(launch + 1 < calls.size());
  CHECK(std::string(calls[launch].function) == "cuLaunchKernel");
  CHECK(calls[launch].context == fake_cuda_primary_context(0));
  size_t push = launch - 1; // the kernel's function may be resolved between push and launch
  if (std::string(calls[push].function) == "cuKernelGetFunction")
    --push;
  CHECK(std::string(calls[push].function) == "cuCtxPushCurrent");
  CHECK(calls[push].handle == fake_cuda_primary_context(0));
  CHECK(std::string(calls[launch + 1].function) == "cuCtxPopCurrent");
  CHECK(calls[launch + 1].handle == fake_cuda_primary_context(0));
}

TEST_CASE("a launch in the caller's own context on the device uses it as is") {
  useDevices("9.0");
  CUcontext own = fake_cuda_create_context(0);
  REQUIRE(own != nullptr);
  REQUIRE(fake_cuda_set_current(own) == 0);

  REQUIRE(launchScale(0) == TLC_SUCCESS); // the first launch also sets the device up
  CHECK(fake_cuda_current_context() == own);
  fake_cuda_clear_log();
  REQUIRE(launchScale(0) == TLC_SUCCESS);
  CHECK(countCalls("cuCtxPushCurrent") == 0);
  CHECK(countCalls("cuCtxPopCurrent") == 0);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].context == own);
  CHECK(fake_cuda_current_context() == own);
  CHECK(fake_cuda_context_depth() == 1);
}

TEST_CASE("a launch on another device than the caller's context leaves that context current") {
  useDevices("9.0,9.0");
  CUcontext own = fake_cuda_create_context(1);
  REQUIRE(fake_cuda_set_current(own) == 0);
  REQUIRE(launchScale(0) == TLC_SUCCESS);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].device == 0);
  CHECK(launches[0].context == fake_cuda_primary_context(0));
  CHECK(fake_cuda_current_context() == own);
  CHECK(fake_cuda_context_depth() == 1);
}

TEST_CASE("unload releases every primary context and the library and the next launch reloads") {
  useDevices("9.0,9.0");
  REQUIRE(launchScale(0) == TLC_SUCCESS);
  REQUIRE(launchScale(1) == TLC_SUCCESS);
  REQUIRE(fake_cuda_primary_retains(0) == 1);
  REQUIRE(fake_cuda_primary_retains(1) == 1);
  REQUIRE(fake_cuda_loaded_libraries() == 1);

  REQUIRE(tlc_basic_unload() == TLC_SUCCESS);
  CHECK(fake_cuda_primary_retains(0) == 0);
  CHECK(fake_cuda_primary_retains(1) == 0);
  CHECK(fake_cuda_loaded_libraries() == 0);
  CHECK(countCalls("cuDevicePrimaryCtxRelease") == 2);
  CHECK(countCalls("cuLibraryUnload") == 1);

  long logged = fake_cuda_log_size();
  REQUIRE(tlc_basic_unload() == TLC_SUCCESS); // nothing left to release
  CHECK(fake_cuda_log_size() == logged);

  REQUIRE(launchScale(1) == TLC_SUCCESS);
  CHECK(countCalls("cuLibraryLoadData") == 2);
  CHECK(countCalls("cuLibraryGetKernel") == 2 * TLC_BASIC_KERNELS);
  CHECK(fake_cuda_loaded_libraries() == 1);
  CHECK(fake_cuda_primary_retains(1) == 1);
  CHECK(fake_cuda_primary_retains(0) == 0);
  CHECK(countCalls("cuInit") == 1); // the driver stays loaded
}

TEST_CASE("32 threads launching at once all succeed and share one set-up") {
  useDevices("9.0,9.0");
  constexpr int kThreads = 32;
  std::atomic<int> waiting{kThreads};
  std::vector<tlc_status> statuses(kThreads, TLC_ERROR_DRIVER);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      --waiting;
      while (waiting.load() > 0)
        std::this_thread::yield(); // start together
      statuses[i] = launchScale(i % 2);
    });
  for (std::thread& thread : threads)
    thread.join();

  for (int i = 0; i < kThreads; ++i)
    CHECK(statuses[i] == TLC_SUCCESS);
  CHECK(countCalls("cuInit") == 1);
  CHECK(countCalls("cuLibraryLoadData") == 1);
  CHECK(countCalls("cuLibraryGetKernel") == TLC_BASIC_KERNELS);
  CHECK(countCalls("cuDevicePrimaryCtxRetain") == 2);
  CHECK(fake_cuda_primary_retains(0) == 1);
  CHECK(fake_cuda_primary_retains(1) == 1);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == kThreads);
  int onDevice[2] = {0, 0};
  for (const fake_cuda_call& launch : launches) {
    REQUIRE(launch.result == CUDA_SUCCESS);
    REQUIRE((launch.device == 0 || launch.device == 1));
    CHECK(launch.context == fake_cuda_primary_context(launch.device));
    ++onDevice[launch.device];
  }
  CHECK(onDevice[0] == kThreads / 2);
  CHECK(onDevice[1] == kThreads / 2);
  CHECK(countCalls("cuCtxPushCurrent") == countCalls("cuCtxPopCurrent"));
}

TEST_CASE("a multi-arch image serves each device with the image the driver picks") {
  useDevices("9.0,8.6");
  tlc_config config = makeConfig<tlc_config>(2, 32, 0);
  REQUIRE(multi_fill(&config, nullptr, 1.0f, 64) == TLC_SUCCESS);
  config.device = 1;
  REQUIRE(multi_fill(&config, nullptr, 1.0f, 64) == TLC_SUCCESS);

  auto loads = loggedCalls("cuLibraryLoadData");
  REQUIRE(loads.size() == 1);
  REQUIRE(loads[0].image_count == 2);
  CHECK(std::set<int>{loads[0].image_sms[0], loads[0].image_sms[1]} == std::set<int>{80, 90});
  CHECK(fake_cuda_chosen_sm(0) == 90);
  CHECK(fake_cuda_chosen_sm(1) == 80);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].sm == 90);
  CHECK(launches[1].sm == 80);
}

TEST_CASE("a device no image can serve fails with TLC_ERROR_NO_BINARY naming its capability") {
  useDevices("9.0,10.0");
  tlc_config config = makeConfig<tlc_config>(2, 32, 1);
  REQUIRE(multi_fill(&config, nullptr, 1.0f, 64) == TLC_ERROR_NO_BINARY);
  std::string message = tlc_multi_last_error();
  CHECK_THAT(message, Catch::Contains("device 1") && Catch::Contains("compute capability 10.0") &&
                          Catch::Contains("sm_80 (SASS), sm_90a (SASS)"));
  CHECK(fake_cuda_primary_retains(1) == 0); // given back
  CHECK(countCalls("cuLaunchKernel") == 0);

  config.device = 0;
  CHECK(multi_fill(&config, nullptr, 1.0f, 64) == TLC_SUCCESS);
}

TEST_CASE("an sm_90a image cannot serve a device of compute capability 8.6") {
  useDevices("8.6");
  REQUIRE(launchScale(0) == TLC_ERROR_NO_BINARY);
  CHECK_THAT(tlc_basic_last_error(), Catch::Contains("compute capability 8.6"));
}

TEST_CASE("an external image is read from beside the library") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(1, 32);
  REQUIRE(external_copy(&config, nullptr, nullptr, 32) == TLC_SUCCESS);
  auto loads = loggedCalls("cuLibraryLoadData");
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].image_count == 1);
  CHECK(loads[0].image_sms[0] == 90);
}

TEST_CASE("set_image_path loads another image, and not while one is loaded") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(1, 32);
  // external_fat has the same kernel in a fatbin of two images: the log tells them apart.
  std::string fatbin = moduleFile("external_fat/external_fat.fatbin");
  REQUIRE(tlc_external_set_image_path(fatbin.c_str()) == TLC_SUCCESS);
  REQUIRE(external_copy(&config, nullptr, nullptr, 32) == TLC_SUCCESS);
  auto loads = loggedCalls("cuLibraryLoadData");
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].image_count == 2);

  CHECK(tlc_external_set_image_path(nullptr) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_external_last_error(), Catch::Contains("tlc_external_unload"));
  REQUIRE(tlc_external_unload() == TLC_SUCCESS);
  REQUIRE(tlc_external_set_image_path(nullptr) == TLC_SUCCESS);
  REQUIRE(external_copy(&config, nullptr, nullptr, 32) == TLC_SUCCESS);
  loads = loggedCalls("cuLibraryLoadData");
  REQUIRE(loads.size() == 2);
  CHECK(loads[1].image_count == 1); // the default image again
}

TEST_CASE("set_image_path to a missing file fails the launch with TLC_ERROR_IMAGE") {
  useDevices("9.0");
  const char* missing = "/nonexistent/tlc-runtime-test/external.cubin";
  REQUIRE(tlc_external_set_image_path(missing) == TLC_SUCCESS);
  tlc_config config = makeConfig<tlc_config>(1, 32);
  REQUIRE(external_copy(&config, nullptr, nullptr, 32) == TLC_ERROR_IMAGE);
  CHECK_THAT(tlc_external_last_error(), Catch::Contains(missing));
  CHECK(countCalls("cuLibraryLoadData") == 0);

  REQUIRE(tlc_external_set_image_path(nullptr) == TLC_SUCCESS);
  CHECK(external_copy(&config, nullptr, nullptr, 32) == TLC_SUCCESS);
}

TEST_CASE("set_image_path to a FIFO, a device or a folder fails without waiting or reading it") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(1, 32);
  // A FIFO nobody writes to: a blocking open would stop the launch for ever.
  std::string fifo = moduleFile("image-fifo");
  ::unlink(fifo.c_str()); // a failed run's
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::pair<std::string, const char*> refused[] = {
      {fifo, "a FIFO, not a regular file"},
      {"/dev/zero", "a device, not a regular file"}, // read, it would never end
      {moduleFile(""), "a directory, not a regular file"},
      {"/dev/null", "a device, not a regular file"},
  };
  for (const auto& [path, why] : refused) {
    INFO(path);
    REQUIRE(tlc_external_set_image_path(path.c_str()) == TLC_SUCCESS);
    CHECK(external_copy(&config, nullptr, nullptr, 32) == TLC_ERROR_IMAGE);
    CHECK_THAT(tlc_external_last_error(), Catch::Contains(path) && Catch::Contains(why));
  }
  ::unlink(fifo.c_str());
  CHECK(countCalls("cuLibraryLoadData") == 0);

  std::string empty = moduleFile("image-empty");
  std::FILE* file = std::fopen(empty.c_str(), "w");
  REQUIRE(file);
  std::fclose(file);
  REQUIRE(tlc_external_set_image_path(empty.c_str()) == TLC_SUCCESS);
  CHECK(external_copy(&config, nullptr, nullptr, 32) == TLC_ERROR_IMAGE);
  CHECK_THAT(tlc_external_last_error(), Catch::Contains(empty + " is empty"));
  // Larger than any image (a sparse file: nothing is written): refused before it is read.
  REQUIRE(::truncate(empty.c_str(), (4ll << 30) + 1) == 0);
  CHECK(external_copy(&config, nullptr, nullptr, 32) == TLC_ERROR_IMAGE);
  CHECK_THAT(tlc_external_last_error(), Catch::Contains("4294967297 bytes, more than the"));
  ::unlink(empty.c_str());

  REQUIRE(tlc_external_set_image_path(nullptr) == TLC_SUCCESS);
  CHECK(external_copy(&config, nullptr, nullptr, 32) == TLC_SUCCESS);
}

TEST_CASE("an image without the module's kernels fails with TLC_ERROR_IMAGE and is unloaded") {
  useDevices("9.0");
  std::string other = moduleFile("external/external.cubin");
  REQUIRE(tlc_basic_set_image_path(other.c_str()) == TLC_SUCCESS);
  REQUIRE(launchScale(0) == TLC_ERROR_IMAGE);
  CHECK_THAT(tlc_basic_last_error(),
             Catch::Contains("is not in the device image") && Catch::Contains(other));
  CHECK(countCalls("cuLibraryUnload") == 1);
  CHECK(fake_cuda_loaded_libraries() == 0);
  CHECK(fake_cuda_primary_retains(0) == 0); // retained for the load, released after it failed
}

TEST_CASE("get_function gives the kernel's function in the device's primary context") {
  useDevices("9.0,9.0");
  CUfunction function = nullptr;
  REQUIRE(tlc_basic_get_function(TLC_BASIC_KERNEL_stage, 1, &function) == TLC_SUCCESS);
  REQUIRE(function != nullptr);
  std::vector<fake_cuda_call> calls;
  for (const fake_cuda_call& call : loggedCalls("cuKernelGetFunction"))
    if (std::string(call.symbol) == tlc_basic_kernel_name(TLC_BASIC_KERNEL_stage))
      calls.push_back(call);
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].handle == function);
  CHECK(std::string(calls[0].symbol) == tlc_basic_kernel_name(TLC_BASIC_KERNEL_stage));
  CHECK(calls[0].context == fake_cuda_primary_context(1));
  CHECK(fake_cuda_current_context() == nullptr);

  CUfunction again = nullptr, onDevice0 = nullptr;
  REQUIRE(tlc_basic_get_function(TLC_BASIC_KERNEL_stage, 1, &again) == TLC_SUCCESS);
  CHECK(again == function);
  REQUIRE(tlc_basic_get_function(TLC_BASIC_KERNEL_stage, 0, &onDevice0) == TLC_SUCCESS);
  CHECK(onDevice0 != function);
}

TEST_CASE("get_function rejects a bad kernel, result pointer or device") {
  useDevices("9.0");
  CUfunction function = nullptr;
  CHECK(tlc_basic_get_function(TLC_BASIC_KERNELS, 0, &function) == TLC_ERROR_INVALID_VALUE);
  CHECK(tlc_basic_get_function(-1, 0, &function) == TLC_ERROR_INVALID_VALUE);
  CHECK(tlc_basic_get_function(TLC_BASIC_KERNEL_vadd, 0, nullptr) == TLC_ERROR_INVALID_VALUE);
  CHECK(tlc_basic_get_function(TLC_BASIC_KERNEL_vadd, 1, &function) == TLC_ERROR_NO_DEVICE);
  CHECK(function == nullptr);
  CHECK(countCalls("cuKernelGetFunction") == 0);
}
