// builder/OutputNames: the one record of a module's file names, which the plans, the renderer,
// the manifest, the cache and the overwrite checks all read.
#include "builder/OutputNames.h"
#include "builder/OutputPaths.h"

#include <catch2/catch.hpp>

using namespace tlc;

TEST_CASE("a module's outputs are named after it", "[builder]") {
  OutputNames names("conv", {GpuTarget{"compute_90a", "sm_90a"}});
  CHECK(names.module == "conv");
  CHECK(names.image == "conv.cubin");
  CHECK(names.library == "libconv.so");
  CHECK(names.header == "conv.h");
  CHECK(names.manifest == "conv.json");
  CHECK(names.launcherSource == "conv_launcher.cpp");
  CHECK(names.imageAssembly == "conv_image.S");
  CHECK(names.pythonSource == "conv_python.c");
  CHECK(names.pythonExtensionWork == "conv_ext.abi3.so");
  CHECK(names.python.folder == "conv");
  CHECK(names.python.helpersFolder() == "conv/tlc");
  using Files = std::vector<std::string>;
  CHECK(names.python.all() == Files{"conv/__init__.py", "conv/__init__.pyi", "conv/py.typed",
                                    "conv/tlc/__init__.py", "conv/tlc/__init__.pyi",
                                    "conv/tlc/_ext.abi3.so"});
}

TEST_CASE("the image is a cubin for one SASS target, else a fatbin", "[builder]") {
  CHECK(OutputNames("m", {GpuTarget{"compute_80", "sm_80"}}).image == "m.cubin");
  CHECK(OutputNames("m", {GpuTarget{"compute_80", "compute_80"}}).image == "m.fatbin");
  CHECK(OutputNames("m", {GpuTarget{"compute_80", "sm_80"}, GpuTarget{"compute_90a", "sm_90a"}})
            .image == "m.fatbin");
  CHECK(OutputNames("m").image.empty()); // the plans do not know the targets
}

TEST_CASE("the files a build publishes are the record's", "[builder]") {
  BuildOptions options;
  options.name = "m";
  options.targets = {GpuTarget{"compute_90a", "sm_90a"}};
  options.python = true;
  OutputNames names(options.name, options.targets);
  std::vector<std::string> files = publishedFiles(options);
  std::vector<std::string> expected = {names.image, names.library, names.header, names.manifest};
  for (const std::string& file : names.python.all())
    expected.push_back(file);
  CHECK(files == expected);
}
