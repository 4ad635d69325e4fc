// nvcc is the compiler of record: code nvcc compiles, tlc builds, unmodified, with default flags.
// One fixture per way Clang's parse and nvcc used to disagree (test/fixtures/parity); each
// builds, and every kernel nvcc compiled gets a launcher that reaches it by its exact symbol.
#include "BuildSupport.h"
#include "TestSupport.h"

#include "builder/DeviceImage.h"
#include "frontend/Frontend.h"
#include "frontend/ParseCompat.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringRef.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

// Builds `inputs` (fixtures under parity/) as module `name`, checks the image against the
// manifest, and returns the manifest.
nlohmann::json buildParity(const std::vector<std::string>& inputs, const std::string& name,
                           std::vector<std::string> extra = {"--arch", "sm_90a"}) {
  std::string out = scratchDir("parity-" + name) + "/out";
  std::vector<std::string> args;
  for (const std::string& input : inputs)
    args.push_back(fixture("parity/" + input));
  args.insert(args.end(), {"--name", name, "-o", out, "--no-cache", "-q"});
  args.insert(args.end(), extra.begin(), extra.end());
  ToolRun build = buildOk(args);
  nlohmann::json manifest = manifestOf(out, name);
  checkImageMatchesManifest(out, manifest);
  return manifest;
}

// launcher -> symbol
std::map<std::string, std::string> launchers(const nlohmann::json& manifest) {
  std::map<std::string, std::string> names;
  for (const nlohmann::json& kernel : manifest["kernels"])
    names[kernel["launcher"].get<std::string>()] = kernel["symbol"].get<std::string>();
  return names;
}

} // namespace

TEST_CASE("host code calling __device__-only overloads builds", "[parity]") {
  CHECK(launchers(buildParity({"host_overloads.cu"}, "overloads")).count("scale"));
}

TEST_CASE("intrinsics Clang's headers lack build from the toolkit's declarations", "[parity]") {
  CHECK(launchers(buildParity({"intrinsics.cu"}, "intrinsics")).count("streaming_copy"));
}

TEST_CASE("host headers from the host compiler and nvcc's implicit includes build", "[parity]") {
  CHECK(launchers(buildParity({"host_headers.cu"}, "host_headers")).count("timed"));
}

TEST_CASE("the macros nvcc predefines pick the branch nvcc picks", "[parity]") {
  auto names = launchers(buildParity({"nvcc_macros.cu"}, "macros"));
  CHECK(names.count("chosen_by_nvcc"));
  CHECK(!names.count("chosen_by_clang"));
}

TEST_CASE("a kernel a library hides from Clang builds", "[parity][compiler-view]") {
  // The library's arch configuration defines its feature macro only where __clang__ and
  // __CUDA__ are not both defined: nvcc's front end. Without the kernel: "no kernels to launch".
  nlohmann::json manifest = buildParity({"clang_hidden_kernel.cu"}, "clang_hidden",
                                        {"--arch", "sm_90a", "-I" + fixture("parity/compiler")});
  CHECK(launchers(manifest) ==
        std::map<std::string, std::string>{{"gemm_sm90", "_Z9gemm_sm90PfPKfS1_i"}});
}

TEST_CASE("a struct laid out under __clang__ is passed as nvcc lays it out",
          "[parity][compiler-view]") {
  std::string out = scratchDir("parity-clang-layout") + "/out";
  buildOk({fixture("parity/clang_struct_layout.cu"), "--arch", "sm_90a", "-o", out, "--no-cache",
           "-q"});
  // The header's C mirror has gcc's fields, which the kernel nvcc compiled reads.
  std::string header = readText(out + "/clang_struct_layout.h");
  CHECK_THAT(header, Contains("long long tag;") && Contains("int count;"));
}

TEST_CASE("function bodies only nvcc accepts do not stop the build", "[parity]") {
  auto names = launchers(buildParity({"body_disagreements.cu"}, "bodies"));
  CHECK(names.count("shared_constructor"));
  CHECK(names.count("global_timer"));
}

TEST_CASE("texture and surface kernels build without Clang's texture intrinsics header",
          "[parity]") {
  // The parse reads what the kernels declare and stands in for the header that is a third of its
  // time (frontend/ParseCompat.h): the texture functions' bodies still parse without an error.
  auto names = launchers(buildParity({"textures.cu"}, "textures", {"--arch", "sm_90a", "-v"}));
  CHECK(names["sample_rows_float"] == "_Z11sample_rowsIfEvyPT_ii");
  CHECK(names["sample_rows_int"] == "_Z11sample_rowsIiEvyPT_ii");
  CHECK(names.count("brighten"));
  CHECK(names.count("gather_layer"));
  ToolRun verbose = runTlc({"inspect", fixture("parity/textures.cu"), "--arch", "sm_90a", "-v"});
  CHECK(verbose.exitCode == 0);
  CHECK_THAT(verbose.err, !Contains("remark:"));
  // The stand-in is the parse's alone: an editor's parse (--compile-commands-out) reads the
  // header, for the diagnostics and completions of texture code.
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  std::string input = fixture("parity/textures.cu");
  auto has = [](const std::vector<std::string>& args, const char* arg) {
    return std::find(args.begin(), args.end(), arg) != args.end();
  };
  for (const char* define : textureIntrinsicsStandIn()) {
    CHECK(has(clangCommandLine(input, frontendFor(), *toolkit), define));
    CHECK(!has(editorCommandLine(input, frontendFor(), *toolkit, "compat.h"), define));
  }
}

TEST_CASE("kernel templates whose bodies only nvcc accepts get launchers", "[parity]") {
  // The instantiation from host code is the kernel nvcc emits, body or no body in Clang.
  auto names = launchers(buildParity({"template_bodies.cu"}, "template_bodies"));
  CHECK(names["shared_tally_3"] == "_Z12shared_tallyILi3EEvPi");
}

TEST_CASE("library kernels instantiated in header bodies Clang skips are the library's",
          "[parity]") {
  nlohmann::json manifest = buildParity({"library_instances.cu"}, "library_instances",
                                        {"--arch", "sm_90a", "-I" + fixture("parity/system")});
  CHECK(launchers(manifest).size() == 1);
  CHECK(launchers(manifest).count("own_kernel"));
  CHECK_THAT(manifest["other_entries"].dump(),
             Contains("probe_library") && Contains("12probe_kernelIvEEvv"));
  // The parse alone names the template, not the instance (scripts/corpus-check uses both).
  ToolRun inspect = runTlc({"inspect", "--json", fixture("parity/library_instances.cu"), "--arch",
                            "sm_90a", "-I" + fixture("parity/system")});
  REQUIRE(inspect.exitCode == 0);
  nlohmann::json module = nlohmann::json::parse(inspect.out);
  CHECK(module["library_kernel_templates"] ==
        nlohmann::json::array({"probe_library::probe_kernel"}));
  CHECK_THAT(module["other_entries"].dump(), !Contains("12probe_kernelIvEEvv"));
}

TEST_CASE("a device-side launch builds as relocatable device code", "[parity]") {
  nlohmann::json manifest = buildParity({"dynamic.cu"}, "dynamic");
  CHECK(launchers(manifest).count("parent"));
  CHECK(launchers(manifest).count("child"));
  CHECK_THAT(manifest["commands"].dump(), Contains("-rdc=true"));
  CHECK_THAT(manifest["commands"].dump(), Contains("-dlink"));
}

TEST_CASE("static and anonymous-namespace kernels launch by the image's symbol", "[parity]") {
  // Whole-program: nvcc's local symbols, the anonymous namespace under nvcc's own name.
  auto one = launchers(buildParity({"static_a.cu"}, "static_one"));
  CHECK(one["fill"] == "_Z4fillPii");
  CHECK_THAT(one["twice"], Contains("_GLOBAL__N__") && Contains("5twiceEPi"));
  CHECK(one["from_a"] == "_Z6from_aPi");
  // Two files with a static `fill` each: relocatable names, and launchers that say whose.
  auto two = launchers(buildParity({"static_a.cu", "static_b.cu"}, "static_two"));
  CHECK(two.size() == 5);
  CHECK(llvm::StringRef(two["static_a_fill"]).starts_with("__nv_static_"));
  CHECK(llvm::StringRef(two["static_b_fill"]).starts_with("__nv_static_"));
  CHECK(two["static_a_fill"] != two["static_b_fill"]);
  CHECK(llvm::StringRef(two["twice"]).starts_with("__nv_static_"));
}

TEST_CASE("kernels of some targets only get launchers that know their targets", "[parity]") {
  nlohmann::json manifest =
      buildParity({"arch_specific.cu"}, "arch_specific", {"--arch", "sm_80", "--arch", "sm_90a"});
  std::map<std::string, nlohmann::json> targets;
  for (const nlohmann::json& kernel : manifest["kernels"])
    targets[kernel["launcher"].get<std::string>()] = kernel["targets"];
  CHECK(targets["everywhere"] ==
        nlohmann::json::array({"sm_80", "compute_80", "sm_90a", "compute_90a"}));
  CHECK(targets["hopper_and_newer"] == nlohmann::json::array({"sm_90a", "compute_90a"}));
  CHECK(targets["before_hopper"] == nlohmann::json::array({"sm_80", "compute_80"}));
}

TEST_CASE("kernels named like the API's own names get launchers under their names",
          "[parity][naming]") {
  std::string out = scratchDir("parity-api-names") + "/out";
  buildOk({fixture("names/api_names.cu"), "--arch", "sm_90a", "-o", out, "--no-cache", "-q"});
  CHECK(exportedSymbols(out + "/libapi_names.so") ==
        apiOf("api_names", {"load", "unload", "kernel", "last_error", "set_image_path", "config",
                            "COUNT", "KERNELS", "tensor", "status"}));
  // The header compiles as C and as C++ with all of them side by side.
  std::string probe = scratchDir("parity-api-names-probe");
  for (const char* language : {"c", "c++"}) {
    CommandResult compile =
        run({"cc", "-x", language, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I" + out,
             "-isystem", cudaInclude(), out + "/api_names.h"});
    INFO(language << ": " << compile.output);
    CHECK(compile.exitCode == 0);
  }
  // The module's name may not be tlc's own prefix.
  ToolRun reserved = runTlc({"build", fixture("names/api_names.cu"), "--name", "tlc", "-o", out});
  CHECK(reserved.exitCode == 2);
  CHECK_THAT(reserved.err, Contains("--name 'tlc'"));
}

TEST_CASE("parameters are typed as CUDA engineers hold them", "[parity][types]") {
  std::string out = scratchDir("parity-types") + "/out";
  buildOk({fixture("parity/cuda_types.cu"), "--arch", "sm_90a", "-o", out, "--no-cache", "-q"});
  std::string header = readText(out + "/cuda_types.h");
  // The toolkit's own types, spelled as the toolkit spells them, from its C headers.
  CHECK_THAT(header, Contains("#include <vector_types.h>"));
  CHECK_THAT(header, Contains("#include <texture_types.h>"));
  CHECK_THAT(header, Contains("cuda_types_vectors(const tlc_config* config, float4* out, const "
                              "uint4* in, uchar4 colour, int2 shape, float4 bias);"));
  CHECK_THAT(header, Contains("cuda_types_textures(const tlc_config* config, float* out, "
                              "cudaTextureObject_t texture, int n);"));
  CHECK_THAT(header, Contains("  float4 lo;"));
  // Pairs by value; tags leave the C signature.
  CHECK_THAT(header, Contains("cuda_types_pairs(const tlc_config* config, tlc_half2* out, "
                              "tlc_half2 h, tlc_bfloat162 b);"));
  CHECK_THAT(header, Contains("cuda_types_tagged_true(const tlc_config* config, float* x, int "
                              "n);"));
  CHECK_THAT(header, !Contains("cuda_types_float4"));
  // C callers compile it as it is; C++ callers pass __half2 and __nv_bfloat162 without casts.
  std::string probe = scratchDir("parity-types-probe") + "/use.cpp";
  std::ofstream(probe) << "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n"
                          "#include \"cuda_types.h\"\n"
                          "tlc_status call(tlc_half2* out, __half2 h, __nv_bfloat162 b) {\n"
                          "  tlc_config config = {};\n"
                          "  return cuda_types_pairs(&config, out, h, b);\n}\n";
  CommandResult cpp = run({"c++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                           "-I" + out, "-isystem", cudaInclude(), probe});
  INFO(cpp.output);
  CHECK(cpp.exitCode == 0);
  CommandResult c = run({"cc", "-x", "c", "-std=c99", "-fsyntax-only", "-Wall", "-Wextra",
                         "-Werror", "-I" + out, "-isystem", cudaInclude(), out + "/cuda_types.h"});
  INFO(c.output);
  CHECK(c.exitCode == 0);
}
