// builder/PythonBuild and render/PythonView: the extension's commands and their place in the plan,
// the package's files, Python keywords for parameters, and the launcher names a package refuses
// (planned in memory; no tool runs).
#include "builder/BuildPlan.h"
#include "builder/PythonBuild.h"
#include "render/PythonView.h"
#include "support/Error.h"

#include "llvm/ADT/StringRef.h"

#include <catch2/catch.hpp>

#include <algorithm>

namespace {

using Catch::Matchers::Contains;

bool has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

tlc::PythonPlan pythonPlan() {
  tlc::PythonBuildOptions options;
  options.name = "m";
  options.compiler = "c++";
  // Links in the work folder, as the build makes them (builder/ToolPaths.h).
  options.tlcInclude = "tlc-include";
  options.cudaInclude = "cuda-include";
  options.bindingLibrary = "libtlc_python.a";
  options.workDir = "/stage/work";
  return tlc::planPythonBuild(options);
}

tlc::HostPlan hostPlan() {
  tlc::HostPlan host;
  host.compileLauncher = {"c++ m_launcher.cpp", {"c++"}, "m_launcher.o", "/stage/work", {}};
  host.link = {"link libm.so", {"c++"}, "libm.so", "/stage/work", {}};
  return host;
}

tlc::DevicePlan devicePlan() {
  tlc::DevicePlan device;
  device.compiles.push_back({"nvcc a.cu (sm_90a)", {"nvcc"}, "m.cubin", "/stage/work", {}});
  return device;
}

size_t named(const tlc::BuildPlan& plan, const std::string& description) {
  for (size_t i = 0; i < plan.tasks.size(); ++i)
    if (plan.tasks[i].description == description)
      return i;
  FAIL("no task '" << description << "'");
  return 0;
}

bool waitsFor(const tlc::BuildPlan& plan, size_t task, size_t before) {
  for (size_t direct : plan.tasks[task].after)
    if (direct == before || waitsFor(plan, direct, before))
      return true;
  return false;
}

tlc::Kernel kernel(const std::string& launcher, std::vector<std::string> params = {}) {
  tlc::Kernel kernel;
  kernel.name = kernel.displayName = kernel.launcher = launcher;
  kernel.location = {"k.cu", 3, 17};
  for (const std::string& name : params) {
    tlc::Param param;
    param.name = name;
    kernel.params.push_back(param);
  }
  return kernel;
}

} // namespace

TEST_CASE("the extension is C against the stable ABI, linked to libNAME.so beside or two up",
          "[python]") {
  tlc::PythonPlan plan = pythonPlan();
  const std::vector<std::string>& compile = plan.compileExtension.argv;
  CHECK(compile.front() == "c++");
  CHECK(has(compile, "-x"));
  CHECK(has(compile, "c"));
  CHECK(has(compile, "tlc-include")); // tlc/python.h: no Python headers are needed
  CHECK(has(compile, "-fvisibility=hidden"));
  CHECK(has(compile, "m_python.c"));
  // In the work folder, with relative names only; the build copies the extension into the
  // package (NAME/tlc/_ext.abi3.so).
  for (const tlc::Step* step : {&plan.compileExtension, &plan.linkExtension}) {
    CHECK(step->workingDir == "/stage/work");
    for (const std::string& arg : step->argv)
      CHECK_FALSE(llvm::StringRef(arg).starts_with("/"));
  }
  const std::vector<std::string>& link = plan.linkExtension.argv;
  CHECK(plan.linkExtension.output == tlc::pythonExtensionWorkName("m"));
  CHECK(has(link, "libtlc_python.a"));
  CHECK(has(link, "libm.so"));
  CHECK(has(link, "-Wl,-rpath,$ORIGIN/..:$ORIGIN/../..")); // a wheel's NAME/libNAME.so first
  CHECK_FALSE(has(link, "-Wl,--no-undefined")); // the interpreter provides Python's symbols
}

TEST_CASE("the package's files", "[python]") {
  tlc::PythonPackageFiles files = tlc::pythonPackageFiles("m");
  CHECK(files.all() == std::vector<std::string>{"m/__init__.py", "m/__init__.pyi", "m/py.typed",
                                                "m/tlc/__init__.py", "m/tlc/__init__.pyi",
                                                "m/tlc/_ext.abi3.so"});
}

TEST_CASE("with --python the plan renders the package and links the extension last", "[python]") {
  tlc::PythonPlan python = pythonPlan();
  tlc::BuildPlanOptions options;
  options.inputCount = 1;
  options.python = true;
  tlc::BuildPlan plan = tlc::planBuild(options, devicePlan(), hostPlan(), &python);
  size_t render = static_cast<size_t>(plan.find(tlc::TaskKind::Render));
  size_t renderPython = static_cast<size_t>(plan.find(tlc::TaskKind::RenderPython));
  size_t compile = named(plan, "cc m_python.c");
  size_t linkExtension = named(plan, "link m/tlc/_ext.abi3.so");
  size_t manifest = static_cast<size_t>(plan.find(tlc::TaskKind::Manifest));
  CHECK(waitsFor(plan, renderPython, render));
  CHECK(waitsFor(plan, compile, renderPython));
  CHECK(waitsFor(plan, linkExtension, compile));
  CHECK(waitsFor(plan, linkExtension, named(plan, "link libm.so")));
  CHECK(waitsFor(plan, manifest, linkExtension));
  CHECK_FALSE(waitsFor(plan, compile, named(plan, "link libm.so"))); // runs beside the link
  CHECK(plan.progressTotal() == 1 + 1 + 2 + 2);

  options.emitOnly = true;
  tlc::BuildPlan sources = tlc::planBuild(options, devicePlan(), hostPlan(), nullptr);
  CHECK(sources.find(tlc::TaskKind::RenderPython) >= 0);
  CHECK(sources.find(tlc::TaskKind::Manifest) < 0);
}

TEST_CASE("parameter keywords avoid launch options, Python keywords and each other", "[python]") {
  CHECK(tlc::pythonKeywords(kernel("k", {"x", "grid", "lambda", "stream", "block_"})) ==
        std::vector<std::string>{"x", "grid_", "lambda_", "stream_", "block_"});
  CHECK(tlc::pythonKeywords(kernel("k", {"block", "block_"})) ==
        std::vector<std::string>{"block_", "block__"});
  // A name beyond ASCII is argN, as an unnamed parameter: no signature text can hold it.
  CHECK(tlc::pythonKeywords(kernel("k", {"x", "\xc3\xa9t\xc3\xa9", "arg2", "\xc3\xa9"})) ==
        std::vector<std::string>{"x", "arg1", "arg2", "arg3"});
  CHECK(tlc::pythonKeywords(kernel("k", {"arg0", "\xc3\xa9"})) ==
        std::vector<std::string>{"arg0", "arg1"});
  CHECK(tlc::pythonLaunchOptions().size() == 11);
}

TEST_CASE("launcher names a package cannot hold are refused, each with its kernel", "[python]") {
  tlc::Module module;
  for (const char* name : {"tlc", "saxpy", "None", "__init__", "_private", "Error", "match"})
    module.kernels.push_back(kernel(name));
  tlc::ErrorSummary summary = tlc::summarize(tlc::checkPythonNames(module));
  CHECK(summary.code == tlc::ExitCode::InputError);
  CHECK_THAT(summary.message, Contains("k.cu:3:17: launcher name 'tlc' of kernel 'tlc' is the "
                                       "package's helper submodule (NAME.tlc)"));
  CHECK_THAT(summary.message, Contains("'None' is a Python keyword"));
  CHECK_THAT(summary.message, Contains("'__init__' of kernel '__init__' is reserved"));
  for (const char* allowed : {"'saxpy'", "'_private'", "'Error'", "'match'"})
    CHECK_THAT(summary.message, !Contains(allowed));

  tlc::Module fine;
  fine.kernels.push_back(kernel("register_torch_ops"));
  CHECK(tlc::summarize(tlc::checkPythonNames(fine)).code == tlc::ExitCode::Ok);
}
