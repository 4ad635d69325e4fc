#include "HostBuild.h"

namespace tlc {

HostPlan planHostBuild(const HostBuildOptions& options) {
  HostPlan plan;
  std::string launcherSource = options.sourceDir + "/" + options.name + "_launcher.cpp";
  std::string launcherObject = options.workDir + "/" + options.name + "_launcher.o";
  // Build folders are mapped away so no path ends up in the library.
  std::string sourceMap = "-ffile-prefix-map=" + options.sourceDir + "/=";
  std::string outputMap = "-ffile-prefix-map=" + options.outputDir + "/=";
  plan.compileLauncher = {"c++ " + options.name + "_launcher.cpp",
                          {options.compiler, "-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden",
                           "-fvisibility-inlines-hidden", "-Wall", "-Wextra", sourceMap, outputMap,
                           "-I", options.outputDir, "-isystem", options.cudaInclude, "-c",
                           launcherSource, "-o", launcherObject},
                          launcherObject};
  plan.link = {"link lib" + options.name + ".so",
               {options.compiler, "-shared", "-o", options.library, launcherObject},
               options.library};
  if (options.embedImage) {
    std::string imageObject = options.workDir + "/" + options.name + "_image.o";
    plan.assembleImage = {"embed the device image",
                          {options.compiler, "-c", sourceMap, "-Wa,-I" + options.outputDir,
                           options.sourceDir + "/" + options.name + "_image.S", "-o",
                           imageObject},
                          imageObject};
    plan.link.argv.push_back(imageObject);
  }
  for (const char* flag : {"-Wl,--no-undefined", "-pthread", "-ldl"})
    plan.link.argv.push_back(flag);
  plan.link.argv.push_back("-Wl,-soname,lib" + options.name + ".so");
  return plan;
}

} // namespace tlc
