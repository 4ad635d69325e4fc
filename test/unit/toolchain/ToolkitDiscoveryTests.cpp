// toolchain/Toolchain: where the CUDA toolkit is looked for, in order (issue 34): --cuda-path,
// $CUDA_PATH, $CUDA_HOME, NVIDIA's CUDA wheels in tlc's own Python environment (then the active
// venv's and conda's), /usr/local/cuda. The first that is set or present decides. Fake
// environments: a prefix whose site-packages holds nvidia/cu13/bin/nvcc.
#include "toolchain/Toolchain.h"

#include "TestSupport.h"

#include "support/Files.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

using namespace tlc;
using namespace tlc::test;

namespace {

// A Python environment at `prefix` with NVIDIA's wheels unpacked for `python` ("python3.11").
std::string wheelEnvironment(const std::string& prefix, const std::string& python) {
  std::string root = prefix + "/lib/" + python + "/site-packages/nvidia/cu13";
  REQUIRE(!llvm::sys::fs::create_directories(root + "/bin"));
  REQUIRE(!writeFile(root + "/bin/nvcc", "#!/bin/sh\n"));
  REQUIRE(!llvm::sys::fs::setPermissions(root + "/bin/nvcc", llvm::sys::fs::all_all));
  return root;
}

std::vector<std::string> chosenBy(const std::vector<ToolkitCandidate>& candidates) {
  std::vector<std::string> out;
  for (const ToolkitCandidate& candidate : candidates)
    out.push_back(candidate.chosenBy);
  return out;
}

} // namespace

TEST_CASE("the toolkit is looked for in the documented order", "[toolchain]") {
  std::string dir = scratchDir("toolkit-order");
  std::string own = wheelEnvironment(dir + "/venv", "python3.11");
  std::string active = wheelEnvironment(dir + "/active", "python3.12");
  std::string conda = wheelEnvironment(dir + "/conda", "python3.10");
  std::vector<std::string> everything = {"CUDA_HOME=/opt/home", "CUDA_PATH=/opt/path",
                                         "VIRTUAL_ENV=" + dir + "/active",
                                         "CONDA_PREFIX=" + dir + "/conda"};

  auto all = toolkitCandidates("", everything, dir + "/venv");
  CHECK(chosenBy(all) ==
        std::vector<std::string>{"CUDA_PATH", "CUDA_HOME",
                                 "NVIDIA's CUDA wheels in tlc's own Python environment",
                                 "NVIDIA's CUDA wheels in $VIRTUAL_ENV",
                                 "NVIDIA's CUDA wheels in $CONDA_PREFIX", "the default"});
  CHECK(all[0].root == "/opt/path");
  CHECK(all[2].root == own);
  CHECK(all[3].root == active);
  CHECK(all[4].root == conda);
  CHECK(all[5].root == "/usr/local/cuda");
  // --cuda-path alone decides; without variables the wheels come before the default.
  CHECK(chosenBy(toolkitCandidates("/explicit", everything, dir + "/venv")) ==
        std::vector<std::string>{"--cuda-path"});
  auto wheels = toolkitCandidates("", {}, dir + "/venv");
  REQUIRE(wheels.size() == 2);
  CHECK(wheels[0].root == own);
  CHECK(wheels[1].chosenBy == "the default");
  // No wheels anywhere: the default.
  CHECK(chosenBy(toolkitCandidates("", {}, dir + "/nothing")) ==
        std::vector<std::string>{"the default"});
}

TEST_CASE("the wheels of the newest Python of an environment are taken", "[toolchain]") {
  std::string dir = scratchDir("toolkit-wheels-newest");
  wheelEnvironment(dir, "python3.9");
  std::string newest = wheelEnvironment(dir, "python3.12");
  CHECK(cudaWheelRoot(dir) == newest);
  // A folder without an executable nvcc is no toolkit.
  REQUIRE(
      !llvm::sys::fs::create_directories(dir + "/lib/python3.13/site-packages/nvidia/cu13/bin"));
  CHECK(cudaWheelRoot(dir) == newest);
  CHECK(cudaWheelRoot("").empty());
}

TEST_CASE("tlc --version says which toolkit it found and what chose it", "[toolchain]") {
  ToolRun version = runTlc({"--version"}, {"CUDA_PATH=" + std::string(TLC_NVCC) + "/../.."});
  CHECK(version.exitCode == 0);
  CHECK_THAT(version.out, Catch::Contains("chosen by CUDA_PATH)"));
  ToolRun missing = runTlc({"--version"}, {"CUDA_PATH=/nonexistent/cuda"});
  CHECK_THAT(missing.out, Catch::Contains("CUDA toolkit not usable at '/nonexistent/cuda' (chosen "
                                          "by CUDA_PATH)"));
}
