// The tlc binary as users run it: exit codes, diagnostics with locations, JSON output.
#include "TestSupport.h"

#include "llvm/ADT/StringRef.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>

using namespace tlc::test;
using Catch::Contains;

TEST_CASE("tlc --version names tlc, Clang and CUDA", "[cli]") {
  ToolRun run = runTlc({"--version"});
  CHECK(run.exitCode == 0);
  CHECK_THAT(run.out, Contains("tlc 0."));
  CHECK_THAT(run.out, Contains("clang 22."));
  CHECK_THAT(run.out, Contains("cuda 13."));
}

TEST_CASE("inspect --json on a two-file module prints one JSON document", "[cli]") {
  ToolRun run = runTlc(
      {"inspect", "--json", "--arch", "sm_90a", fixture("module/a.cu"), fixture("module/b.cu")});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  nlohmann::json document = nlohmann::json::parse(run.out);
  CHECK(document["schema"] == "tlc.module");
  CHECK(document["kernels"].size() == 5);
  CHECK(document["inputs"].size() == 2);
  CHECK_FALSE(document["clang_version"].get<std::string>().empty());
  CHECK(run.err.empty());
}

TEST_CASE("inspect prints a readable table", "[cli]") {
  ToolRun run = runTlc({"inspect", fixture("module/a.cu")});
  REQUIRE(run.exitCode == 0);
  CHECK_THAT(run.out, Contains("LAUNCHER"));
  CHECK_THAT(run.out, Contains("shared_template_int"));
  CHECK_THAT(run.out, Contains("symbol _Z15shared_templateIiEvPT_"));
  CHECK_THAT(run.out, Contains("3 kernels in 1 file"));
}

TEST_CASE("static and anonymous-namespace kernels are inspected with internal linkage", "[cli]") {
  ToolRun run = runTlc({"inspect", "--json", fixture("errors/internal.cu")});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  nlohmann::json document = nlohmann::json::parse(run.out);
  std::map<std::string, std::string> linkage;
  for (const nlohmann::json& kernel : document["kernels"])
    linkage[kernel["launcher"].get<std::string>()] = kernel["linkage"].get<std::string>();
  CHECK(linkage == std::map<std::string, std::string>{{"hidden_static", "internal"},
                                                      {"hidden_anonymous", "internal"},
                                                      {"visible", "strong"}});
}

TEST_CASE("a mistake in a function body is nvcc's to report, Clang's view shows with -v", "[cli]") {
  // Clang reads declarations: the parse lists the kernel whatever its body says...
  ToolRun inspect = runTlc({"inspect", fixture("errors/syntax.cu")});
  CHECK(inspect.exitCode == 0);
  CHECK_THAT(inspect.out, Contains("broken"));
  CHECK(inspect.err.empty());
  ToolRun verbose = runTlc({"inspect", "-v", fixture("errors/syntax.cu")});
  CHECK_THAT(verbose.err, Contains("syntax.cu:2:9: remark: expected ';' after expression"));
  // ...and nvcc, the compiler of record, stops the build, in its own words: exit 1.
  ToolRun build = runTlc({"build", fixture("errors/syntax.cu"), "-o",
                          scratchDir("syntax-build") + "/out", "--no-cache"});
  CHECK(build.exitCode == 1);
  // In tlc's format (issue 36), nvcc's own kept for -v.
  CHECK_THAT(build.err, Contains("syntax.cu:3:1: error: expected a \";\""));
  CHECK_THAT(build.err, !Contains("syntax.cu(3)"));
  CHECK_THAT(build.err, !Contains("syntax.cu:2:9"));
  ToolRun verboseBuild = runTlc({"build", "-v", fixture("errors/syntax.cu"), "-o",
                                 scratchDir("syntax-build-v") + "/out", "--no-cache"});
  CHECK(verboseBuild.exitCode == 1);
  CHECK_THAT(verboseBuild.err, Contains("syntax.cu:3:1: error: expected a \";\""));
  CHECK_THAT(verboseBuild.err, Contains("syntax.cu(3): error: expected a \";\""));
}

TEST_CASE("errors of all files are reported, not just the first", "[cli]") {
  ToolRun run = runTlc({"check", fixture("errors/declaration.cu"), fixture("errors/bad_name.cu"),
                        fixture("errors/unsupported.cu")});
  CHECK(run.exitCode == 1);
  CHECK_THAT(run.err, Contains("declaration.cu:2:31: error: unknown type name 'UnknownType'"));
  CHECK_THAT(run.err, Contains("bad_name.cu:2:17: error"));
  CHECK_THAT(run.err, Contains("unsupported.cu:5:35: error"));
}

TEST_CASE("unsupported parameters are errors naming the parameter", "[cli]") {
  ToolRun run = runTlc({"check", fixture("errors/unsupported.cu")});
  CHECK(run.exitCode == 1);
  CHECK_THAT(run.err, Contains("unsupported.cu:5:35: error: parameter 'o' of kernel 'takes' has "
                               "type 'CUtensorMap', which tlc cannot pass: a CUtensorMap "
                               "parameter must be declared 'const __grid_constant__ "
                               "CUtensorMap'"));
}

TEST_CASE("parameters tlc cannot type warn once per kernel and pass as bytes", "[cli]") {
  ToolRun run = runTlc({"inspect", "--json", fixture("image/untyped.cu")});
  REQUIRE(run.exitCode == 0);
  CHECK_THAT(run.err, Contains("untyped.cu:7:17: warning: kernel 'takes_owner' takes parameters "
                               "tlc cannot type, which its launcher takes as bytes, as many as "
                               "nvcc's image gives each: 'o' ('Owner': not trivially copyable), "
                               "'r' ('int &': a reference), 'x' ('long double': not a supported "
                               "scalar"));
  CHECK(llvm::StringRef(run.err).count("warning:") == 1);
  nlohmann::json params = nlohmann::json::parse(run.out)["kernels"][0]["params"];
  for (const nlohmann::json& param : params)
    CHECK(param["kind"] == "bytes");
  CHECK(params[0]["size"] == 8);
  CHECK(params[1]["size"] == 8);
}

TEST_CASE("cross-file duplicates name both definitions", "[cli]") {
  ToolRun run = runTlc({"check", fixture("errors/conflict_a.cu"), fixture("errors/conflict_b.cu")});
  CHECK(run.exitCode == 1);
  CHECK_THAT(run.err, Contains("conflict_b.cu:1:16: error: device symbol 'counter' is defined in "
                               "both"));
  CHECK_THAT(run.err, Contains("conflict_a.cu:1:16: note: first defined here"));
  CHECK_THAT(run.err, Contains("conflict_b.cu:2:17: error: device symbol '_Z7collidePi' (kernel "
                               "'collide') is defined in both"));
  CHECK_THAT(run.err, Contains("conflict_a.cu:2:17: note: first defined here"));
}

TEST_CASE("a non-inline kernel in a header included by two files is a conflict", "[cli]") {
  ToolRun run =
      runTlc({"check", fixture("errors/header_user_a.cu"), fixture("errors/header_user_b.cu")});
  CHECK(run.exitCode == 1);
  CHECK_THAT(run.err, Contains("header_kernel.cuh:2:17: error: device symbol '_Z9in_headerPi'"));
  CHECK_THAT(run.err, Contains("note: both inputs include this definition"));
}

TEST_CASE("the same template instantiation in two files is not a conflict", "[cli]") {
  ToolRun run = runTlc({"check", fixture("module/a.cu"), fixture("module/b.cu")});
  INFO(run.err);
  CHECK(run.exitCode == 0);
  CHECK_THAT(run.out, Contains("ok: 5 kernels"));
}

TEST_CASE("uninstantiated kernel templates warn and get no launcher", "[cli]") {
  ToolRun run = runTlc({"inspect", fixture("errors/uninstantiated.cu")});
  CHECK(run.exitCode == 0);
  CHECK_THAT(run.err, Contains("uninstantiated.cu:1:39: warning: kernel template 'never_used' is "
                               "never instantiated"));
  CHECK_THAT(run.out, Contains("1 kernel in 1 file"));
}

TEST_CASE("launcher name collisions and bad TLC_NAMEs are errors", "[cli]") {
  ToolRun bad = runTlc({"check", fixture("errors/bad_name.cu")});
  CHECK(bad.exitCode == 1);
  CHECK_THAT(bad.err, Contains("bad_name.cu:2:17: error: TLC_NAME(\"not an identifier\") is not "
                               "a valid C identifier"));

  ToolRun run = runTlc({"check", fixture("errors/names.cu")});
  CHECK(run.exitCode == 1);
  CHECK_THAT(run.err, Contains("error: launcher name 'same' of kernel 'second' collides with "
                               "kernel 'first'"));
  CHECK_THAT(run.err, Contains("note: kernel 'first' is named 'same' here"));
  CHECK_THAT(run.err, !Contains("'load'")); // tlc's own API is tlc_NAME_*: no name is reserved
}

TEST_CASE("usage errors exit 2, missing inputs 1, a missing toolkit 3", "[cli]") {
  ToolRun badFlag = runTlc({"inspect", "--no-such-flag", fixture("module/a.cu")});
  CHECK(badFlag.exitCode == 2);
  CHECK_THAT(badFlag.err, Contains("tlc: error: "));

  ToolRun badArch = runTlc({"inspect", "--arch", "volta", fixture("module/a.cu")});
  CHECK(badArch.exitCode == 2);

  ToolRun noCommand = runTlc({});
  CHECK(noCommand.exitCode == 2);

  ToolRun missing = runTlc({"inspect", fixture("errors/does_not_exist.cu")});
  CHECK(missing.exitCode == 1);
  CHECK_THAT(missing.err, Contains("tlc: error: no such file: "));

  ToolRun noToolkit = runTlc({"inspect", "--cuda-path", "/nonexistent", fixture("module/a.cu")});
  CHECK(noToolkit.exitCode == 3);
  CHECK_THAT(noToolkit.err, Contains("tlc: error: CUDA toolkit not usable at '/nonexistent'"));

  ToolRun fromEnvironment = runTlc({"inspect", fixture("module/a.cu")}, {"CUDA_PATH=/nowhere"});
  CHECK(fromEnvironment.exitCode == 3);
  CHECK_THAT(fromEnvironment.err, Contains("(chosen by CUDA_PATH)"));
}

// What tlc prints on a terminal: run under a pseudo-terminal by script(1), stdout and stderr
// both going to it.
static std::string onTerminal(const std::vector<std::string>& args,
                              const std::vector<std::string>& env) {
  std::string command = TLC_BINARY;
  for (const std::string& arg : args)
    command += " '" + arg + "'";
  tlc::RunOptions options;
  options.environment = tlc::environmentWith(env);
  auto result = tlc::runCommand({"script", "-qec", command, "/dev/null"}, options);
  REQUIRE_EXPECTED(result);
  return result->output;
}

TEST_CASE("diagnostics are colored on a terminal, plain otherwise or with NO_COLOR", "[cli]") {
  // Both kinds: Clang's, from the parse (declaration.cu), and tlc's own, across files.
  const std::vector<std::vector<std::string>> commands = {
      {"check", fixture("errors/declaration.cu")},
      {"check", fixture("errors/conflict_a.cu"), fixture("errors/conflict_b.cu")}};
  for (const std::vector<std::string>& args : commands) {
    INFO(args[1]);
    ToolRun piped = runTlc(args);
    CHECK(piped.exitCode == 1);
    CHECK(piped.err.find('\x1b') == std::string::npos);
    std::string colored = onTerminal(args, {"TERM=xterm", "NO_COLOR="});
    CHECK_THAT(colored, Contains("error"));
    CHECK(colored.find('\x1b') != std::string::npos);
    std::string plain = onTerminal(args, {"TERM=xterm", "NO_COLOR=1"});
    CHECK_THAT(plain, Contains("error"));
    CHECK(plain.find('\x1b') == std::string::npos);
  }
}

TEST_CASE("TMA annotations evaluate macros, constexpr names and template parameters",
          "[cli][tma]") {
  ToolRun run = runTlc({"inspect", "--json", "--arch", "sm_90a", fixture("tma/valid.cu")});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  nlohmann::json document = nlohmann::json::parse(run.out);
  const nlohmann::json& gemm = document["kernels"][0];
  CHECK(gemm["display_name"] == "gemm<128, 64>");
  const nlohmann::json& a = gemm["params"][0]["tensor_map"];
  CHECK(a["mode"] == "tiled");
  CHECK(a["box"] == nlohmann::json::array({64, 128}));
  CHECK(a["swizzle_enum"] == "CU_TENSOR_MAP_SWIZZLE_128B");
  CHECK(a["annotation"] == "dtype=bf16 box=(BK)x(BM) swizzle=128B");
  const nlohmann::json& b = gemm["params"][1]["tensor_map"];
  CHECK(b["box"] == nlohmann::json::array({32, 8, 4}));
  CHECK(b["element_strides"] == nlohmann::json::array({1, 1, 2}));
  CHECK(b["oob_fill_enum"] == "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA");
  const nlohmann::json& input = document["kernels"][1]["params"][0]["tensor_map"];
  CHECK(input["mode"] == "im2col");
  CHECK(input["channels_per_pixel"] == 64);
  CHECK(input["pixels_per_column"] == 128);
  CHECK(input["lower_corner"] == nlohmann::json::array({-1, -1}));
}

TEST_CASE("invalid TMA annotations fail at the parameter's location", "[cli][tma]") {
  ToolRun run = runTlc({"check", "--arch", "sm_90a", fixture("errors/tma_invalid.cu")});
  CHECK(run.exitCode == 1);
  CHECK_THAT(run.err, Contains("tma_invalid.cu:4:61: error: tensor-map parameter 'a' of kernel "
                               "'missing' needs TLC_TMA(\"...\") or TLC_TMA_IM2COL(\"...\")"));
  CHECK_THAT(run.err, Contains("tma_invalid.cu:5:62: error: TLC_TMA of parameter 'b': the inner "
                               "box dim is 512 bytes (256 x bf16), over the 128B swizzle span"));
  CHECK_THAT(run.err, Contains("tma_invalid.cu:6:64: error: TLC_TMA_IM2COL of parameter 'c': "
                               "lower has 1 entries but rank 4 has 2 spatial dims"));
  CHECK_THAT(run.err, Contains("tma_invalid.cu:7:33: error: TLC_TMA applies only to 'const "
                               "__grid_constant__ CUtensorMap' parameters"));
  CHECK_THAT(run.err, Contains("tma_invalid.cu:8:66: error: TLC_TMA of parameter 'e': cannot "
                               "evaluate box '(NOPE)': 'NOPE' is not a macro"));
}

TEST_CASE("a mistyped command or option gets 'did you mean', tlc help prints the help", "[cli]") {
  ToolRun command = runTlc({"biuld", "k.cu"});
  CHECK(command.exitCode == 2);
  CHECK(command.err == "tlc: error: unknown command 'biuld'; did you mean 'build'?\n");
  ToolRun option = runTlc({"build", "k.cu", "-o", "out", "--acrh", "sm_90"});
  CHECK(option.exitCode == 2);
  CHECK(option.err == "tlc: error: unknown option '--acrh'; did you mean '--arch'?\n");
  ToolRun python = runTlc({"build", "k.cu", "-o", "out", "--pyhton"});
  CHECK(python.err == "tlc: error: unknown option '--pyhton'; did you mean '--python'?\n");

  ToolRun help = runTlc({"help"});
  CHECK(help.exitCode == 0);
  CHECK(help.err.empty());
  CHECK(help.out == runTlc({"--help"}).out);
  ToolRun buildHelp = runTlc({"help", "build"});
  CHECK(buildHelp.exitCode == 0);
  CHECK(buildHelp.out == runTlc({"build", "--help"}).out);
  CHECK_THAT(buildHelp.out, Contains("-maxrregcount, --maxrregcount VALUE"));
  // `tlc cache` alone is a usage error naming its commands, followed by the cache's usage.
  ToolRun cache = runTlc({"cache"});
  CHECK(cache.exitCode == 2);
  CHECK_THAT(cache.err, Contains("tlc: error: 'tlc cache' needs a command: stats, clear, prune\n"));
  CHECK_THAT(cache.err, Contains(runTlc({"cache", "--help"}).out));
}

TEST_CASE("an nvcc command line with tlc build in front builds what nvcc builds",
          "[cli][nvcc-options]") {
  std::string dir = scratchDir("nvcc-command-line");
  ToolRun run = runTlc({"build", sample("vadd/vadd.cu"), "-o", dir + "/out", "-arch=sm_90", "-O3",
                        "-lineinfo", "--use_fast_math", "-Xptxas", "-v", "-maxrregcount", "64",
                        "--no-cache", "-q"});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  nlohmann::json manifest = nlohmann::json::parse(readText(dir + "/out/vadd.json"));
  CHECK(manifest["archs"] == nlohmann::json::array({"sm_90"}));
  std::string nvcc = manifest["commands"][0].get<std::string>();
  CHECK_THAT(nvcc, Contains("arch=compute_90,code=[sm_90,compute_90]"));
  for (const char* flag :
       {" -O3 ", " -lineinfo ", " --use_fast_math ", " -Xptxas -v ", " -maxrregcount 64 "})
    CHECK_THAT(nvcc, Contains(flag));
  CHECK(nvcc.find(" -O3 ") == nvcc.rfind(" -O3 ")); // the user's -O3, not tlc's default too
}

TEST_CASE("nvcc's options change what the parse sees, as they change what nvcc sees",
          "[cli][nvcc-options]") {
  std::string input = fixture("nvcc_options/parse.cu");
  auto kernels = [&](const std::vector<std::string>& options) {
    std::vector<std::string> args = {"inspect", "--json", input};
    args.insert(args.end(), options.begin(), options.end());
    ToolRun run = runTlc(args);
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    std::set<std::string> names;
    nlohmann::json document = nlohmann::json::parse(run.out);
    for (const nlohmann::json& kernel : document["kernels"])
      names.insert(kernel["launcher"].get<std::string>());
    return names;
  };
  using Names = std::set<std::string>;
  CHECK(kernels({}) == Names{"unless_hidden"});
  CHECK(kernels({"-DHIDDEN"}).empty());
  CHECK(kernels({"-DHIDDEN", "-UHIDDEN"}) == Names{"unless_hidden"});
  CHECK(kernels({"-D", "HIDDEN", "-Xnvcc", "-U", "-Xnvcc", "HIDDEN"}) == Names{"unless_hidden"});
  CHECK(kernels({"-isystem", fixture("nvcc_options/system"), "-DHIDDEN"}) ==
        Names{"from_system_header"});
  CHECK(kernels({"-include", fixture("nvcc_options/pre.h")}) ==
        Names{"unless_hidden", "pre_included"});
  CHECK(kernels({"-std=c++20"}) == Names{"unless_hidden", "cxx20"});
  CHECK(kernels({"-G"}) == Names{"unless_hidden", "device_debug"});
  CHECK(kernels({"-rdc=true"}) == Names{"unless_hidden", "relocatable"});
  CHECK(kernels({"--default-stream", "per-thread"}) == Names{"unless_hidden", "per_thread_stream"});
  CHECK(kernels({"--extended-lambda"}) == Names{"unless_hidden", "extended_lambda"});
  CHECK(kernels({"--expt-relaxed-constexpr"}) == Names{"unless_hidden", "relaxed_constexpr"});
  CHECK(kernels({"--use_fast_math"}) == Names{"unless_hidden"});

  // nvcc agrees: the build checks the image's kernels against the parse's, and fails on any
  // kernel one of them has and the other lacks.
  std::string dir = scratchDir("nvcc-options-parse");
  ToolRun build =
      runTlc({"build", input, "-o", dir + "/out", "-arch=sm_90", "-isystem",
              fixture("nvcc_options/system"), "-include", fixture("nvcc_options/pre.h"), "-DHIDDEN",
              "-std=c++20", "-G", "-rdc=true", "--default-stream", "per-thread",
              "--extended-lambda", "--use_fast_math", "--no-cache", "-q"});
  INFO(build.err);
  REQUIRE(build.exitCode == 0);
  nlohmann::json manifest = nlohmann::json::parse(readText(dir + "/out/parse.json"));
  std::set<std::string> built;
  for (const nlohmann::json& kernel : manifest["kernels"])
    built.insert(kernel["launcher"].get<std::string>());
  CHECK(built == Names{"from_system_header", "pre_included", "cxx20", "device_debug", "relocatable",
                       "per_thread_stream", "extended_lambda"});
}
