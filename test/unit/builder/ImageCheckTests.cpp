// The image check: every entry of the image gets a launcher (a kernel Clang found, a library
// entry, or a kernel made from the image with a warning), and a kernel Clang found that nvcc did
// not compile is an error. Unit tests of assignKernelTargets on made-up images, then whole builds
// of the fixtures in test/fixtures/image.
#include "BuildSupport.h"
#include "TestSupport.h"

#include "builder/ImageCheck.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

DevicePlan oneTarget() {
  DevicePlan plan;
  TargetImage image;
  image.target = {"compute_90a", "sm_90a"};
  plan.targets.push_back(image);
  return plan;
}

ImageEntry entry(const std::string& symbol, std::vector<ImageParam> params, bool local = false) {
  ImageEntry out;
  out.symbol = symbol;
  out.local = local;
  out.params = std::move(params);
  out.paramsKnown = true;
  out.paramBase = 0x210;
  return out;
}

Kernel parsed(const std::string& name, const std::string& symbol, const std::string& input) {
  Kernel kernel;
  kernel.name = kernel.displayName = name;
  kernel.symbol = symbol;
  kernel.translationUnits = {input};
  kernel.location = {input, 3, 17};
  return kernel;
}

// Runs assignKernelTargets; what the diagnostics printed goes to `printed`.
llvm::Error assign(Module& module, const std::vector<TargetEntries>& entries,
                   const EntriesByInput& inputs, const std::vector<UnresolvedKernel>& unresolved,
                   std::string& printed) {
  llvm::raw_string_ostream os(printed);
  SourceDiagnostics diagnostics(os, false);
  return assignKernelTargets(module, oneTarget(), entries, {inputs, unresolved}, diagnostics);
}

void requireOk(llvm::Error error) {
  if (error)
    FAIL(summarize(std::move(error)).message);
}

std::string buildOut(const std::string& name) {
  return scratchDir("image-" + name) + "/out";
}

ToolRun buildFixture(const std::string& file, const std::string& out,
                     std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {
      "build", fixture("image/" + file), "--arch", "sm_90a", "-o", out, "--no-cache", "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  return runTlc(args);
}

const nlohmann::json& kernelOf(const nlohmann::json& manifest, const std::string& launcher) {
  for (const nlohmann::json& kernel : manifest["kernels"])
    if (kernel["launcher"] == launcher)
      return kernel;
  FAIL("no launcher " << launcher << " in " << manifest["kernels"].dump());
  return manifest;
}

} // namespace

TEST_CASE("an entry no kernel claims gets a kernel made from the image", "[image]") {
  Module module;
  module.inputs = {"k.cu"};
  module.kernels.push_back(parsed("seen", "_Z4seenPi", "k.cu"));
  TargetEntries target;
  target["_Z4seenPi"] = entry("_Z4seenPi", {{0, 8, 0}});
  // hidden(float*, const float*, Scale, long long): Scale is no builtin, so it goes as bytes.
  target["_Z12hidden_scalePfPKf5Scalex"] =
      entry("_Z12hidden_scalePfPKf5Scalex", {{0, 8, 0}, {8, 8, 0}, {16, 8, 0}, {24, 8, 0}});
  std::string printed;
  requireOk(assign(module, {target}, {{"k.cu", {"_Z4seenPi"}}}, {}, printed));
  REQUIRE(module.kernels.size() == 2);
  const Kernel& made = module.kernels[1];
  CHECK(made.fromImage);
  CHECK(made.name == "hidden_scale");
  CHECK(made.targets == std::vector<std::string>{"sm_90a"});
  CHECK(made.translationUnits == std::vector<std::string>{"k.cu"});
  REQUIRE(made.params.size() == 4);
  CHECK(made.params[0].kind == ParamKind::Pointer);
  CHECK(made.params[1].kind == ParamKind::Pointer);
  CHECK(made.params[1].pointer.pointeeConst);
  CHECK(made.params[2].kind == ParamKind::Bytes);
  CHECK(made.params[2].type == "Scale");
  CHECK(made.params[3].kind == ParamKind::Scalar);
  CHECK(made.params[3].scalar.type == ScalarType::I64);
}

TEST_CASE("a kernel tlc cannot match to its entry leaves the module to the entry's kernel",
          "[image]") {
  // Clang's kernel and nvcc's entry name the same function but do not demangle alike: the
  // entry's kernel takes the declaration's location and parameter names.
  Module module;
  module.inputs = {"k.cu"};
  Kernel kernel = parsed("(anonymous namespace)::k", "_ZN12_GLOBAL__N_11kIiEEvPi", "k.cu");
  kernel.internalLinkage = true;
  Param out;
  out.name = "out";
  out.location = {"k.cu", 3, 25};
  kernel.params.push_back(out);
  module.kernels.push_back(kernel);
  std::string symbol = "_ZN29_GLOBAL__N__8f47b01e_4_k_cu_e1kIlEEvPi"; // k<long>
  TargetEntries target;
  target[symbol] = entry(symbol, {{0, 8, 0}}, true);
  std::vector<UnresolvedKernel> unresolved = {{0, "not found in the device image"}};
  std::string printed;
  requireOk(assign(module, {target}, {{"k.cu", {symbol}}}, unresolved, printed));
  REQUIRE(module.kernels.size() == 1);
  const Kernel& made = module.kernels[0];
  CHECK(made.fromImage);
  CHECK(made.symbol == symbol);
  CHECK(made.location.line == 3);
  REQUIRE(made.params.size() == 1);
  CHECK(made.params[0].name == "out");
  CHECK(made.params[0].kind == ParamKind::Pointer);
  CHECK_THAT(printed, Contains("warning: k.cu:3:17: kernel '(anonymous namespace)::k<long>' of "
                               "k.cu is nvcc's entry " +
                               symbol +
                               ", which tlc could not match to the kernel Clang parsed "
                               "here (not found in the device image)"));
}

TEST_CASE("a kernel no target holds is an error naming it", "[image]") {
  Module module;
  module.inputs = {"k.cu"};
  module.kernels.push_back(parsed("seen", "_Z4seenPi", "k.cu"));
  module.kernels.push_back(parsed("only_clang", "_Z10only_clangPi", "k.cu"));
  TargetEntries target;
  target["_Z4seenPi"] = entry("_Z4seenPi", {{0, 8, 0}});
  std::string printed;
  ErrorSummary summary =
      summarize(assign(module, {target}, {{"k.cu", {"_Z4seenPi"}}}, {}, printed));
  CHECK(summary.code == ExitCode::InputError);
  CHECK_THAT(summary.message, Contains("kernel 'only_clang' (_Z10only_clangPi), which Clang "
                                       "found, is in none of the image's targets"));
}

TEST_CASE("kernels the parse does not see get launchers made from the image", "[image]") {
  std::string out = buildOut("hidden");
  ToolRun build = buildFixture("hidden.cu", out);
  INFO(build.err);
  REQUIRE(build.exitCode == 0);
  CHECK_THAT(build.err, Contains("tlc: warning: kernel 'hidden_scale' of hidden.cu is nvcc's entry "
                                 "_Z12hidden_scalePfPKf5Scalex, which Clang's parse did not see") &&
                            Contains("and takes as bytes arg2 (Scale, 8 bytes)"));
  CHECK(llvm::StringRef(build.err).count("warning:") == 1);
  nlohmann::json manifest = manifestOf(out, "hidden");
  checkImageMatchesManifest(out, manifest);
  const nlohmann::json& hidden = kernelOf(manifest, "hidden_scale");
  CHECK(hidden["from_image"] == true);
  CHECK(kernelOf(manifest, "seen")["from_image"] == false);
  std::vector<std::string> kinds;
  for (const nlohmann::json& param : hidden["params"])
    kinds.push_back(param["kind"]);
  CHECK(kinds == std::vector<std::string>{"pointer", "pointer", "bytes", "scalar"});
  std::string header = readText(out + "/hidden.h");
  CHECK_THAT(header, Contains("hidden_hidden_scale(const tlc_config* config, float* arg0, const "
                              "float* arg1, tlc_hidden_bytes8_align8 arg2, long long arg3);"));
  CHECK_THAT(header, Contains("typedef struct tlc_hidden_bytes8_align8 {\n  unsigned char "
                              "bytes[8];\n} __attribute__((aligned(8))) "
                              "tlc_hidden_bytes8_align8;"));
  for (const char* language : {"c", "c++"}) {
    CommandResult compile =
        run({"cc", "-x", language, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I" + out,
             "-isystem", cudaInclude(), out + "/hidden.h"});
    INFO(language << ": " << compile.output);
    CHECK(compile.exitCode == 0);
  }
}

TEST_CASE("no kernels to launch only when nvcc's image holds none", "[image]") {
  // Every kernel of the file hidden from the parse: the image still has one.
  std::string out = buildOut("all-hidden");
  std::string input = scratchDir("image-all-hidden-input") + "/all_hidden.cu";
  std::ofstream(input) << "#ifndef __TLC__\n__global__ void nvcc_only(int* out) { *out = 1; }\n"
                          "#endif\n";
  ToolRun build = runTlc({"build", input, "--arch", "sm_90a", "-o", out, "--no-cache", "-q"});
  INFO(build.err);
  REQUIRE(build.exitCode == 0);
  nlohmann::json manifest = manifestOf(out, "all_hidden");
  CHECK(kernelOf(manifest, "nvcc_only")["from_image"] == true);
  // Nothing for nvcc either: no launcher to make.
  std::string none = scratchDir("image-none-input") + "/none.cu";
  std::ofstream(none) << "__device__ int helper(int x) { return x; }\n";
  ToolRun empty =
      runTlc({"build", none, "--arch", "sm_90a", "-o", buildOut("none"), "--no-cache", "-q"});
  CHECK(empty.exitCode == 1);
  CHECK_THAT(empty.err, Contains("no kernels to launch in " + none + ": nvcc's image holds none"));
}

TEST_CASE("a kernel nvcc does not compile is an error, nothing is published", "[image]") {
  std::string out = buildOut("clang-only");
  ToolRun build = buildFixture("clang_only.cu", out);
  CHECK(build.exitCode == 1);
  CHECK_THAT(build.err, Contains("kernel 'only_clang' (_Z10only_clangPi), which Clang found, is "
                                 "in none of the image's targets: nvcc did not compile it"));
  CHECK(listFolder(llvm::sys::path::parent_path(out).str()).count("out") == 0);
}

TEST_CASE("a parameter tlc cannot type passes as bytes of the image's size", "[image]") {
  std::string out = buildOut("non-trivial");
  ToolRun build = buildFixture("non_trivial.cu", out);
  INFO(build.err);
  REQUIRE(build.exitCode == 0);
  CHECK_THAT(build.err, Contains("non_trivial.cu:9:17: warning: kernel 'fill_window' takes "
                                 "parameters tlc cannot type"));
  std::string header = readText(out + "/non_trivial.h");
  CHECK_THAT(header, Contains("non_trivial_fill_window(const tlc_config* config, "
                              "tlc_non_trivial_bytes16_align8 window, float value);"));
  CHECK_THAT(header, Contains("untyped, passed as their bytes: window (Window)"));
  nlohmann::json manifest = manifestOf(out, "non_trivial");
  const nlohmann::json& kernel = kernelOf(manifest, "fill_window");
  CHECK(kernel["from_image"] == false);
  CHECK(kernel["params"][0]["kind"] == "bytes");
  CHECK(kernel["params"][0]["size"] == 16);
  CHECK(kernel["params"][0]["c_type"]["base"] == "bytes16_align8");
}

TEST_CASE("template kernels of internal-linkage arguments launch by nvcc's symbols", "[image]") {
  std::string out = buildOut("internal-arguments");
  ToolRun build = buildFixture("internal_arguments.cu", out);
  INFO(build.err);
  REQUIRE(build.exitCode == 0);
  CHECK_THAT(build.err, !Contains("warning"));
  nlohmann::json manifest = manifestOf(out, "internal_arguments");
  checkImageMatchesManifest(out, manifest);
  const nlohmann::json& pair = kernelOf(manifest, "sum_pair_anonymous_namespace_Pair");
  CHECK_THAT(pair["symbol"].get<std::string>(), Contains("_GLOBAL__N__"));
  CHECK(pair["from_image"] == false);
  const nlohmann::json& rows = kernelOf(manifest, "get_rows_4_refdequantize");
  CHECK_THAT(rows["symbol"].get<std::string>(), Contains("_INTERNAL_"));
  CHECK(rows["from_image"] == false);
}
