// skipsBodyOf and userDeviceBody (frontend/Extractor.h): which function bodies the parse skips.
// A header's ordinary functions and libstdc++'s special math templates are skipped; a template
// elsewhere in a system header keeps its body (instantiating it may instantiate a kernel), unless
// only device code runs it. Of the user's code, the bodies only device code runs are skipped
// (kernels, device-only functions), unless one launches a kernel. Parsed from files in a scratch
// folder taken as a system folder, and from test/fixtures/bodies.
#include "TestSupport.h"

#include "checks/Analysis.h"

#include "frontend/Extractor.h"
#include "support/Files.h"
#include "toolchain/Toolchain.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include <map>
#include <memory>
#include <string>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

// Every named function of the parse (templates by their pattern): whether its body is skipped.
class Decisions : public clang::RecursiveASTVisitor<Decisions> {
public:
  explicit Decisions(const clang::SourceManager& sources) : Sources(sources) {}
  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (function->getIdentifier() && !function->isTemplateInstantiation())
      Skipped[function->getName().str()] = skipsBodyOf(function, Sources);
    if (function->getIdentifier() && !function->isTemplateInstantiation())
      UserSkipped[function->getName().str()] = userDeviceBody(function, Sources);
    return true;
  }
  const clang::SourceManager& Sources;
  std::map<std::string, bool> Skipped;
  std::map<std::string, bool> UserSkipped;
};

void write(const std::string& path, const std::string& text) {
  REQUIRE(!llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)));
  REQUIRE(!writeFile(path, text));
}

// The decisions for the functions of CUDA `code` (host side), read as `name`.cu in a scratch
// folder, with `system` a system include folder.
Decisions cudaDecisions(const std::string& code, const std::string& system, const std::string& name,
                        std::unique_ptr<clang::ASTUnit>& unit) {
  unit = clang::tooling::buildASTFromCodeWithArgs(
      code,
      {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17", "-isystem",
       system, "-resource-dir", clangResourceDir(), "-Wno-everything"},
      scratchDir(name + "-input") + "/user.cu");
  REQUIRE(unit);
  Decisions decisions(unit->getSourceManager());
  decisions.TraverseDecl(unit->getASTContext().getTranslationUnitDecl());
  return decisions;
}

void checkDecisions(const std::map<std::string, bool>& made,
                    const std::map<std::string, bool>& expected) {
  for (const auto& [name, skipped] : expected) {
    INFO(name);
    REQUIRE(made.count(name));
    CHECK(made.at(name) == skipped);
  }
}

} // namespace

TEST_CASE("the parse skips the bodies of headers' ordinary functions and of libstdc++'s special "
          "math templates only",
          "[frontend]") {
  std::string system = scratchDir("skipped-bodies") + "/include";
  write(system + "/bits/specfun.h", "template <class T> T beta_like(T x) { return x; }\n"
                                    "#include <tr1/gamma.tcc>\n");
  write(system + "/tr1/gamma.tcc", "template <class T> T gamma_like(T x) { return x + 1; }\n");
  write(system + "/bits/algo.h",
        "template <class T, class F> void each_like(T* p, F f) { f(*p); }\n"
        "inline int plain_inline(int x) { return x * 2; }\n");
  write(system + "/other/gamma.tcc", "template <class T> T not_tr1(T x) { return x; }\n");
  std::string code = "#include <bits/specfun.h>\n#include <bits/algo.h>\n#include "
                     "<other/gamma.tcc>\n"
                     "template <class T> void user_template(T* p) { *p = T(); }\n"
                     "void user_function(int* p) { *p = 1; }\n";
  std::unique_ptr<clang::ASTUnit> unit = clang::tooling::buildASTFromCodeWithArgs(
      code,
      {"-x", "c++", "-std=c++17", "-isystem", system, "-resource-dir", clangResourceDir(),
       "-Wno-everything"},
      scratchDir("skipped-bodies-input") + "/user.cpp");
  REQUIRE(unit);
  Decisions decisions(unit->getSourceManager());
  decisions.TraverseDecl(unit->getASTContext().getTranslationUnitDecl());
  std::map<std::string, bool> expected = {
      {"beta_like", true}, {"gamma_like", true},     {"plain_inline", true},   {"each_like", false},
      {"not_tr1", false},  {"user_template", false}, {"user_function", false},
  };
  for (const auto& [name, skipped] : expected) {
    INFO(name);
    REQUIRE(decisions.Skipped.count(name));
    CHECK(decisions.Skipped.at(name) == skipped);
  }
}

TEST_CASE("the parse skips the bodies of a system header's device-only templates, not those host "
          "code can run",
          "[frontend]") {
  std::string system = scratchDir("skipped-device-bodies") + "/include";
  write(system + "/blocklib/block.cuh",
        "template <class T> __attribute__((device)) T device_only(T x) { return x; }\n"
        "template <class T> struct Block {\n"
        "  __attribute__((device)) T member(T x) { return x; }\n"
        "  __attribute__((host)) __attribute__((device)) T both(T x) { return x; }\n"
        "};\n"
        "template <class T> __attribute__((host)) __attribute__((device)) T host_device(T x) {\n"
        "  return x; }\n"
        "template <class T> __attribute__((global)) void library_kernel(T* p) { *p = T(); }\n"
        "template <class T> __attribute__((device)) constexpr T constant(T x) { return x; }\n");
  std::string code =
      "#include <blocklib/block.cuh>\n"
      "template <class T> __attribute__((device)) T user_device(T x) { return x; }\n";
  std::unique_ptr<clang::ASTUnit> unit;
  Decisions decisions = cudaDecisions(code, system, "skipped-device-bodies", unit);
  checkDecisions(decisions.Skipped, {
                                        {"device_only", true},
                                        {"member", true},
                                        {"both", false},
                                        {"host_device", false},
                                        {"library_kernel", false},
                                        {"constant", false},
                                        {"user_device", false},
                                    });
}

TEST_CASE("the parse skips the bodies of the user's kernels and device-only functions, not those "
          "host code runs nor those Clang parses from kept tokens",
          "[frontend]") {
  std::string system = scratchDir("skipped-user-bodies") + "/include";
  write(system + "/lib/kernels.cuh",
        "__attribute__((global)) void library_kernel(int* p) { *p = 0; }\n"
        "template <class T> __attribute__((global)) void library_template(T* p) { *p = T(); }\n");
  std::string code =
      "#include <lib/kernels.cuh>\n"
      "__attribute__((global)) void user_kernel(int* p) { *p = 1; }\n"
      "template <class T> __attribute__((global)) void kernel_template(T* p) { *p = T(); }\n"
      "__attribute__((device)) int device_only(int x) { return x; }\n"
      "template <class T> __attribute__((device)) T device_template(T x) { return x; }\n"
      "__attribute__((device)) auto deduced(int x) { return x; }\n"
      "__attribute__((device)) constexpr int constant(int x) { return x; }\n"
      "__attribute__((host)) __attribute__((device)) int both(int x) { return x; }\n"
      "int host_only(int x) { return x; }\n"
      "struct Holder {\n"
      "  __attribute__((device)) int member(int x) { return x; }\n"
      "  friend __attribute__((device)) int befriended(Holder) { return 0; }\n"
      "};\n";
  std::unique_ptr<clang::ASTUnit> unit;
  Decisions decisions = cudaDecisions(code, system, "skipped-user-bodies", unit);
  checkDecisions(decisions.UserSkipped, {
                                            {"user_kernel", true},
                                            {"kernel_template", true},
                                            {"device_only", true},
                                            {"device_template", true},
                                            {"deduced", false},
                                            {"constant", false},
                                            {"both", false},
                                            {"host_only", false},
                                            {"member", false},
                                            {"befriended", false},
                                            {"library_kernel", false},
                                            {"library_template", false},
                                        });
}

TEST_CASE("kernels whose bodies the parse skipped keep their launchers, and what the bodies use "
          "is never instantiated",
          "[frontend]") {
  // trap_template.cu's bodies instantiate a class template whose static_assert fails: parsing any
  // of them is an error, which analyzeOk fails on.
  Analysis analysis = analyzeOk({fixture("bodies/trap_template.cu")});
  std::vector<std::string> names;
  for (const Kernel& kernel : analysis.module.kernels)
    names.push_back(kernel.displayName);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"fill<double>", "fill<float>", "plain"});
  const Kernel& explicitInstance = kernelNamed(analysis.module, "fill<float>");
  REQUIRE(explicitInstance.params.size() == 2);
  CHECK(explicitInstance.params[0].name == "out");
  CHECK(explicitInstance.params[1].name == "value");
  CHECK(explicitInstance.symbol == "_Z4fillIfEvPT_S0_");
  // Launched from host code: an implicit instance.
  CHECK(kernelNamed(analysis.module, "fill<double>").symbol == "_Z4fillIdEvPT_S0_");
}

TEST_CASE("a kernel launched from a skipped body (through a macro) parses the input again with "
          "every body",
          "[frontend]") {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  SECTION("relocatable code: the launch instantiates a kernel") {
    FrontendOptions options = frontendFor();
    options.relocatable = true;
    auto analysis = analyze({fixture("bodies/device_launch.cu")}, options, *toolkit);
    REQUIRE_EXPECTED(analysis);
    CHECK(kernelNamed(analysis->module, "child<float>").symbol == "_Z5childIfEvPT_");
    CHECK(kernelNamed(analysis->module, "parent").symbol == "_Z6parentPf");
  }
  SECTION("whole-program code: Clang says relocatable code is needed") {
    auto analysis = analyze({fixture("bodies/device_launch.cu")}, frontendFor(), *toolkit);
    REQUIRE_EXPECTED(analysis);
    CHECK(analysis->module.deviceSideLaunch);
  }
}

TEST_CASE("a device function defined in two inputs is a conflict though the parse skipped both "
          "bodies",
          "[frontend]") {
  ToolRun run = runTlc({"check", fixture("bodies/helper_a.cu"), fixture("bodies/helper_b.cu")});
  CHECK(run.exitCode == 1);
  CHECK_THAT(run.err, Contains("helper_b.cu:2:16: error: device symbol '_Z6helperi' (device "
                               "function 'helper') is defined in both"));
  CHECK_THAT(run.err, Contains("helper_a.cu:3:16: note: first defined here"));
}
