// Helpers for the runtime tests: the fake driver's log as C++ values, and configs.
#ifndef TLC_RUNTIME_TESTS_FAKE_DRIVER_H
#define TLC_RUNTIME_TESTS_FAKE_DRIVER_H

#include "fake_cuda.h"

#include <cudaTypedefs.h>

#include <catch2/catch.hpp>

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
// A file's bytes; fails the test if it cannot be read.
std::string readFile(const std::string& path);

// Calling the fake directly, as a launcher would.
// Entry point `name` at ABI `version`; fails the test if the fake does not give it.
template <typename Pfn> Pfn entryPoint(const char* name, int version) {
  void* function = nullptr;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  REQUIRE(cuGetProcAddress(name, &function, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) ==
          CUDA_SUCCESS);
  REQUIRE(found == CU_GET_PROC_ADDRESS_SUCCESS);
  return reinterpret_cast<Pfn>(function);
}
// cuInit, which must succeed.
void initialise();
// cuLibraryLoadData of `image` without options, which must succeed.
CUlibrary loadLibrary(const std::string& image);
// cuLibraryGetKernel, which must succeed.
CUkernel kernelIn(CUlibrary library, const char* symbol);
// Retains device `device`'s primary context and makes it current on this thread.
void usePrimaryContext(int device);

} // namespace tlc_test

#endif
