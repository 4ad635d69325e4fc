// Ground truth: compile the fixtures with nvcc (-dc, then a device link that keeps every kernel)
// and check that the cubin's entry symbols are exactly the extracted ones.
#include "TestSupport.h"

#include "builder/DeviceImage.h"
#include "support/Error.h"

#include <catch2/catch.hpp>

#include <set>

using namespace tlc;
using namespace tlc::test;

namespace {

// nvcc -dc each input, then -dlink -cubin with -ignore-host-info (CUDA 13 drops kernels that
// host code does not reference otherwise). Returns the cubin's path.
std::string deviceLink(const std::vector<std::string>& inputs, const std::string& dir) {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  std::vector<std::string> objects;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string object = dir + "/input" + std::to_string(i) + ".o";
    auto compiled = runCommand({toolkit->nvcc, "-dc", "-arch=sm_90a", "-I" TLC_STAGED_INCLUDE_DIR,
                                inputs[i], "-o", object});
    REQUIRE_EXPECTED(compiled);
    INFO(compiled->output);
    REQUIRE(compiled->exitCode == 0);
    objects.push_back(object);
  }
  std::string cubin = dir + "/module.cubin";
  std::vector<std::string> link = {toolkit->nvcc,  "-dlink",   "-cubin",
                                   "-arch=sm_90a", "-Xnvlink", "-ignore-host-info",
                                   "-o",           cubin};
  link.insert(link.end(), objects.begin(), objects.end());
  auto linked = runCommand(link);
  REQUIRE_EXPECTED(linked);
  INFO(linked->output);
  REQUIRE(linked->exitCode == 0);
  return cubin;
}

void checkAgainstCubin(const std::vector<std::string>& inputs, const std::string& scratch) {
  Analysis analysis = analyzeOk(inputs);
  auto image = readCubinFile(deviceLink(inputs, scratchDir(scratch)));
  REQUIRE_EXPECTED(image);
  CHECK(image->sm == 90);

  std::set<std::string> extracted, inImage;
  std::set<std::string> extractedWeak, imageWeak;
  for (const Kernel& kernel : analysis.module.kernels) {
    extracted.insert(kernel.symbol);
    if (kernel.weak)
      extractedWeak.insert(kernel.symbol);
  }
  for (const ImageEntry& entry : image->entries) {
    inImage.insert(entry.symbol);
    if (entry.weak)
      imageWeak.insert(entry.symbol);
  }
  CHECK(extracted == inImage);
  // What tlc calls weak (inline, instantiations) is what the device linker binds WEAK.
  CHECK(extractedWeak == imageWeak);
}

} // namespace

TEST_CASE("extracted symbols equal the cubin's entries: every shape", "[ground-truth]") {
  checkAgainstCubin({fixture("shapes/shapes.cu"), fixture("shapes/host_main.cu")}, "gt-shapes");
}

TEST_CASE("extracted symbols equal the cubin's entries: shared header, two files",
          "[ground-truth]") {
  checkAgainstCubin({fixture("module/a.cu"), fixture("module/b.cu")}, "gt-module");
}
