// builder/BuildPlan and builder/DeviceBuild: the commands and the order of a build, planned in
// memory from options alone (no tool runs).
#include "builder/BuildPlan.h"
#include "builder/DeviceBuild.h"
#include "builder/HostBuild.h"
#include "builder/ToolPaths.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

namespace {

using Catch::Matchers::Contains;

tlc::CudaToolkit fakeToolkit() {
  tlc::CudaToolkit toolkit;
  toolkit.root = "/cuda";
  toolkit.nvcc = "/cuda/bin/nvcc";
  toolkit.fatbinary = "/cuda/bin/fatbinary";
  toolkit.includeDir = "/cuda/include";
  toolkit.cudaVersion = 13000;
  return toolkit;
}

// SASS for an sm_XX name, PTX for a compute_XX one, compiled from the matching virtual arch.
tlc::GpuTarget target(const std::string& code) {
  bool ptx = code.rfind("compute_", 0) == 0;
  return {ptx ? code : "compute_" + code.substr(3), code};
}

tlc::DeviceBuildOptions deviceOptions(std::vector<std::string> inputs,
                                      std::vector<std::string> codes) {
  tlc::DeviceBuildOptions options;
  options.name = "m";
  options.inputs = std::move(inputs);
  for (const std::string& code : codes)
    options.targets.push_back(target(code));
  options.workDir = "/stage/work";
  return options;
}

tlc::HostPlan hostPlan(bool embed = true) {
  tlc::HostBuildOptions host;
  host.name = "m";
  host.compiler = "c++";
  host.cudaInclude = "cuda-include";
  host.tlcInclude = "tlc-include";
  host.runtimeLibrary = "libtlc_runtime.a";
  host.workDir = "/stage/work";
  host.embedImage = embed;
  return tlc::planHostBuild(host);
}

bool has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

// Every task of `plan` named in `before` must be among the tasks `task` waits for, directly or
// through others.
bool waitsFor(const tlc::BuildPlan& plan, size_t task, size_t before) {
  for (size_t direct : plan.tasks[task].after)
    if (direct == before || waitsFor(plan, direct, before))
      return true;
  return false;
}

size_t only(const tlc::BuildPlan& plan, tlc::TaskKind kind) {
  int index = plan.find(kind);
  REQUIRE(index >= 0);
  return static_cast<size_t>(index);
}

size_t toolNamed(const tlc::BuildPlan& plan, const std::string& description) {
  for (size_t i = 0; i < plan.tasks.size(); ++i)
    if (plan.tasks[i].description == description)
      return i;
  FAIL("no task '" << description << "'");
  return 0;
}

} // namespace

TEST_CASE("one input and one SASS target compile whole-program to a cubin", "[plan]") {
  tlc::DevicePlan device =
      tlc::planDeviceBuild(deviceOptions({"in0/a.cu"}, {"sm_90a"}), fakeToolkit());
  REQUIRE(device.compiles.size() == 1);
  CHECK(device.links.empty());
  CHECK_FALSE(device.package);
  CHECK_FALSE(device.fatbin);
  const std::vector<std::string>& argv = device.compiles[0].argv;
  CHECK(argv.front() == "/cuda/bin/nvcc");
  CHECK(has(argv, "-cubin"));
  CHECK_FALSE(has(argv, "-rdc=true"));
  CHECK(has(argv, "-gencode=arch=compute_90a,code=[sm_90a]"));
  CHECK(has(argv, "-O3"));
  // One cubin is the image, named as NAME_image.S embeds it; tools get relative names.
  CHECK(argv.back() == "m.cubin");
  CHECK(device.compiles[0].workingDir == "/stage/work");
  CHECK(device.image == "/stage/work/m.cubin");
}

TEST_CASE("one input and several targets compile in one nvcc run into the image", "[plan]") {
  tlc::DevicePlan device = tlc::planDeviceBuild(
      deviceOptions({"in0/a.cu"}, {"sm_80", "compute_80", "sm_90a"}), fakeToolkit());
  REQUIRE(device.compiles.size() == 1); // the front end runs once per virtual arch, as in nvcc
  CHECK_FALSE(device.package);
  CHECK(device.fatbin);
  const std::vector<std::string>& argv = device.compiles[0].argv;
  CHECK(has(argv, "-fatbin"));
  CHECK(has(argv, "--no-compress"));
  CHECK(has(argv, "-gencode=arch=compute_80,code=[sm_80,compute_80]"));
  CHECK(has(argv, "-gencode=arch=compute_90a,code=[sm_90a]"));
  CHECK(device.compiles[0].description == "nvcc a.cu (sm_80, compute_80, sm_90a)");
  CHECK(argv.back() == "m.fatbin"); // the tools get names in the work folder, tlc paths
  CHECK(device.image == "/stage/work/m.fatbin");
  CHECK(device.targets.size() == 3);
}

TEST_CASE("several inputs compile relocatable and are device-linked per arch", "[plan]") {
  tlc::DevicePlan device = tlc::planDeviceBuild(
      deviceOptions({"in0/a.cu", "in1/b.cu"}, {"sm_80", "sm_90a"}), fakeToolkit());
  CHECK(device.relocatable);
  CHECK(device.compiles.size() == 2); // one per input, for every target
  for (const tlc::Step& compile : device.compiles)
    CHECK((has(compile.argv, "-fatbin") && has(compile.argv, "-rdc=true")));
  REQUIRE(device.links.size() == 2);
  CHECK(has(device.links[0].argv, "-dlink"));
  CHECK(has(device.links[0].argv, "-ignore-host-info"));
  CHECK(has(device.links[0].argv, "0-a.fatbin"));
  CHECK(device.targets[0].perInput[0] == "/stage/work/0-a.fatbin"); // as tlc reads it
  CHECK(device.ptxExtractions.empty());                             // no PTX target
  REQUIRE(device.package);
  CHECK(device.package->argv.front() == "/cuda/bin/fatbinary");
  CHECK(device.image == "/stage/work/m.fatbin");
  // With a PTX target, each input's relocatable PTX is taken out of its fatbin for packing.
  tlc::DevicePlan withPtx = tlc::planDeviceBuild(
      deviceOptions({"in0/a.cu", "in1/b.cu"}, {"sm_90a", "compute_90a"}), fakeToolkit());
  REQUIRE(withPtx.ptxExtractions.size() == 2);
  CHECK(withPtx.ptxExtractions[1].object == "/stage/work/1-b.fatbin");
  CHECK(withPtx.ptxExtractions[1].ptx == "/stage/work/1-b.fatbin.compute_90a.ptx");
  CHECK(has(withPtx.package->argv, "--image3=kind=ptx,sm=90a,file=1-b.fatbin.compute_90a.ptx"));
  CHECK(withPtx.ptxExtractions[1].target.code == "compute_90a");
}

TEST_CASE("under a compiler launcher inputs compile with nvcc -c", "[plan]") {
  tlc::DeviceBuildOptions options = deviceOptions({"in0/a.cu"}, {"sm_90a"});
  options.launcher = {"ccache"};
  tlc::DevicePlan device = tlc::planDeviceBuild(options, fakeToolkit());
  REQUIRE(device.compiles.size() == 1);
  CHECK(device.compiles[0].argv[0] == "ccache");
  CHECK(has(device.compiles[0].argv, "-c"));
  CHECK(device.links.size() == 1);
}

TEST_CASE("a build's tasks wait for what they read", "[plan]") {
  tlc::DevicePlan device = tlc::planDeviceBuild(
      deviceOptions({"in0/a.cu", "in1/b.cu"}, {"sm_80", "sm_90a"}), fakeToolkit());
  tlc::BuildPlan plan = tlc::planBuild({2, false}, device, hostPlan());
  size_t parse = only(plan, tlc::TaskKind::Parse);
  size_t check = only(plan, tlc::TaskKind::CheckImage);
  size_t render = only(plan, tlc::TaskKind::Render);
  size_t manifest = only(plan, tlc::TaskKind::Manifest);
  size_t package = toolNamed(plan, "fatbinary (2 targets)");
  size_t compileB = toolNamed(plan, "nvcc b.cu (sm_80, sm_90a)");
  size_t compileLauncher = toolNamed(plan, "c++ m_launcher.cpp");
  size_t link = toolNamed(plan, "link libm.so");

  // The parse and nvcc wait for nothing: they run side by side.
  CHECK(plan.tasks[parse].after.empty());
  CHECK(plan.tasks[parse].selfScheduled);
  for (size_t i = 0; i < plan.tasks.size(); ++i)
    if (plan.tasks[i].step && has(plan.tasks[i].step->argv, "-rdc=true"))
      CHECK(plan.tasks[i].after.empty());
  CHECK(waitsFor(plan, toolNamed(plan, "device link (sm_80)"), compileB));
  CHECK(waitsFor(plan, package, toolNamed(plan, "device link (sm_90a)")));
  CHECK(waitsFor(plan, check, parse));
  CHECK(waitsFor(plan, check, package));
  CHECK(waitsFor(plan, render, check));
  // The launcher compiles from the parse's rendering while nvcc runs; the final render follows
  // the image check and the compile (and compiles again if the image changed the launcher).
  CHECK(waitsFor(plan, compileLauncher, parse));
  CHECK_FALSE(waitsFor(plan, compileLauncher, package));
  CHECK(waitsFor(plan, render, compileLauncher));
  CHECK(waitsFor(plan, link, render));
  CHECK(waitsFor(plan, link, compileLauncher));
  CHECK(waitsFor(plan, link, check)); // it assembles the .S that includes the image
  CHECK(waitsFor(plan, manifest, link));
  CHECK(waitsFor(plan, manifest, only(plan, tlc::TaskKind::ToolVersions)));

  // Progress counts the parse and every tool: 2 compiles, 2 links, fatbinary, 2 host steps.
  CHECK(plan.progressTotal() == 1 + 2 + 2 + 1 + 2);

  // What reads the sources keeps going after a compile failed (Executor.h), and nothing else:
  // every input's errors in one build.
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    bool readsSources = i == parse || (plan.tasks[i].step && plan.tasks[i].step->compilesSources);
    INFO(plan.tasks[i].description);
    CHECK(plan.tasks[i].keepsGoing == readsSources);
  }
  CHECK(plan.tasks[compileB].keepsGoing);
}

TEST_CASE("emit-only plans no host compile, link or manifest", "[plan]") {
  tlc::DevicePlan device =
      tlc::planDeviceBuild(deviceOptions({"in0/a.cu"}, {"sm_90a"}), fakeToolkit());
  tlc::BuildPlan plan = tlc::planBuild({1, true}, device, hostPlan());
  CHECK(plan.find(tlc::TaskKind::Render) >= 0);
  CHECK(plan.find(tlc::TaskKind::Manifest) < 0);
  for (const tlc::Task& task : plan.tasks)
    if (task.step)
      CHECK_THAT(task.step->argv.front(), Contains("nvcc"));
  CHECK(plan.progressTotal() == 2); // the parse and nvcc
}

TEST_CASE("an external image plans no embedding", "[plan]") {
  tlc::DevicePlan device =
      tlc::planDeviceBuild(deviceOptions({"in0/a.cu"}, {"sm_90a"}), fakeToolkit());
  tlc::HostPlan host = hostPlan(false);
  for (const std::string& arg : host.link.argv)
    CHECK_FALSE(llvm::StringRef(arg).ends_with(".S"));
  // Embedded, the link assembles the .S, which finds the image beside it in the work folder.
  CHECK(has(hostPlan(true).link.argv, "m_image.S"));
  // As plain assembly, not through the C preprocessor; what follows it is the linker's again.
  std::vector<std::string> embedding = hostPlan(true).link.argv;
  auto assembly = std::find(embedding.begin(), embedding.end(), "m_image.S");
  REQUIRE(assembly - embedding.begin() >= 2);
  REQUIRE(embedding.end() - assembly >= 3);
  CHECK(std::vector<std::string>(assembly - 2, assembly + 3) ==
        std::vector<std::string>{"-x", "assembler", "m_image.S", "-x", "none"});
  CHECK(hostPlan(true).link.workingDir == "/stage/work");
  tlc::BuildPlan plan = tlc::planBuild({1, false}, device, host);
  CHECK(has(host.link.argv, "libtlc_runtime.a"));
  CHECK(has(host.link.argv, "-Wl,--exclude-libs,ALL"));
  CHECK(host.link.argv.back() == "-Wl,--as-needed"); // after every library of tlc's own
}

TEST_CASE("every command runs in the work folder and gets only shell-safe arguments", "[plan]") {
  tlc::DeviceBuildOptions options =
      deviceOptions({"in0/a.cu", "in1/b.cu"}, {"sm_80", "sm_90a", "compute_90a"});
  options.inputDirs = {"src0", "src1"};
  options.inputNames = {"a$(x).cu", "b.cu"};
  tlc::DevicePlan device = tlc::planDeviceBuild(options, fakeToolkit());
  tlc::HostPlan host = hostPlan();
  std::vector<const tlc::Step*> steps = {&host.compileLauncher, &host.link};
  for (const std::vector<tlc::Step>* group : {&device.compiles, &device.links})
    for (const tlc::Step& step : *group)
      steps.push_back(&step);
  steps.push_back(&*device.package);
  for (const tlc::Step* step : steps) {
    INFO(step->description);
    CHECK(step->workingDir == "/stage/work");
    for (size_t i = 1; i < step->argv.size(); ++i) {
      INFO(step->argv[i]);
      // -gencode's code=[...] list is nvcc's own syntax, which nvcc parses and never hands to
      // a shell (nvcc -dryrun shows no brackets); what is inside must be safe all the same.
      std::string arg = step->argv[i];
      if (llvm::StringRef(arg).starts_with("-gencode=") && arg.back() == ']') {
        size_t open = arg.find("code=[");
        REQUIRE(open != std::string::npos);
        arg.erase(arg.size() - 1);
        arg.erase(open + 5, 1);
      }
      CHECK(tlc::isShellSafe(arg));
      CHECK(step->argv[i].find("/stage") == std::string::npos); // relative names only
    }
  }
  // The user's name shows in progress lines; the input's own folder is searched first.
  CHECK(device.compiles[0].description == "nvcc a$(x).cu (sm_80, sm_90a, compute_90a)");
  CHECK(has(device.compiles[0].argv, "-Isrc0"));
}
