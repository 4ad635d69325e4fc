// publish/Manifest: the manifest writer over an in-memory module and a made-up build (files in a
// scratch folder, no tool run): what NAME.json records of the outputs, the tools and the
// commands, and what the writer returns for the cache.
#include "publish/Manifest.h"

#include "TestSupport.h"

#include "support/Files.h"
#include "support/Hashing.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

using namespace tlc;

namespace {

Module oneKernel() {
  Module module;
  Kernel kernel;
  kernel.name = kernel.displayName = kernel.symbol = kernel.launcher = "scale";
  kernel.externC = true;
  module.kernels.push_back(kernel);
  return module;
}

BuildOptions optionsFor(bool python) {
  BuildOptions options;
  options.name = "m";
  options.targets = {GpuTarget{"compute_90a", "sm_90a"}};
  options.python = python;
  return options;
}

// The work folder as the link left it, and the outputs as the earlier tasks left them.
void makeBuild(const std::string& work, const std::string& out, const OutputNames& names,
               bool python) {
  REQUIRE(!llvm::sys::fs::create_directories(work));
  REQUIRE(!llvm::sys::fs::create_directories(out + "/" + names.python.helpersFolder()));
  REQUIRE(!writeFile(work + "/" + names.library, "library"));
  REQUIRE(!writeFile(out + "/" + names.image, "image"));
  REQUIRE(!writeFile(out + "/" + names.header, "header"));
  if (!python)
    return;
  REQUIRE(!writeFile(work + "/" + names.pythonExtensionWork, "extension"));
  for (const std::string& file : names.python.all())
    if (file != names.python.extension)
      REQUIRE(!writeFile(out + "/" + file, "python " + file));
}

ManifestSources sourcesFor(const BuildOptions& options) {
  return {{"0.1.0", "22.1.0", "13.0.88", "gcc 12"},
          &options,
          {"<cuda>/bin/nvcc -cubin in0/a.cu", "c++ -c m_launcher.cpp"},
          {{"a.cu", sha256Hex("source")}}};
}

} // namespace

TEST_CASE("the manifest records the outputs, tools, commands and inputs of a build", "[publish]") {
  std::string dir = test::scratchDir("manifest-writer");
  BuildOptions options = optionsFor(false);
  OutputNames names(options.name, options.targets);
  makeBuild(dir + "/work", dir + "/out", names, false);
  auto published =
      writeManifest(oneKernel(), sourcesFor(options), names, dir + "/work", dir + "/out");
  REQUIRE_EXPECTED(published);

  std::string text = test::readText(dir + "/out/m.json");
  nlohmann::json manifest = nlohmann::json::parse(text);
  CHECK(manifest["schema"] == "tlc.manifest");
  CHECK(manifest["name"] == "m");
  CHECK(manifest["versions"]["nvcc"] == "13.0.88");
  CHECK(manifest["versions"]["host_compiler"] == "gcc 12");
  CHECK(manifest["archs"] == nlohmann::json{"sm_90a"});
  CHECK(manifest["commands"].size() == 2);
  CHECK(manifest["inputs"][0]["file"] == "a.cu");
  const nlohmann::json& outputs = manifest["outputs"];
  CHECK(outputs["image"]["file"] == "m.cubin");
  CHECK(outputs["image"]["format"] == "cubin");
  CHECK(outputs["image"]["embedded"] == true);
  CHECK(outputs["image"]["sha256"] == sha256Hex("image"));
  CHECK(outputs["library"]["file"] == "libm.so");
  CHECK(outputs["library"]["sha256"] == sha256Hex("library"));
  CHECK(outputs["header"]["file"] == "m.h");
  CHECK(outputs["header"]["sha256"] == sha256Hex("header"));
  CHECK_FALSE(outputs.contains("python_init"));
  CHECK(manifest["kernels"][0]["function"] == "m_scale");
  // The library is copied from the work folder, executable.
  CHECK(test::readText(dir + "/out/libm.so") == "library");
  CHECK(llvm::sys::fs::can_execute(dir + "/out/libm.so"));

  // What the cache stores: every published file with its digest, the manifest's own included.
  REQUIRE(published->size() == 4);
  CHECK((*published)[0].name == "m.cubin");
  CHECK((*published)[1].name == "libm.so");
  CHECK((*published)[2].name == "m.h");
  CHECK((*published)[3].name == "m.json");
  CHECK((*published)[3].sha256 == sha256Hex(text));
}

TEST_CASE("with --python the manifest records the package's files by role", "[publish]") {
  std::string dir = test::scratchDir("manifest-writer-python");
  BuildOptions options = optionsFor(true);
  options.externalImage = true;
  OutputNames names(options.name, options.targets);
  makeBuild(dir + "/work", dir + "/out", names, true);
  auto published =
      writeManifest(oneKernel(), sourcesFor(options), names, dir + "/work", dir + "/out");
  REQUIRE_EXPECTED(published);
  nlohmann::json outputs = nlohmann::json::parse(test::readText(dir + "/out/m.json"))["outputs"];
  CHECK(outputs["image"]["embedded"] == false);
  CHECK(outputs["python_init"]["file"] == "m/__init__.py");
  CHECK(outputs["python_stubs"]["file"] == "m/__init__.pyi");
  CHECK(outputs["python_marker"]["file"] == "m/py.typed");
  CHECK(outputs["python_helpers"]["file"] == "m/tlc/__init__.py");
  CHECK(outputs["python_helper_stubs"]["file"] == "m/tlc/__init__.pyi");
  CHECK(outputs["python_extension"]["file"] == "m/tlc/_ext.abi3.so");
  CHECK(outputs["python_extension"]["sha256"] == sha256Hex("extension"));
  CHECK(test::readText(dir + "/out/m/tlc/_ext.abi3.so") == "extension");
  // The outputs a manifest lists, read back as `tlc verify` and publishing read them.
  auto listed =
      manifestOutputs(nlohmann::json::parse(test::readText(dir + "/out/m.json")), "m.json");
  REQUIRE_EXPECTED(listed);
  CHECK(listed->size() == 9);
  REQUIRE(published->size() == 10);
  CHECK(published->back().name == "m/tlc/_ext.abi3.so");
}

TEST_CASE("an output the build did not make fails the manifest, naming it", "[publish]") {
  std::string dir = test::scratchDir("manifest-writer-missing");
  BuildOptions options = optionsFor(false);
  OutputNames names(options.name, options.targets);
  makeBuild(dir + "/work", dir + "/out", names, false);
  REQUIRE(!llvm::sys::fs::remove(dir + "/out/m.h"));
  auto published =
      writeManifest(oneKernel(), sourcesFor(options), names, dir + "/work", dir + "/out");
  REQUIRE_FALSE(static_cast<bool>(published));
  CHECK_THAT(llvm::toString(published.takeError()), Catch::Contains("m.h"));
  CHECK_FALSE(llvm::sys::fs::exists(dir + "/out/m.json"));
}

TEST_CASE("the manifest lists the commands in the order of the plan", "[publish]") {
  DevicePlan device;
  device.compiles = {{"nvcc a.cu", {"nvcc", "a.cu"}, "a.o", "", {}}};
  device.links = {{"nvlink", {"nvcc", "-dlink"}, "d.o", "", {}}};
  device.package = Step{"fatbinary", {"fatbinary"}, "m.fatbin", "", {}};
  HostPlan host{{"c++", {"c++", "-c"}, "m_launcher.o", "", {}},
                {"link", {"c++", "-shared"}, "libm.so", "", {}}};
  PythonPlan python{{"cc", {"cc"}, "m_python.o", "", {}},
                    {"link ext", {"cc", "-shared"}, "x.so", "", {}}};
  StepRunner runner;
  runner.display = [](const std::vector<std::string>& argv) { return argv.front(); };
  using Commands = std::vector<std::string>;
  CHECK(planCommands(runner, device, host, nullptr) ==
        Commands{"nvcc", "nvcc", "fatbinary", "c++", "c++"});
  CHECK(planCommands(runner, device, host, &python) ==
        Commands{"nvcc", "nvcc", "fatbinary", "c++", "c++", "cc", "cc"});
}
