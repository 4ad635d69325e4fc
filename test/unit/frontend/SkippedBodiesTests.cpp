// skipsBodyOf (frontend/Extractor.h): which function bodies the parse skips. A header's ordinary
// functions and libstdc++'s special math templates are skipped; a template elsewhere in a system
// header keeps its body (instantiating it may instantiate a kernel), and so does all of the
// user's code. Parsed from files in a scratch folder taken as a system folder. Last, what the
// user's bodies decide, which a parse skipping them would lose (test/fixtures/bodies).
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
    return true;
  }
  const clang::SourceManager& Sources;
  std::map<std::string, bool> Skipped;
};

void write(const std::string& path, const std::string& text) {
  REQUIRE(!llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)));
  REQUIRE(!writeFile(path, text));
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
  std::unique_ptr<clang::ASTUnit> unit = clang::tooling::buildASTFromCodeWithArgs(
      code,
      {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17", "-isystem",
       system, "-resource-dir", clangResourceDir(), "-Wno-everything"},
      scratchDir("skipped-device-bodies-input") + "/user.cu");
  REQUIRE(unit);
  Decisions decisions(unit->getSourceManager());
  decisions.TraverseDecl(unit->getASTContext().getTranslationUnitDecl());
  std::map<std::string, bool> expected = {
      {"device_only", true},  {"member", true},          {"both", false},
      {"host_device", false}, {"library_kernel", false}, {"constant", false},
      {"user_device", false},
  };
  for (const auto& [name, skipped] : expected) {
    INFO(name);
    REQUIRE(decisions.Skipped.count(name));
    CHECK(decisions.Skipped.at(name) == skipped);
  }
}

// What the user's device bodies say matters, so the parse reads them all (a parse that skipped
// the bodies of kernels and device-only functions was tried, and lost both of these).

TEST_CASE("a kernel template instance only a kernel's body names gets its launcher from the parse",
          "[frontend]") {
  Analysis analysis = analyzeOk({fixture("bodies/address_taken.cu")});
  const Kernel& child = kernelNamed(analysis.module, "child<float>");
  CHECK(child.launcher == "spawned_float"); // its TLC_NAME
  REQUIRE(child.params.size() == 2);
  CHECK(child.params[0].name == "p");
  CHECK(child.params[1].name == "v");
  REQUIRE(child.launchBounds);
  CHECK(child.launchBounds->maxThreads == 64);
}

TEST_CASE("device definitions whose bodies differ between inputs are a conflict", "[frontend]") {
  ToolRun run = runTlc({"check", fixture("bodies/inline_a.cu"), fixture("bodies/inline_b.cu")});
  CHECK(run.exitCode == 1);
  CHECK_THAT(run.err, Contains("inline_b.cu:2:23: error: device symbol '_Z4bumpi' (device "
                               "function 'bump') has different definitions in "));
  CHECK_THAT(run.err, Contains("inline_b.cu:6:17: error: device symbol '_Z4fillIiEvPT_' (kernel "
                               "'fill') has different definitions in "));
}
