// Every launcher's parameter layout proven against the image: unit tests on made-up entries,
// then builds of fixtures whose types Clang and nvcc lay out differently.
#include "BuildSupport.h"
#include "TestSupport.h"

#include "builder/LayoutCheck.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

Param param(const std::string& name, ParamKind kind, uint64_t size, uint64_t align) {
  Param out;
  out.name = name;
  out.type = name + "_t";
  out.kind = kind;
  out.size = size;
  out.align = align;
  out.location = {"k.cu", 2, 20};
  return out;
}

// Kernel `k` of `params`, held by sm_90a, against an entry of `layout` (base 0x210). k.cu does
// not exist: the diagnostics print its locations before the message.
struct Checked {
  bool ok = false;
  std::string printed;
  Kernel kernel;
};

Checked check(std::vector<Param> params, std::vector<ImageParam> layout) {
  Module module;
  Kernel kernel;
  kernel.name = kernel.displayName = kernel.symbol = "k";
  kernel.location = {"k.cu", 2, 17};
  kernel.targets = {"sm_90a"};
  kernel.params = std::move(params);
  module.kernels.push_back(kernel);
  DevicePlan plan;
  plan.targets.push_back({{"compute_90a", "sm_90a"}, {}, {}});
  ImageEntry entry;
  entry.symbol = "k";
  entry.params = std::move(layout);
  entry.paramsKnown = true;
  entry.paramBase = 0x210;
  Checked out;
  llvm::raw_string_ostream os(out.printed);
  SourceDiagnostics diagnostics(os, false);
  llvm::Error error = checkParameterLayouts(module, plan, {{{"k", entry}}}, diagnostics);
  out.ok = !error;
  llvm::consumeError(std::move(error));
  out.kernel = module.kernels[0];
  return out;
}

} // namespace

TEST_CASE("a layout the image agrees with passes, aligned from the constant bank's base",
          "[image][layout]") {
  // int, then a 128-byte aligned tensor map: 0x210 + 112 is a multiple of 128.
  Checked agreed =
      check({param("n", ParamKind::Scalar, 4, 4), param("map", ParamKind::TensorMap, 128, 128),
             param("tag", ParamKind::Empty, 1, 1)},
            {{0, 4, 0}, {112, 128, 0}, {240, 1, 0}});
  INFO(agreed.printed);
  CHECK(agreed.ok);
}

TEST_CASE("a size or offset the image does not share is an error at the parameter",
          "[image][layout]") {
  Checked size =
      check({param("wide", ParamKind::Record, 16, 8), param("out", ParamKind::Pointer, 8, 8)},
            {{0, 24, 0}, {24, 8, 0}});
  CHECK(!size.ok);
  CHECK_THAT(size.printed, Contains("error: k.cu:2:20: parameter 'wide' of kernel 'k' is 24 "
                                    "bytes at offset 0 in nvcc's image (sm_90a), but 16 bytes at "
                                    "offset 0 as Clang lays 'wide_t' out (aligned to 8)"));
  CHECK_THAT(size.printed, Contains("note: k.cu:2:20: nvcc's image (sm_90a): wide: 24 bytes at "
                                    "offset 0, out: 8 bytes at offset 24; the launcher: wide: 16 "
                                    "bytes at offset 0, out: 8 bytes at offset 16"));
  // Same sizes, another alignment: the offset gives it away.
  Checked offset =
      check({param("a", ParamKind::Scalar, 4, 4), param("b", ParamKind::Record, 16, 4)},
            {{0, 4, 0}, {16, 16, 0}});
  CHECK(!offset.ok);
  CHECK_THAT(offset.printed, Contains("parameter 'b' of kernel 'k' is 16 bytes at offset 16 in "
                                      "nvcc's image (sm_90a), but 16 bytes at offset 4"));
  Checked count = check({param("a", ParamKind::Scalar, 4, 4)}, {{0, 4, 0}, {8, 8, 0}});
  CHECK(!count.ok);
  CHECK_THAT(count.printed, Contains("kernel 'k' takes 1 parameter(s) as Clang parsed it, 2 in "
                                     "nvcc's image (sm_90a)"));
}

TEST_CASE("an untyped parameter takes the image's size and place", "[image][layout]") {
  Checked adopted =
      check({param("owner", ParamKind::Bytes, 12, 4), param("n", ParamKind::Scalar, 4, 4)},
            {{0, 16, 0}, {16, 4, 0}});
  INFO(adopted.printed);
  CHECK(adopted.ok);
  CHECK(adopted.kernel.params[0].size == 16);
  CHECK(adopted.kernel.params[0].align == 4);
}

TEST_CASE("types Clang and nvcc lay out differently fail the build at the parameter",
          "[image][layout]") {
  // A real disagreement of Clang 22 and nvcc 13: `long double` in a struct.
  std::string out = scratchDir("layout-long-double") + "/out";
  ToolRun wide = runTlc({"build", fixture("image/long_double.cu"), "--arch", "sm_90a", "-o", out,
                         "--no-cache", "-q"});
  CHECK(wide.exitCode == 1);
  CHECK_THAT(wide.err, Contains("long_double.cu:8:28: error: parameter 'wide' of kernel 'widen' "
                                "is 24 bytes at offset 0 in nvcc's image (sm_90a), but 16 bytes "
                                "at offset 0 as Clang lays 'Wide' out (aligned to 8)"));
  CHECK_THAT(wide.err, Contains("8 | __global__ void widen(Wide wide, int* out)"));
  CHECK(listFolder(llvm::sys::path::parent_path(out).str()).count("out") == 0);
  // A header that says one thing to Clang and another to nvcc; PTX is checked too.
  ToolRun header = runTlc({"build", fixture("image/clang_layout.cu"), "--arch", "compute_90a", "-o",
                           scratchDir("layout-clang") + "/out", "--no-cache", "-q"});
  CHECK(header.exitCode == 1);
  CHECK_THAT(header.err, Contains("clang_layout.cu:12:31: error: parameter 'options' of kernel "
                                  "'apply' is 16 bytes at offset 0 in nvcc's image (compute_90a), "
                                  "but 8 bytes at offset 0"));
}
