// Planning the host compiler commands that turn the rendered launcher into lib<name>.so.
#include "build/HostBuild.h"

namespace tlc {

HostPlan planHostBuild(const HostBuildOptions& options) {
  HostPlan plan;
  // Build folders are mapped away so no path ends up in the library.
  std::string sourceMap = "-ffile-prefix-map=" + options.sourceDir + "/=";
  std::string outputMap = "-ffile-prefix-map=" + options.outputDir + "/=";
  std::string source = options.sourceDir + "/" + options.name + "_launcher.cpp";
  std::string object = options.workDir + "/" + options.name + "_launcher.o";
  plan.compileLauncher = {"c++ " + options.name + "_launcher.cpp",
                          {options.compiler, "-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden",
                           "-fvisibility-inlines-hidden", "-Wall", "-Wextra", sourceMap,
                           outputMap, "-I", options.outputDir, "-isystem", options.tlcInclude,
                           "-isystem", options.cudaInclude, "-c", source, "-o", object},
                          object};
  plan.link = {"link lib" + options.name + ".so",
               {options.compiler, "-shared", "-o", options.library, object},
               options.library};
  // The image's .S (an .incbin of the published image) is assembled by the link command
  // itself: one compiler run less on the way from nvcc's image to the library.
  if (options.embedImage)
    for (const std::string& flag : {sourceMap, "-Wa,-I" + options.outputDir,
                                    options.sourceDir + "/" + options.name + "_image.S"})
      plan.link.argv.push_back(flag);
  // The runtime's symbols are hidden already; --exclude-libs keeps anything of the archive from
  // being exported even so, so a library's only exports are its generated API.
  for (const std::string& flag :
       {options.runtimeLibrary, std::string("-Wl,--exclude-libs,ALL"),
        std::string("-Wl,--no-undefined"), std::string("-pthread"), std::string("-ldl"),
        "-Wl,-soname,lib" + options.name + ".so"})
    plan.link.argv.push_back(flag);
  return plan;
}

} // namespace tlc
