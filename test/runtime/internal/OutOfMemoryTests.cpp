// Host memory running out while the runtime sets a device up: the launch fails with a message,
// and a later launch, once memory is back, sets the device up in full. This executable defines
// calloc, and that definition wins over libc's for the runtime archive linked in: it refuses the
// one allocation a test names and hands every other to libc. Under a sanitizer, which brings a
// calloc of its own, the tests say so and check nothing.
#include "Errors.h"
#include "State.h"

#include "FakeDriver.h"
#include "internal/TestModules.h"

#include <atomic>
#include <cstdlib>
#include <string>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TLC_TEST_OWN_CALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TLC_TEST_OWN_CALLOC 0
#endif
#endif
#ifndef TLC_TEST_OWN_CALLOC
#define TLC_TEST_OWN_CALLOC 1
#endif

using namespace tlc_test;
using tlc::runtime::lastError;

namespace {

// The allocation to refuse once, by element count and size; a count of 0 refuses nothing.
std::atomic<size_t> gRefusedCount{0};
std::atomic<size_t> gRefusedSize{0};

void refuseOnce(size_t count, size_t size) {
  gRefusedSize.store(size);
  gRefusedCount.store(count);
}

bool refusalPending() {
  return gRefusedCount.load() != 0;
}

struct JitModule : TestModule {
  JitModule() : TestModule("jit", "jit_sm_90a.cubin", {kSm90a}, jitKernels()) {}
};

tlc_status fill(JitModule& module) {
  tlc_config config = makeConfig<tlc_config>(1, 32);
  void* out = nullptr;
  int value = 1, n = 1;
  void* args[] = {&out, &value, &n};
  return tlc::runtime::launch(module.get(), kJitFill, &config, args);
}

} // namespace

#if TLC_TEST_OWN_CALLOC
extern "C" void* __libc_calloc(size_t count, size_t size);

extern "C" void* calloc(size_t count, size_t size) noexcept {
  size_t refused = gRefusedCount.load(std::memory_order_relaxed);
  if (refused != 0 && count == refused && size == gRefusedSize.load(std::memory_order_relaxed) &&
      gRefusedCount.compare_exchange_strong(refused, 0))
    return nullptr;
  return __libc_calloc(count, size);
}
#endif

TEST_CASE("a device whose kernel table ran out of memory gets it at the next launch") {
  if (!TLC_TEST_OWN_CALLOC) {
    WARN("skipped: a sanitizer's calloc is in use, so this test cannot refuse an allocation");
    return;
  }
  using tlc::runtime::KernelSlot;
  // The module's own table of CUkernel handles has as many entries: only the size tells the
  // device's table apart.
  static_assert(sizeof(KernelSlot) != sizeof(CUkernel));
  useDevices("9.0");
  JitModule jit;
  refuseOnce(jitKernels().size(), sizeof(KernelSlot));
  REQUIRE(fill(jit) == TLC_ERROR_DRIVER);
  CHECK(std::string(lastError()) == "jit: out of host memory");
  REQUIRE_FALSE(refusalPending());
  // The device's state was made, without its table.
  tlc::runtime::ModuleState* state = tlc::runtime::stateOf(jit.get());
  REQUIRE(state);
  REQUIRE(state->devices[0]);
  CHECK(state->devices[0]->kernels == nullptr);
  CHECK(countCalls("cuLaunchKernel") == 0);

  REQUIRE(fill(jit) == TLC_SUCCESS);
  CHECK(state->devices[0]->kernels != nullptr);
  CHECK(countCalls("cuLaunchKernel") == 1);
}
