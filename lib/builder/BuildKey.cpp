// Hashing every output-deciding field of the build options into the cache key.
#include "builder/BuildKey.h"

#include "builder/PythonBuild.h"
#include "support/Files.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

namespace tlc {

void addCompilerEnvironment(CacheKey& key) {
  for (const char* name : {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "NVCC_PREPEND_FLAGS",
                           "NVCC_APPEND_FLAGS", "NVCC_CCBIN"})
    if (const char* value = std::getenv(name); value && *value) // unset: keys as before
      key.add(std::string("environment ") + name, value);
}

namespace {

// The paths the key holds: inputs as outputs name them, folders and flags relocated.
struct KeyPaths {
  const DisplayPaths& display;
  const PathRelocation& relocation;

  std::string folder(const std::string& dir) const {
    return dir.empty() ? dir : relocation.path(absolutePath(dir));
  }
};

void addList(CacheKey& key, llvm::StringRef label, const std::vector<std::string>& values) {
  for (const std::string& value : values)
    key.add(label, value);
}

void addFlags(CacheKey& key, llvm::StringRef label, const std::vector<std::string>& flags,
              const KeyPaths& paths) {
  for (const std::string& flag : flags)
    key.add(label, paths.relocation.argument(flag));
}

void addPerInput(CacheKey& key, llvm::StringRef label,
                 const std::map<std::string, std::vector<std::string>>& values,
                 const KeyPaths& paths) {
  for (const auto& [input, flags] : values)
    addFlags(key, label.str() + " " + paths.display.input(input), flags, paths);
}

void addFrontend(CacheKey& key, const FrontendOptions& frontend, const KeyPaths& paths) {
  [[maybe_unused]] const auto& [preprocessorFlags, standard, arch, extraArgs, inputArgs,
                                tlcIncludeDir, nvccFlags, relocatable, hostIncludeDir, jobs, color,
                                verbose, preambleDir, declarationsOnly] = frontend;
  // Folders and files absolute (relocated), macros as they are.
  for (size_t i = 0; i < preprocessorFlags.size(); ++i) {
    llvm::StringRef flag = preprocessorFlags[i];
    if ((flag == "-isystem" || flag == "-include") && i + 1 < preprocessorFlags.size())
      key.add(flag, paths.folder(preprocessorFlags[++i]));
    else if (flag.consume_front("-I"))
      key.add("-I", paths.folder(flag.str()));
    else
      key.add("preprocessor", flag);
  }
  key.add("std", standard);
  key.add("parse-arch", arch);
  addFlags(key, "clang-arg", extraArgs, paths);
  addPerInput(key, "clang-arg", inputArgs, paths);
  key.add("tlc-include", paths.folder(tlcIncludeDir));
  key.add("relocatable", relocatable ? "yes" : "no");
  key.add("host-include", paths.folder(hostIncludeDir));
  // Headers read for their declarations only, beside device images (builder/ImageInputs.h).
  key.add("declarations-only", declarationsOnly ? "yes" : "no");
  // Not in the key: `nvccFlags` (the build's own, keyed with the build's options), `jobs` (how
  // many tools at once), `color` and `verbose` (how diagnostics look), `preambleDir` (the parse
  // sees the same with its precompiled preamble as without, frontend/Preamble.h).
}

void addSources(CacheKey& key, const SourceOptions& sources, const KeyPaths& paths) {
  [[maybe_unused]] const auto& [inputs, frontend, cudaPath, compileCommands, verbose] = sources;
  for (const std::string& input : inputs)
    key.add("input", paths.display.input(input)); // contents are added by the caller, read once
  addFrontend(key, frontend, paths);
  // Not in the key: `cudaPath` (the toolkit is keyed by its identity instead),
  // `compileCommands` (its flags are in `frontend` and the nvcc flags by now) and `verbose`.
}

} // namespace

void addBuildOptions(CacheKey& key, const BuildOptions& options, const DisplayPaths& display,
                     const PathRelocation& relocation) {
  KeyPaths paths{display, relocation};
  [[maybe_unused]] const auto& [sources, outputDir, name, archs, gencodes, targets, nvccFlags,
                                inputNvccFlags, entries, externalImage, emitOnly, keepTemps, force,
                                templateDir, runtimeLibrary, quiet, depfile, depfileTarget,
                                compileCommandsOut, launcher, noCache, remoteStorage, baseDir,
                                toolTimeout, python, wheel, wheelVersion, pythonLibrary,
                                pythonHelpersDir] = options;
  addSources(key, sources, paths);
  key.add("name", name);
  // `archs` and `gencodes` are in the key as what they resolved to (`native` is this machine).
  for (const GpuTarget& target : targets)
    key.add("target", target.gencode());
  addFlags(key, "nvcc-flag", nvccFlags, paths);
  addPerInput(key, "nvcc-flag", inputNvccFlags, paths);
  addList(key, "entry", entries);
  key.add("external-image", externalImage ? "yes" : "no");
  // Under a compiler launcher inputs are compiled relocatable (DeviceBuild.h): other code. Which
  // launcher it is does not change the outputs.
  key.add("compiler-launcher", launcher.empty() ? "no" : "yes");
  key.add("python", python ? "yes" : "no");
  key.add("wheel", wheel ? wheelVersion : "no");
  // Not in the key: where the outputs go (`outputDir`, `depfile`, `depfileTarget`,
  // `compileCommandsOut`, which a hit writes too), how the run looks (`quiet`), how long tools
  // may take (`toolTimeout`), whether files in the way are replaced (`force`), `emitOnly`,
  // `keepTemps`, `noCache`, which never use the cache, and
  // `remoteStorage`, where else the cache looks (its entries are the local ones), and `baseDir`,
  // how the key spells paths (relocated ones are relative, others absolute). The templates,
  // the runtime library and the Python binding are keyed by their contents (`templateDir`,
  // `runtimeLibrary`, `pythonLibrary`, `pythonHelpersDir`).
}

std::vector<std::pair<std::string, std::string>>
toolkitIdentityFiles(const CudaToolkit& toolkit, const std::string& hostCompiler) {
  std::vector<std::pair<std::string, std::string>> tools = {
      {"host-compiler-content", hostCompiler}};
  for (const char* file :
       {"bin/nvcc", "bin/nvcc.profile", "bin/cudafe++", "bin/ptxas", "bin/nvlink", "bin/fatbinary",
        "nvvm/bin/cicc", "nvvm/libdevice/libdevice.10.bc", "lib64/libcudadevrt.a",
        "lib/libcudadevrt.a"}) // lib64/ in a system toolkit, lib/ in NVIDIA's wheels
    tools.push_back({file, toolkit.root + "/" + file});
  return tools;
}

std::string compileStepCacheKey(const CompileStepKey& in) {
  CacheKey key;
  key.add("step", "nvcc relocatable compile");
  key.add("tlc", tlcVersion());
  key.add("cuda", in.toolkit.release + " " + std::to_string(in.toolkit.cudaVersion));
  key.add("command", in.command);
  key.add("line-name", in.identity.lineName);
  key.add("hashed-path", in.identity.hashedPath);
  key.add("input-content", in.inputDigest);
  addCompilerEnvironment(key);
  key.addToolIdentities(toolkitIdentityFiles(in.toolkit, in.hostCompiler), in.toolMemoDir);
  return key.digest();
}

std::string launcherStepCacheKey(const LauncherStepKey& in) {
  CacheKey key;
  key.add("step", "host launcher compile");
  key.add("tlc", tlcVersion());
  key.add("command", in.command);
  key.add("launcher-content", in.sourceDigest);
  key.add("header-content", in.headerDigest);
  addCompilerEnvironment(key);
  key.addToolIdentities({{"host-compiler-content", in.hostCompiler}}, in.toolMemoDir);
  return key.digest();
}

std::string parseStepCacheKey(const std::string& identity, const std::string& inputDigest,
                              const std::string& toolMemoDir) {
  CacheKey key;
  static int anchor;
  key.add("step", "parse");
  key.add("tlc", tlcVersion());
  key.addToolIdentities({{"tlc-binary", llvm::sys::fs::getMainExecutable("tlc", &anchor)}},
                        toolMemoDir);
  key.add("identity", identity);
  key.add("input-content", inputDigest);
  addCompilerEnvironment(key);
  return key.digest();
}

// The key's parts in the order they always had: entries made before the move still hit.
llvm::Expected<std::string>
buildCacheKey(const KeyInputs& in, const DisplayPaths& paths, const PathRelocation& relocation,
              llvm::function_ref<llvm::Expected<std::string>(const std::string&)> inputDigest) {
  CacheKey key;
  static int anchor;
  key.add("tlc", tlcVersion());
  key.add("clang", clangVersion() + " " + clangResourceDir());
  const CudaToolkit& toolkit = in.toolkit;
  // The toolkit by its release and content, not where it is (Relocation.h): its tools, the
  // files nvcc reads besides headers (its profile, libdevice, the device runtime), while the
  // headers the build read are its entries' dependencies, spelled "<cuda>/...". The same
  // toolkit elsewhere (another machine's, a copy) hits; one whose files differ misses.
  key.add("cuda", toolkit.release + " " + std::to_string(toolkit.cudaVersion));
  key.add("host-compiler", relocation.path(in.hostCompiler));
  std::vector<std::pair<std::string, std::string>> tools = {
      {"tlc-binary", llvm::sys::fs::getMainExecutable("tlc", &anchor)}};
  for (auto& tool : toolkitIdentityFiles(toolkit, in.hostCompiler))
    tools.push_back(std::move(tool));
  key.addToolIdentities(tools, in.toolMemoDir);
  addBuildOptions(key, in.options, paths, relocation);
  addCompilerEnvironment(key);
  for (const std::string& input : in.options.sources.inputs) {
    auto digest = inputDigest(input);
    if (!digest)
      return digest.takeError();
    key.add("input-content " + paths.input(input), *digest);
  }
  // How nvcc names each input decides __FILE__, debug info and internal-linkage symbols.
  for (size_t i = 0; i < in.identities.size(); ++i)
    key.add("input-identity " + std::to_string(i),
            in.identities[i].lineName + "\n" + in.identities[i].hashedPath);
  // With device debug info the tools are given folders by their real paths, which the image's
  // line tables name (ToolPaths.h): the toolkit's, the -I folders', not relocated. (Without,
  // there are none.)
  for (const std::string& path : in.realPaths)
    key.add("real-path", path);
  for (const std::string& file : in.templates)
    if (llvm::Error error = key.addFile("template " + llvm::sys::path::filename(file).str(), file))
      return error;
  key.add("launcher-types", in.launcherTypes);
  if (llvm::Error error = key.addFile("runtime-library", in.options.runtimeLibrary))
    return error;
  if (in.options.python) {
    if (llvm::Error error = key.addFile("python-library", in.options.pythonLibrary))
      return error;
    for (const std::string& file : in.pythonInputs)
      if (llvm::Error error = key.addFile("python " + relocation.path(file), file))
        return error;
  }
  return key.digest();
}

} // namespace tlc
