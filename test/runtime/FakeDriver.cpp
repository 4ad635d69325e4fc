#include "FakeDriver.h"

#include <catch2/catch.hpp>

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

} // namespace tlc_test
