// Helpers for the runtime tests: the fake driver's log as C++ values, and configs.
#ifndef TLC_RUNTIME_TESTS_FAKE_DRIVER_H
#define TLC_RUNTIME_TESTS_FAKE_DRIVER_H

#include "fake_cuda.h"

#include <string>
#include <vector>

namespace tlc_test {

// Starts a test from the fake's defaults with these devices (see fake_cuda_set_devices).
void useDevices(const char* capabilities);

// The whole log, or the calls of one entry point, in order.
std::vector<fake_cuda_call> loggedCalls();
std::vector<fake_cuda_call> loggedCalls(const std::string& function);
// The calls of `function` whose symbol is `symbol`.
std::vector<fake_cuda_call> loggedCalls(const std::string& function, const std::string& symbol);
// The one call of `function` in the log; fails the test unless there is exactly one.
fake_cuda_call onlyCall(const std::string& function);
// The log's function names, in order.
std::vector<std::string> loggedFunctions();
int countCalls(const char* function);

// The launch attribute `id` of a logged cuLaunchKernelEx; fails the test if it is missing.
CUlaunchAttributeValue launchAttribute(const fake_cuda_call& launch, CUlaunchAttributeID id);

// A zero-initialised config of any module: `grid` blocks of `block` threads on `device`.
template <typename Config> Config makeConfig(unsigned grid, unsigned block, int device = 0) {
  Config config = {};
  config.grid[0] = grid;
  config.block[0] = block;
  config.device = device;
  return config;
}

// A file the launcher built, under the build's modules folder.
std::string moduleFile(const std::string& relative);

} // namespace tlc_test

#endif
