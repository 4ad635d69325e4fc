#include "FakeDriver.h"

#include <fstream>
#include <iterator>

namespace tlc_test {

void useDevices(const char* capabilities) {
  fake_cuda_reset();
  REQUIRE(fake_cuda_set_devices(capabilities) == 0);
}

std::vector<fake_cuda_call> loggedCalls() {
  std::vector<fake_cuda_call> calls;
  fake_cuda_call call;
  for (long i = 0; fake_cuda_log_entry(i, &call); ++i)
    calls.push_back(call);
  return calls;
}

std::vector<fake_cuda_call> loggedCalls(const std::string& function) {
  std::vector<fake_cuda_call> calls;
  for (const fake_cuda_call& call : loggedCalls())
    if (function == call.function)
      calls.push_back(call);
  return calls;
}

fake_cuda_call onlyCall(const std::string& function) {
  std::vector<fake_cuda_call> calls = loggedCalls(function);
  INFO(function);
  REQUIRE(calls.size() == 1);
  return calls[0];
}

std::vector<fake_cuda_call> loggedCalls(const std::string& function, const std::string& symbol) {
  std::vector<fake_cuda_call> calls;
  for (const fake_cuda_call& call : loggedCalls(function))
    if (symbol == call.symbol)
      calls.push_back(call);
  return calls;
}

std::vector<std::string> loggedFunctions() {
  std::vector<std::string> names;
  for (const fake_cuda_call& call : loggedCalls())
    names.push_back(call.function);
  return names;
}

int countCalls(const char* function) {
  return fake_cuda_count(function);
}

CUlaunchAttributeValue launchAttribute(const fake_cuda_call& launch, CUlaunchAttributeID id) {
  for (unsigned i = 0; i < launch.attribute_count && i < FAKE_CUDA_MAX_LAUNCH_ATTRIBUTES; ++i)
    if (launch.attributes[i].id == id)
      return launch.attributes[i].value;
  FAIL("the launch has no attribute " << id);
  return {};
}

std::string moduleFile(const std::string& relative) {
  return std::string(TLC_RUNTIME_MODULES_DIR) + "/" + relative;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO(path);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void initialise() {
  REQUIRE(entryPoint<PFN_cuInit_v2000>("cuInit", 2000)(0) == CUDA_SUCCESS);
}

CUlibrary loadLibrary(const std::string& image) {
  CUlibrary library = nullptr;
  auto load = entryPoint<PFN_cuLibraryLoadData_v12000>("cuLibraryLoadData", 12000);
  REQUIRE(load(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) == CUDA_SUCCESS);
  return library;
}

CUkernel kernelIn(CUlibrary library, const char* symbol) {
  CUkernel kernel = nullptr;
  auto get = entryPoint<PFN_cuLibraryGetKernel_v12000>("cuLibraryGetKernel", 12000);
  INFO(symbol);
  REQUIRE(get(&kernel, library, symbol) == CUDA_SUCCESS);
  return kernel;
}

void usePrimaryContext(int device) {
  CUcontext primary = nullptr;
  auto retain = entryPoint<PFN_cuDevicePrimaryCtxRetain_v7000>("cuDevicePrimaryCtxRetain", 7000);
  REQUIRE(retain(&primary, device) == CUDA_SUCCESS);
  REQUIRE(fake_cuda_set_current(primary) == 0);
}

} // namespace tlc_test
