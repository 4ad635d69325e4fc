// Constructs found in real CUDA projects that once built wrong: one fixture per cause under
// test/fixtures/realcode, each checked where the wrong result showed (the model, the generated
// header a caller compiles against).
#include "BuildSupport.h"
#include "TestSupport.h"

#include "builder/SymbolResolution.h"

#include "llvm/ADT/StringRef.h"

#include <catch2/catch.hpp>

using namespace tlc;
using namespace tlc::test;

TEST_CASE("a parameter declared as an array of arrays is a pointer to rows, not to pointers",
          "[realcode]") {
  Analysis analysis = analyzeOk({fixture("realcode/array_rows.cu")});
  const Kernel& kernel = kernelNamed(analysis.module, "add_rows");
  REQUIRE(kernel.params.size() == 3);
  for (const Param& param : kernel.params) {
    INFO(param.name);
    CHECK(param.kind == ParamKind::Pointer);
    CHECK(param.ctype.baseKind == CType::Base::Void);
    CHECK(param.ctype.pointers.size() == 1);
  }
  CHECK(kernel.params[0].ctype.baseConst);       // const float in[8][4]
  CHECK_FALSE(kernel.params[1].ctype.baseConst); // float out[8][4]
  CHECK_FALSE(kernel.params[2].ctype.baseConst); // float (**table)[4]
}

TEST_CASE("tlc inspect names a pointer-to-rows parameter inside its declarator", "[realcode]") {
  ToolRun inspect = runTlc({"inspect", fixture("realcode/array_rows.cu"), "--arch", "sm_90a"});
  INFO(inspect.err);
  REQUIRE(inspect.exitCode == 0);
  CHECK_THAT(
      inspect.out,
      Catch::Contains("add_rows(const float (*in)[4], float (*out)[4], float (**table)[4])"));
}

TEST_CASE("C and C++ callers pass pointers to rows to an array-of-arrays kernel",
          "[realcode][build]") {
  std::string out = scratchDir("realcode-array-rows") + "/out";
  buildOk({fixture("realcode/array_rows.cu"), "--arch", "sm_90a", "--emit-only", "-o", out});
  std::string caller = fixture("realcode/array_rows_use.c");
  CommandResult asC = run({"cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I" + out,
                           "-isystem", cudaInclude(), "-fsyntax-only", caller});
  INFO(asC.output);
  CHECK(asC.exitCode == 0);
  CommandResult asCpp =
      run({"c++", "-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I" + out,
           "-isystem", cudaInclude(), "-fsyntax-only", caller});
  INFO(asCpp.output);
  CHECK(asCpp.exitCode == 0);
}

TEST_CASE("parameters named like the launcher's runtime calls and tables still build",
          "[realcode][build]") {
  std::string out = scratchDir("realcode-launcher-names") + "/out";
  buildOk({fixture("realcode/launcher_names.cu"), "--arch", "sm_90a", "-o", out});
  std::string header = readText(out + "/launcher_names.h");
  CHECK_THAT(header, Catch::Contains("launcher_names_named_like_launcher(const tlc_config* "
                                     "config, launcher_names_Launch launch_, int* kEmpty_, "
                                     "int* gModule_, float* launchEncoded_, const float* "
                                     "launchWithTensors_)"));
}

namespace {

std::vector<std::string> kernelNames(const Module& module) {
  std::vector<std::string> names;
  for (const Kernel& kernel : module.kernels)
    names.push_back(kernel.displayName);
  return names;
}

} // namespace

TEST_CASE("the parse defines nvcc's arch-specific and family-specific arch macros", "[realcode]") {
  using Names = std::vector<std::string>;
  const std::string input = fixture("realcode/arch_specific.cu");
  CHECK(kernelNames(analyzeOk({input}, "sm_90a").module) == Names{"specific_path", "family_path"});
  CHECK(kernelNames(analyzeOk({input}, "sm_90").module) == Names{"portable_path"});
  // Clang knows no family targets: sm_100f parses as sm_100 with nvcc's family macro.
  CHECK(kernelNames(analyzeOk({input}, "sm_100f").module) == Names{"family_path"});
}

TEST_CASE("a build for an arch-specific or a family target finds nvcc's kernels in the parse",
          "[realcode][build]") {
  for (const char* arch : {"sm_90a", "sm_100f"}) {
    INFO(arch);
    std::string out = scratchDir(std::string("realcode-arch-") + arch) + "/out";
    ToolRun build = buildOk({fixture("realcode/arch_specific.cu"), "--arch", arch, "-o", out});
    CHECK_THAT(build.err, !Catch::Contains("did not see"));
    nlohmann::json manifest = manifestOf(out, "arch_specific");
    for (const nlohmann::json& kernel : manifest["kernels"])
      CHECK(kernel["from_image"] == false);
    checkImageMatchesManifest(out, manifest);
  }
}

TEST_CASE("template arguments Clang mangles with a conversion are matched to nvcc's entries",
          "[realcode]") {
  CHECK(withoutArgumentConversions("void lookup<&table.<float at offset 0>>(float*)") ==
        "void lookup<&table>(float*)");
  CHECK(withoutArgumentConversions("void byref<(int const*)(&value)>(int*)") ==
        "void byref<&value>(int*)");
  CHECK(withoutArgumentConversions("void scale<(int)5>(float*)") == "void scale<(int)5>(float*)");
}

TEST_CASE("kernels templated on a global's address build with nvcc's symbols",
          "[realcode][build]") {
  std::string out = scratchDir("realcode-pointer-template-args") + "/out";
  ToolRun build =
      buildOk({fixture("realcode/pointer_template_args.cu"), "--arch", "sm_90a", "-o", out});
  CHECK_THAT(build.err, !Catch::Contains("did not see"));
  nlohmann::json manifest = manifestOf(out, "pointer_template_args");
  REQUIRE(manifest["kernels"].size() == 2);
  CHECK(manifest["kernels"][0]["symbol"] == "_Z10from_tableIXadL_Z5tableEEEvPf");
  CHECK(manifest["kernels"][1]["symbol"] == "_Z12read_counterIXadL_Z7counterEEEvPi");
  for (const nlohmann::json& kernel : manifest["kernels"])
    CHECK(kernel["from_image"] == false);
  checkImageMatchesManifest(out, manifest);
}

TEST_CASE("host functions an input defines are left out of the library and named once, as a note",
          "[realcode][build]") {
  // nvcc -shared exports an input's external host functions; tlc's library holds the kernels'
  // launchers only, and says which it left out (issue 36).
  std::string dir = scratchDir("realcode-host-code");
  ToolRun built = buildOk({fixture("realcode/host_code.cu"), "--arch", "sm_90a", "-o", dir + "/out",
                           "-q", "--no-cache"});
  INFO(built.err);
  llvm::StringRef err = built.err;
  CHECK(err.count("note:") == 1);
  CHECK_THAT(built.err, Catch::Contains("tlc: note: host code of the inputs is not in "
                                        "libhost_code.so, which holds the kernels' launchers "
                                        "only (nvcc -shared would export it; docs/cli.md"));
  for (const char* left : {"launch_f (", "S::out_of_class (", "both (", "c_api (", "from_header ("})
    CHECK_THAT(built.err, Catch::Contains(left));
  CHECK_THAT(built.err,
             Catch::Contains("host_code.cu:8:5)") && Catch::Contains("host_code.cuh:4:5)"));
  for (const char* kept :
       {"hidden", "anonymous", "inlined", "templated", "in_class", "device_only", "main (", " f ("})
    CHECK_THAT(built.err, !Catch::Contains(kept));
  std::set<std::string> exported = exportedSymbols(dir + "/out/libhost_code.so");
  CHECK(exported.count("launch_f") == 0);
  CHECK(exported.count("host_code_f") == 1);
  // An input without host code: no note.
  ToolRun plain = buildOk(
      {sample("vadd/vadd.cu"), "--arch", "sm_90a", "-o", dir + "/vadd", "-q", "--no-cache"});
  CHECK(plain.err.empty());
}
