// Module descriptors of the tests' own, as tlc would generate them, for the images built with
// nvcc and fatbinary (test/runtime/CMakeLists.txt): the runtime sees exactly what a generated
// library hands it, with targets, kernels and relocatability chosen by each test.
#ifndef TLC_RUNTIME_INTERNAL_TEST_MODULES_H
#define TLC_RUNTIME_INTERNAL_TEST_MODULES_H

#include "tlc/runtime.h"

#include <string>
#include <vector>

namespace tlc_test {

using tlc::runtime::ImageTarget;
using tlc::runtime::KernelInfo;
using tlc::runtime::TensorMapInfo;

constexpr ImageTarget kSm80 = {"sm_80", 80, 0, false};
constexpr ImageTarget kSm90a = {"sm_90a", 90, 'a', false};
constexpr ImageTarget kCompute80 = {"compute_80", 80, 0, true};

// A kernel every target of the image holds.
KernelInfo kernel(const char* symbol, const char* launcher);

// A module over images/`image`, embedded (read into memory, as a generated library embeds it).
class TestModule {
public:
  TestModule(const char* name, const std::string& image, std::vector<ImageTarget> targets,
             std::vector<KernelInfo> kernels, bool relocatable = false,
             std::vector<TensorMapInfo> tensorMaps = {});
  TestModule(const TestModule&) = delete;
  TestModule& operator=(const TestModule&) = delete;

  tlc::runtime::Module& get() { return Module; }

private:
  std::string Image;
  std::vector<ImageTarget> Targets;
  std::vector<KernelInfo> Kernels;
  std::vector<TensorMapInfo> TensorMaps;
  tlc::runtime::Module Module;
};

// jit.cu's kernels: jit_fill(int* out, int value, int n), jit_sum(Pair pair, double* out).
constexpr int kJitFill = 0;
constexpr int kJitSum = 1;
std::vector<KernelInfo> jitKernels();

// images/`name`'s path.
std::string imagePath(const std::string& name);

// Launches kernel `kernel` of `module` (jit_fill's or link_main's parameters: a pointer and two
// ints, the second unused by link_main) on `device`.
tlc_status launchOn(tlc::runtime::Module& module, int device, int kernel = 0);

// The image target the runtime says `device` runs, or the status string of why not.
std::string targetOf(tlc::runtime::Module& module, int device);

} // namespace tlc_test

#endif
