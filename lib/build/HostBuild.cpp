// Planning the host compiler commands that turn the rendered launcher into lib<name>.so.
#include "build/HostBuild.h"

namespace tlc {

HostPlan planHostBuild(const HostBuildOptions& options) {
  HostPlan plan;
  // Build folders are mapped away so no path ends up in the library.
  std::string sourceMap = "-ffile-prefix-map=" + options.sourceDir + "/=";
  std::string outputMap = "-ffile-prefix-map=" + options.outputDir + "/=";
  auto compile = [&](const std::string& part) {
    std::string source = options.sourceDir + "/" + options.name + "_" + part + ".cpp";
    std::string object = options.workDir + "/" + options.name + "_" + part + ".o";
    return Step{"c++ " + options.name + "_" + part + ".cpp",
                {options.compiler, "-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden",
                 "-fvisibility-inlines-hidden", "-Wall", "-Wextra", sourceMap, outputMap, "-I",
                 options.sourceDir, "-I", options.outputDir, "-isystem", options.cudaInclude, "-c",
                 source, "-o", object},
                object};
  };
  plan.compileRuntime = compile("runtime");
  plan.compileLauncher = compile("launcher");
  plan.link = {"link lib" + options.name + ".so",
               {options.compiler, "-shared", "-o", options.library, plan.compileRuntime.output,
                plan.compileLauncher.output},
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
