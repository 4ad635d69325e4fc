// Planning the host compiler commands that turn the rendered launcher into lib<name>.so.
#include "builder/HostBuild.h"

#include "builder/OutputNames.h"

namespace tlc {

HostPlan planHostBuild(const HostBuildOptions& options) {
  HostPlan plan;
  // Relative names only, so no path of the build's ends up in the library either.
  OutputNames names(options.name);
  const std::string& source = names.launcherSource;
  std::string object = options.name + "_launcher.o"; // the work folder's alone, not an output
  const std::string& library = names.library;
  // -O0: the launcher is thunks into the runtime archive (built optimized) and constant tables.
  // A thunk's work is to pass its arguments' addresses, for which -O2 keeps them on the stack
  // just as -O0 does; optimizing costs about 15 ms of CPU a build (a third of this compile) and
  // gains no launch time that bench/launch can tell.
  plan.compileLauncher = {"c++ " + source,
                          {options.compiler, "-std=c++17", "-O0", "-fPIC", "-fvisibility=hidden",
                           "-fvisibility-inlines-hidden", "-Wall", "-Wextra", "-isystem",
                           options.tlcInclude, "-isystem", options.cudaInclude},
                          object,
                          options.workDir,
                          {}};
  plan.compileLauncher.argv.insert(plan.compileLauncher.argv.end(), options.runtimeFlags.begin(),
                                   options.runtimeFlags.end());
  // -MD: the headers it read, which the cache entry of its object lists (commands/Build.cpp).
  plan.launcherDependencies = options.name + "_launcher.d";
  for (const std::string& arg : {std::string("-MD"), std::string("-MF"), plan.launcherDependencies,
                                 std::string("-c"), source, std::string("-o"), object})
    plan.compileLauncher.argv.push_back(arg);
  plan.link = {"link " + library,
               {options.compiler, "-shared", "-o", library, object},
               library,
               options.workDir,
               {}};
  // The image's .S is assembled by the link command itself: one compiler run less on the way
  // from nvcc's image to the library. It names the image by its file name: .incbin finds it in
  // the current folder. It is plain assembly: `-x assembler` spares it the C preprocessor's run
  // (about 8 ms of a link on a GPU host), which a .S otherwise gets.
  if (options.embedImage)
    for (const std::string& arg : {std::string("-x"), std::string("assembler"), names.imageAssembly,
                                   std::string("-x"), std::string("none")})
      plan.link.argv.push_back(arg);
  // The runtime's symbols are hidden already; --exclude-libs keeps anything of the archive from
  // being exported even so, so a library's only exports are its generated API.
  for (const std::string& flag : {options.runtimeLibrary, std::string("-Wl,--exclude-libs,ALL"),
                                  std::string("-Wl,--no-undefined"), std::string("-pthread"),
                                  std::string("-ldl"), "-Wl,-soname," + library})
    plan.link.argv.push_back(flag);
  plan.link.argv.insert(plan.link.argv.end(), options.runtimeFlags.begin(),
                        options.runtimeFlags.end());
  // Last, so it applies only to what the compiler driver adds after it (libstdc++, libm,
  // libgcc_s): neither the launcher nor the runtime uses them, and a library that records no
  // need for them loads without them, into a C program too. Debian's GCC passes it already;
  // upstream GCC and Clang do not.
  plan.link.argv.push_back("-Wl,--as-needed");
  return plan;
}

} // namespace tlc
