// builder/LauncherSources and builder/PythonPackage: the sources and the Python package rendered
// from an in-memory module with tlc's own templates into a scratch folder, no tool run.
#include "builder/LauncherSources.h"
#include "builder/PythonPackage.h"

#include "TestSupport.h"

#include "model/DerivedFacts.h"
#include "support/Error.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

using namespace tlc;

namespace {

Module oneKernel(const std::string& launcher = "scale") {
  Module module;
  Kernel kernel;
  kernel.name = kernel.displayName = kernel.symbol = "scale";
  kernel.launcher = launcher;
  kernel.externC = true;
  kernel.targets = {"sm_90a"};
  module.kernels.push_back(kernel);
  deriveFacts(module);
  return module;
}

TemplateSet templates() {
  auto set = TemplateSet::load(std::string(TLC_SOURCE_DIR) + "/templates");
  REQUIRE_EXPECTED(set);
  return std::move(*set);
}

LauncherFacts factsFor(bool embedImage) {
  LauncherFacts facts;
  facts.name = "m";
  facts.inputs = {"a.cu"};
  facts.targets = {"sm_90a"};
  facts.imageFile = "m.cubin";
  facts.embedImage = embedImage;
  return facts;
}

} // namespace

TEST_CASE("the launcher's sources are written, the launcher again only when it changed",
          "[builder]") {
  std::string dir = test::scratchDir("launcher-sources");
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/out"));
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/work"));
  TemplateSet set = templates();
  OutputNames names("m", {GpuTarget{"compute_90a", "sm_90a"}});
  LauncherSources sources(set, names, dir + "/out", dir + "/work", true);
  nlohmann::json view = launcherView(oneKernel(), factsFor(true));
  auto first = sources.write(view);
  REQUIRE_EXPECTED(first);
  CHECK(*first);
  CHECK(llvm::sys::fs::exists(dir + "/out/m.h"));
  CHECK(test::readText(dir + "/work/m.h") == test::readText(dir + "/out/m.h"));
  CHECK(llvm::sys::fs::exists(dir + "/work/m_launcher.cpp"));
  CHECK(llvm::sys::fs::exists(dir + "/work/m_image.S"));
  CHECK_FALSE(llvm::sys::fs::exists(dir + "/out/m_launcher.cpp"));
  // The same module again: the launcher compiled from the first needs no compile.
  auto second = sources.write(view);
  REQUIRE_EXPECTED(second);
  CHECK_FALSE(*second);
  // Another launcher name: written and compiled again.
  auto renamed = sources.write(launcherView(oneKernel("scale2"), factsFor(true)));
  REQUIRE_EXPECTED(renamed);
  CHECK(*renamed);
  CHECK_THAT(test::readText(dir + "/work/m_launcher.cpp"), Catch::Contains("m_scale2"));
}

TEST_CASE("an external image gets no NAME_image.S, and --emit-only writes beside the header",
          "[builder]") {
  std::string dir = test::scratchDir("launcher-sources-external");
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/out"));
  TemplateSet set = templates();
  LauncherSources sources(set, OutputNames("m"), dir + "/out", dir + "/out", false);
  auto written = sources.write(launcherView(oneKernel(), factsFor(false)));
  REQUIRE_EXPECTED(written);
  CHECK(llvm::sys::fs::exists(dir + "/out/m.h"));
  CHECK(llvm::sys::fs::exists(dir + "/out/m_launcher.cpp"));
  CHECK_FALSE(llvm::sys::fs::exists(dir + "/out/m_image.S"));
}

TEST_CASE("the Python package's files are rendered and its helpers copied", "[builder]") {
  std::string dir = test::scratchDir("python-package");
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/out"));
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/work"));
  TemplateSet set = templates();
  OutputNames names("m", {GpuTarget{"compute_90a", "sm_90a"}});
  Module module = oneKernel();
  std::string helpers = std::string(TLC_SOURCE_DIR) + "/python/package";
  REQUIRE_FALSE(
      llvm::errorToBool(writePythonPackage(module, launcherView(module, factsFor(true)), set, names,
                                           {helpers, dir + "/out", dir + "/work"})));
  for (const std::string& file : names.python.all())
    if (file != names.python.extension)
      CHECK(llvm::sys::fs::exists(dir + "/out/" + file));
  CHECK(test::readText(dir + "/out/m/tlc/__init__.py") ==
        test::readText(helpers + "/tlc/__init__.py"));
  CHECK(test::readText(dir + "/out/m/py.typed").empty());
  CHECK(llvm::sys::fs::exists(dir + "/work/m_python.c"));
  CHECK_THAT(test::readText(dir + "/out/m/__init__.pyi"), Catch::Contains("def scale("));
}

TEST_CASE("the Python package refuses a launcher named like its helper, and a missing helper",
          "[builder]") {
  std::string dir = test::scratchDir("python-package-refused");
  REQUIRE(!llvm::sys::fs::create_directories(dir + "/out"));
  TemplateSet set = templates();
  OutputNames names("m");
  Module clash = oneKernel("tlc");
  ErrorSummary refused = summarize(writePythonPackage(
      clash, launcherView(clash, factsFor(true)), set, names, {dir, dir + "/out", dir + "/out"}));
  CHECK(refused.code == ExitCode::InputError);
  Module module = oneKernel();
  ErrorSummary missing =
      summarize(writePythonPackage(module, launcherView(module, factsFor(true)), set, names,
                                   {dir + "/no-helpers", dir + "/out", dir + "/out"}));
  CHECK(missing.code == ExitCode::ToolchainError);
  CHECK_THAT(missing.message,
             Catch::Contains("no-helpers/tlc/__init__.py' is missing (reinstall tlc)"));
}
