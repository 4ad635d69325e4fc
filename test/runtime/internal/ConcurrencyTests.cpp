// The runtime under threads (tagged [concurrency]: scripts/sanitize runs these under
// ThreadSanitizer): launches racing an unload, first launches racing each other, and what a
// launch passes through unchecked (NULL pointer arguments, the stream) decided and shown.
#include "FakeDriver.h"
#include "internal/TestModules.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

using namespace tlc_test;

namespace {

struct JitModule : TestModule {
  JitModule() : TestModule("jit", "jit_sm_90a.cubin", {kSm90a}, jitKernels()) {}
};

// Runs `body(thread)` on `count` threads at once and waits for all.
template <typename Body> void onThreads(int count, Body body) {
  std::atomic<int> waiting{count};
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t)
    threads.emplace_back([&, t] {
      waiting.fetch_sub(1);
      while (waiting.load() > 0)
        std::this_thread::yield(); // start together, so they overlap
      body(t);
    });
  for (std::thread& thread : threads)
    thread.join();
}

} // namespace

TEST_CASE("launches on several threads race unloads without a data race", "[concurrency]") {
  useDevices("9.0,9.0");
  JitModule jit;
  constexpr int kLaunchers = 4, kLaunches = 200, kUnloads = 50;
  std::atomic<int> failures{0}, done{0};
  onThreads(kLaunchers + 1, [&](int thread) {
    if (thread == kLaunchers) { // the unloader, while the others launch
      for (int i = 0; i < kUnloads && done.load() < kLaunchers; ++i)
        if (tlc::runtime::unload(jit.get()) != TLC_SUCCESS)
          failures.fetch_add(1);
      return;
    }
    for (int i = 0; i < kLaunches; ++i)
      if (launchOn(jit.get(), thread % 2) != TLC_SUCCESS)
        failures.fetch_add(1);
    done.fetch_add(1);
  });
  // Every launch found the module loaded, or loaded it again after an unload.
  CHECK(failures.load() == 0);
  CHECK(countCalls("cuLaunchKernel") == kLaunchers * kLaunches);
  CHECK(countCalls("cuLibraryLoadData") >= 1);
  CHECK(tlc::runtime::unload(jit.get()) == TLC_SUCCESS);
  // Every retain was released: none of the unloads let a context leak or go twice.
  CHECK(countCalls("cuDevicePrimaryCtxRetain") == countCalls("cuDevicePrimaryCtxRelease"));
}

TEST_CASE("first launches on several threads and devices set each device up once",
          "[concurrency]") {
  useDevices("9.0,9.0,9.0");
  JitModule jit;
  std::atomic<int> failures{0};
  onThreads(12, [&](int thread) {
    if (launchOn(jit.get(), thread % 3) != TLC_SUCCESS)
      failures.fetch_add(1);
  });
  CHECK(failures.load() == 0);
  CHECK(countCalls("cuLibraryLoadData") == 1);
  CHECK(countCalls("cuDevicePrimaryCtxRetain") == 3);
  CHECK(countCalls("cuLaunchKernel") == 12);
}

TEST_CASE("each thread's last error is its own while others fail differently", "[concurrency]") {
  useDevices("9.0");
  JitModule jit;
  std::atomic<int> wrong{0};
  onThreads(6, [&](int thread) {
    for (int i = 0; i < 50; ++i) {
      // Odd threads ask for a device that does not exist, even ones for a kernel that does not.
      tlc_config config = makeConfig<tlc_config>(1, 32);
      void* args[] = {nullptr, nullptr, nullptr};
      tlc_status status = thread % 2 ? launchOn(jit.get(), 7)
                                     : tlc::runtime::launchKernel(jit.get(), &config, 99, args);
      std::string message = tlc::runtime::lastError();
      bool own = thread % 2 ? message.find("device 7") != std::string::npos
                            : message.find("99") != std::string::npos;
      if (status == TLC_SUCCESS || !own)
        wrong.fetch_add(1);
    }
  });
  CHECK(wrong.load() == 0);
}

TEST_CASE("a NULL pointer argument is passed to the kernel as it is") {
  // Kernels may take an optional output as NULL: the launcher checks no pointer argument.
  useDevices("9.0");
  JitModule jit;
  tlc_config config = makeConfig<tlc_config>(1, 32);
  void* out = nullptr;
  int value = 3, n = 0;
  void* args[] = {&out, &value, &n};
  REQUIRE(tlc::runtime::launch(jit.get(), kJitFill, &config, args) == TLC_SUCCESS);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  CHECK(launch.param_values[0] == 0); // the NULL reached the kernel
  CHECK(launch.param_values[1] == 3);
}

TEST_CASE("a stream the driver refuses fails the launch with TLC_ERROR_LAUNCH and its error") {
  // The stream is the driver's to check (a destroyed stream, one of another context): the real
  // driver answers CUDA_ERROR_INVALID_HANDLE, which the fake is told to give here.
  useDevices("9.0");
  JitModule jit;
  tlc_config config = makeConfig<tlc_config>(1, 32);
  config.stream = reinterpret_cast<CUstream>(0xdead);
  void* out = nullptr;
  int value = 1, n = 1;
  void* args[] = {&out, &value, &n};
  REQUIRE(tlc::runtime::load(jit.get(), 0) == TLC_SUCCESS);
  fake_cuda_fail("cuLaunchKernel", CUDA_ERROR_INVALID_HANDLE, 1);
  CHECK(tlc::runtime::launch(jit.get(), kJitFill, &config, args) == TLC_ERROR_LAUNCH);
  std::string message = tlc::runtime::lastError();
  CHECK_THAT(message, Catch::Contains("cuLaunchKernel"));
  CHECK_THAT(message, Catch::Contains("CUDA_ERROR_INVALID_HANDLE"));
  CHECK(onlyCall("cuLaunchKernel").stream == config.stream); // passed as given
}
