// The driver's rules for which image target a device runs (Targets.cpp), as pure functions.
#include "Targets.h"

#include "internal/TestModules.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace tlc_test;
using tlc::runtime::chooseTarget;
using tlc::runtime::describeTargets;
using tlc::runtime::runsOn;

namespace {

constexpr ImageTarget kSm86 = {"sm_86", 86, 0, false};
constexpr ImageTarget kSm90 = {"sm_90", 90, 0, false};
constexpr ImageTarget kSm100f = {"sm_100f", 100, 'f', false};
constexpr ImageTarget kCompute90 = {"compute_90", 90, 0, true};
constexpr ImageTarget kCompute90a = {"compute_90a", 90, 'a', true};
constexpr ImageTarget kCompute100f = {"compute_100f", 100, 'f', true};

// The name of the target chosen for major.minor, or "none".
std::string chosen(const std::vector<ImageTarget>& targets, int major, int minor) {
  int index = chooseTarget(targets.data(), static_cast<int>(targets.size()), major, minor);
  return index < 0 ? "none" : targets[index].name;
}

} // namespace

TEST_CASE("SASS sm_XY runs on compute capability X.y for y >= Y only") {
  CHECK(runsOn(kSm80, 8, 0));
  CHECK(runsOn(kSm80, 8, 6));
  CHECK(runsOn(kSm80, 8, 9));
  CHECK_FALSE(runsOn(kSm80, 7, 5));
  CHECK_FALSE(runsOn(kSm80, 9, 0));
  CHECK_FALSE(runsOn(kSm86, 8, 0));
  CHECK(runsOn(kSm86, 8, 9));
  CHECK(runsOn(kSm90, 9, 0));
  CHECK_FALSE(runsOn(kSm90, 10, 0));
}

TEST_CASE("arch-specific targets run on their exact arch only, family targets on their family") {
  CHECK(runsOn(kSm90a, 9, 0));
  CHECK_FALSE(runsOn(kSm90a, 9, 1));
  CHECK_FALSE(runsOn(kSm90a, 10, 0));
  CHECK(runsOn(kCompute90a, 9, 0));
  CHECK_FALSE(runsOn(kCompute90a, 10, 0)); // unlike portable PTX
  CHECK_FALSE(runsOn(kCompute90a, 8, 6));
  CHECK(runsOn(kSm100f, 10, 0));
  CHECK(runsOn(kSm100f, 10, 3));
  CHECK_FALSE(runsOn(kSm100f, 11, 0));
  CHECK_FALSE(runsOn(kSm100f, 12, 0));
  CHECK(runsOn(kCompute100f, 10, 3));
  CHECK_FALSE(runsOn(kCompute100f, 12, 0));
  CHECK_FALSE(runsOn(kCompute100f, 9, 0));
}

TEST_CASE("PTX compute_XY runs on X.Y and every newer device, newer majors included") {
  CHECK(runsOn(kCompute80, 8, 0));
  CHECK(runsOn(kCompute80, 8, 6));
  CHECK(runsOn(kCompute80, 9, 0));
  CHECK(runsOn(kCompute80, 10, 0));
  CHECK(runsOn(kCompute80, 12, 1));
  CHECK_FALSE(runsOn(kCompute80, 7, 5));
  CHECK_FALSE(runsOn(kCompute90, 8, 9));
}

TEST_CASE("SASS that runs is preferred to PTX, and PTX serves the devices SASS does not") {
  std::vector<ImageTarget> image = {kCompute80, kSm80};
  CHECK(chosen(image, 8, 6) == "sm_80");
  CHECK(chosen(image, 9, 0) == "compute_80");
  CHECK(chosen(image, 10, 0) == "compute_80");
  CHECK(chosen(image, 7, 5) == "none");
  // The nvcc default of a build for the H100: SASS for it, PTX for everything newer.
  std::vector<ImageTarget> h100 = {kSm90a, kCompute90};
  CHECK(chosen(h100, 9, 0) == "sm_90a");
  CHECK(chosen(h100, 10, 0) == "compute_90");
  CHECK(chosen(h100, 8, 6) == "none");
}

TEST_CASE("among several that run, the highest arch wins, and arch-specific over portable") {
  CHECK(chosen({kSm80, kSm86}, 8, 9) == "sm_86");
  CHECK(chosen({kSm86, kSm80}, 8, 6) == "sm_86");
  CHECK(chosen({kSm86, kSm80}, 8, 0) == "sm_80");
  CHECK(chosen({kCompute80, kCompute90}, 9, 0) == "compute_90");
  CHECK(chosen({kCompute90, kCompute80}, 8, 6) == "compute_80");
  CHECK(chosen({kCompute90, kCompute90a}, 9, 0) == "compute_90a");
  CHECK(chosen({kCompute90a, kCompute90}, 10, 0) == "compute_90");
  CHECK(chosen({kSm90, kSm90a}, 9, 0) == "sm_90a");
  CHECK(chosen({kSm100f, kCompute100f, kCompute80}, 10, 3) == "sm_100f");
  CHECK(chosen({kSm100f, kCompute100f, kCompute80}, 12, 0) == "compute_80");
  CHECK(chosen({}, 9, 0) == "none");
}

TEST_CASE("describeTargets lists what an image holds, cut short to fit") {
  std::vector<ImageTarget> image = {kSm90a, kCompute80};
  char out[64];
  describeTargets(image.data(), 2, out, sizeof out);
  CHECK(std::string(out) == "sm_90a (SASS), compute_80 (PTX)");
  char small[12];
  describeTargets(image.data(), 2, small, sizeof small);
  CHECK(std::string(small) == "sm_90a (SAS");
  describeTargets(image.data(), 0, out, sizeof out);
  CHECK(std::string(out).empty());
}
