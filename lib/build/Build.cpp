// `tlc build`: parse and nvcc run concurrently; then render the launcher, verify the image,
// compile the library, write the manifest, and publish everything at once.
//
//   cache lookup ──hit──> restore ─────────────────────────────────────────────────> publish
//   parse + check ──> render ──> compile launcher.o ─┐
//   nvcc (inputs x archs) ──> device link ──> verify ┴─> embed image ─> link .so (+ runtime.a)
//                                                      ─> manifest ─> cache store ─> publish
#include "checks/Analysis.h"
#include "commands/Commands.h"
#include "build/DeviceBuild.h"
#include "frontend/Frontend.h"
#include "build/DisplayPaths.h"
#include "build/Depfile.h"
#include "checks/Entries.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "build/HostBuild.h"
#include "cache/Cache.h"
#include "render/LauncherView.h"
#include "build/Manifest.h"
#include "support/Identifiers.h"
#include "build/Publish.h"
#include "render/Templates.h"
#include "support/Terminal.h"
#include "build/Toolchain.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <set>

namespace tlc {

namespace {

llvm::Expected<std::string> moduleName(const BuildOptions& options) {
  std::string name = options.name;
  if (name.empty())
    name = identifierFrom(llvm::sys::path::stem(options.sources.inputs.front()).str());
  if (!isCIdentifier(name))
    return usageError("--name '" + name + "' is not a C identifier (it prefixes every function "
                      "of the generated API)");
  return name;
}

// Collects the first error of concurrent tasks; later ones only stop new work from starting.
class FirstError {
public:
  void set(llvm::Error error) {
    std::lock_guard<std::mutex> lock(Mutex);
    if (Error)
      llvm::consumeError(std::move(error));
    else
      Error = std::move(error);
    Failed = true;
  }
  ~FirstError() { llvm::consumeError(std::move(Error)); } // one not taken is dropped
  bool failed() const { return Failed; }
  llvm::Error take() { return Error ? std::move(Error) : llvm::Error::success(); }

private:
  std::mutex Mutex;
  llvm::Error Error = llvm::Error::success();
  std::atomic<bool> Failed{false};
};

// Runs `steps` in parallel (bounded by `slots`); stops starting new ones after a failure.
void runSteps(const std::vector<Step>& steps, const StepRunner& runner, JobSlots& slots,
              FirstError& errors) {
  std::vector<std::function<void()>> tasks;
  for (const Step& step : steps)
    tasks.push_back([&, step] {
      SlotGuard slot(slots);
      if (errors.failed())
        return;
      if (llvm::Error error = runner.run(step))
        errors.set(std::move(error));
    });
  runConcurrently(std::move(tasks));
}

class Builder {
public:
  Builder(const BuildOptions& options, std::string name, CudaToolkit toolkit,
          HostCompiler compiler, TemplateSet templates, std::string launcherTypes,
          std::unique_ptr<Staging> staging, BuildCache* cache,
          std::map<std::string, std::vector<std::string>> inputNvccFlags)
      : Options(options), Name(std::move(name)), Toolkit(std::move(toolkit)),
        Compiler(std::move(compiler)), Templates(std::move(templates)),
        LauncherTypes(std::move(launcherTypes)),
        Work(std::move(staging)), Paths(options.sources.inputs, Work->root()),
        Slots(effectiveJobs(options.sources.frontend.jobs)), Cache(cache),
        InputNvccFlags(std::move(inputNvccFlags)), Host(planHost()) {
    Runner.verbose = options.sources.verbose;
    Runner.display = [this](const std::vector<std::string>& argv) {
      return Paths.commandLine(argv);
    };
  }

  llvm::Error run() {
    if (Options.keepTemps)
      Work->keep();
    // Said after a failed build too: that is when the temporaries are wanted most.
    llvm::scope_exit sayKept([&] {
      if (Options.keepTemps)
        printToolMessage(MessageKind::Note, "kept temporary files in " + Work->root());
    });
    std::string key;
    if (Cache) {
      auto computed = cacheKey();
      if (!computed)
        return computed.takeError();
      key = *computed;
      if (std::optional<CacheHit> hit = Cache->find(key); hit && Cache->restore(*hit, Work->outputsDir())) {
        Cache->count(true);
        Progress progress(1, Options.quiet);
        progress.start("cached " + Name + " (" + llvm::sys::path::filename(hit->entryDir).str() + ")");
        return finish(fileNames(hit->files), Name + ".json", hit->dependencies);
      }
      Cache->count(false);
    }
    DevicePlan device = planDeviceBuild(deviceOptions(), Toolkit);
    Progress progress(countSteps(device), Options.quiet);
    Runner.progress = &progress;
    FirstError parseErrors, deviceErrors;
    std::optional<Analysis> analysis;
    std::string nvccRelease, hostRelease;
    runConcurrently({
        [&] {
          Progress* shown = Runner.progress;
          if (shown)
            shown->start("parse " + std::to_string(Options.sources.inputs.size()) + " file(s)");
          auto analyzed = analyze(Options.sources.inputs, Options.sources.frontend, Toolkit,
                                  &Slots);
          if (!analyzed)
            return parseErrors.set(analyzed.takeError());
          if (llvm::Error error = prepareLauncher(*analyzed))
            return parseErrors.set(std::move(error));
          analysis = std::move(*analyzed);
        },
        [&] {
          if (!Options.emitOnly)
            buildDevice(device, deviceErrors);
        },
        [&] {
          auto release = nvccVersion(Toolkit);
          if (!release)
            return deviceErrors.set(release.takeError());
          nvccRelease = *release;
          if (!Options.emitOnly)
            hostRelease = hostCompilerVersion(Compiler);
        },
    });
    // Source errors come first: nvcc would only repeat them.
    if (parseErrors.failed())
      return parseErrors.take();
    if (deviceErrors.failed())
      return deviceErrors.take();
    std::vector<std::string> dependencies = dependenciesOf(*analysis, device);
    if (Options.emitOnly) {
      std::vector<std::string> sources = {Name + ".h", Name + "_launcher.cpp"};
      if (!Options.externalImage)
        sources.push_back(Name + "_image.S");
      return finish(sources, Name + ".h", dependencies);
    }

    auto sms = verifyImages(device, Options.archs, analysis->module);
    if (!sms)
      return sms.takeError();
    if (llvm::Error error = finishLibrary())
      return error;
    auto outputs = writeManifest(analysis->module, device, *sms, nvccRelease, hostRelease);
    if (!outputs)
      return outputs.takeError();
    if (Cache)
      if (llvm::Error error = Cache->store(key, Work->outputsDir(), *outputs, dependencies))
        printToolMessage(MessageKind::Warning, "cannot store the build in the cache: " +
                                                   summarize(std::move(error)).message);
    return finish(fileNames(*outputs), Name + ".json", dependencies);
  }

private:
  static std::vector<std::string> fileNames(const std::vector<CachedFile>& files) {
    std::vector<std::string> names;
    for (const CachedFile& file : files)
      names.push_back(file.name);
    return names;
  }

  // Publishes `files` (from a build or the cache) and writes the depfile, whose target is
  // `targetFile` in OUTDIR unless --depfile-target names one.
  llvm::Error finish(const std::vector<std::string>& files, const std::string& targetFile,
                     const std::vector<std::string>& dependencies) {
    if (llvm::Error error = Work->publish(files))
      return error;
    if (Options.depfile.empty())
      return llvm::Error::success();
    std::string target = Options.depfileTarget.empty() ? Options.outputDir + "/" + targetFile
                                                       : Options.depfileTarget;
    return writeDepfile(Options.depfile, target, dependencies);
  }

  unsigned countSteps(const DevicePlan& device) const {
    unsigned host = Options.emitOnly ? 0 : 2 + (Host.assembleImage ? 1 : 0);
    return 1 + device.compiles.size() + device.links.size() + (device.package ? 1 : 0) + host;
  }

  // Every file the build read: inputs, the headers Clang and nvcc opened, the templates.
  std::vector<std::string> dependenciesOf(const Analysis& analysis,
                                          const DevicePlan& device) const {
    std::set<std::string> files;
    for (const std::string& file : Options.sources.inputs)
      files.insert(absolutePath(file));
    for (const std::string& file : analysis.filesRead)
      files.insert(absolutePath(file));
    for (const std::string& depfile : device.dependencyFiles)
      for (const std::string& file : readDependencyFile(depfile))
        files.insert(absolutePath(file));
    for (const std::string& file : Templates.files())
      files.insert(absolutePath(file));
    files.insert(absolutePath(launcherTypesFile()));
    if (!Options.emitOnly)
      files.insert(absolutePath(Options.runtimeLibrary));
    return {files.begin(), files.end()};
  }

  // Everything known before building that decides the outputs (the headers come second).
  llvm::Expected<std::string> cacheKey() {
    CacheKey key;
    static int anchor;
    key.add("tlc", tlcVersion());
    key.addFileIdentity("tlc-binary", llvm::sys::fs::getMainExecutable("tlc", &anchor));
    key.add("clang", clangVersion() + " " + clangResourceDir());
    key.add("cuda", Toolkit.root + " " + std::to_string(Toolkit.cudaVersion));
    for (const char* tool : {"bin/nvcc", "bin/ptxas", "bin/nvlink", "bin/fatbinary", "nvvm/bin/cicc"})
      key.addFileIdentity(tool, Toolkit.root + "/" + tool);
    key.addFileIdentity("host-compiler", Compiler.path);
    key.add("name", Name);
    const FrontendOptions& frontend = Options.sources.frontend;
    for (const std::string& dir : frontend.includeDirs)
      key.add("-I", absolutePath(dir));
    for (const std::string& define : frontend.defines)
      key.add("-D", define);
    key.add("std", frontend.standard);
    for (const std::string& arg : frontend.extraArgs)
      key.add("clang-arg", arg);
    for (const auto& [input, args] : frontend.inputArgs)
      for (const std::string& arg : args)
        key.add("clang-arg " + Paths.input(input), arg);
    for (const auto& [input, flags] : InputNvccFlags)
      for (const std::string& flag : flags)
        key.add("nvcc-flag " + Paths.input(input), flag);
    for (const std::string& arch : Options.archs)
      key.add("arch", arch);
    for (const std::string& flag : Options.nvccFlags)
      key.add("nvcc-flag", flag);
    for (const std::string& entry : Options.entries)
      key.add("entry", entry);
    key.add("external-image", Options.externalImage ? "yes" : "no");
    // Under a compiler launcher inputs are compiled relocatable (DeviceBuild.h): other code.
    key.add("compiler-launcher", Options.launcher.empty() ? "no" : "yes");
    key.add("tlc-include", frontend.tlcIncludeDir);
    for (const std::string& input : Options.sources.inputs) {
      key.add("input", Paths.input(input));
      auto digest = inputDigest(input);
      if (!digest)
        return digest.takeError();
      key.add("input-content", *digest);
    }
    for (const std::string& file : Templates.files())
      if (llvm::Error error = key.addFile("template " + llvm::sys::path::filename(file).str(), file))
        return error;
    key.add("launcher-types", LauncherTypes);
    if (llvm::Error error = key.addFile("runtime-library", Options.runtimeLibrary))
      return error;
    return key.digest();
  }

  // An input's SHA-256, read once for the cache key and the manifest.
  llvm::Expected<std::string> inputDigest(const std::string& input) {
    auto known = InputDigests.find(input);
    if (known != InputDigests.end())
      return known->second;
    auto digest = sha256OfFile(input);
    if (digest)
      InputDigests[input] = *digest;
    return digest;
  }

  DeviceBuildOptions deviceOptions() const {
    DeviceBuildOptions device;
    device.name = Name;
    device.inputs = Options.sources.inputs;
    device.archs = Options.archs;
    device.defaultArch = defaultArch(Toolkit);
    device.includeDirs = Options.sources.frontend.includeDirs;
    device.defines = Options.sources.frontend.defines;
    device.standard = Options.sources.frontend.standard;
    device.nvccFlags = Options.nvccFlags;
    device.tlcIncludeDir = Options.sources.frontend.tlcIncludeDir;
    device.workDir = Work->workDir();
    device.launcher = Options.launcher;
    device.inputFlags = InputNvccFlags;
    return device;
  }

  std::string launcherTypesFile() const {
    return Options.sources.frontend.tlcIncludeDir + "/tlc/launcher.h";
  }

  std::string imageFile() const {
    return Name + (Options.archs.size() > 1 ? ".fatbin" : ".cubin");
  }

  std::vector<std::string> archLabels(const std::vector<unsigned>& sms = {}) const {
    if (!Options.archs.empty())
      return Options.archs;
    std::vector<std::string> labels;
    for (unsigned sm : sms)
      labels.push_back("sm_" + std::to_string(sm));
    return labels.empty() ? std::vector<std::string>{defaultArch(Toolkit)} : labels;
  }

  void buildDevice(const DevicePlan& plan, FirstError& errors) {
    runSteps(plan.compiles, Runner, Slots, errors);
    if (!errors.failed())
      runSteps(plan.links, Runner, Slots, errors);
    if (!errors.failed() && plan.package)
      runSteps({*plan.package}, Runner, Slots, errors);
    if (errors.failed())
      return;
    std::string published = Work->outputsDir() + "/" + imageFile();
    if (auto ec = llvm::sys::fs::copy_file(plan.image, published))
      errors.set(inputError("cannot write '" + published + "': " + ec.message()));
  }

  LauncherFacts launcherFacts() const {
    LauncherFacts facts;
    facts.name = Name;
    for (const std::string& input : Options.sources.inputs)
      facts.inputs.push_back(Paths.input(input));
    facts.targets = archLabels();
    facts.imageFile = imageFile();
    facts.embedImage = !Options.externalImage;
    facts.launcherTypes = LauncherTypes;
    return facts;
  }

  // The sources are temporaries, unless they are what was asked for (--emit-only).
  std::string sourceDir() const {
    return Options.emitOnly ? Work->outputsDir() : Work->workDir();
  }

  llvm::Error render(const std::string& templateName, const nlohmann::json& view,
                     const std::string& path) const {
    auto text = Templates.render(templateName, view);
    if (!text)
      return text.takeError();
    return writeFile(path, *text);
  }

  // After the parse: select entries, render the header and the launchers, compile them while
  // nvcc runs.
  llvm::Error prepareLauncher(Analysis& analysis) {
    Module& module = analysis.module;
    if (module.kernels.empty())
      return inputError("no kernels to launch in " + llvm::join(Options.sources.inputs, ", "));
    if (llvm::Error error = selectEntries(module, Options.entries))
      return error;
    Paths.relativize(module);
    nlohmann::json view = launcherView(module, launcherFacts());
    if (llvm::Error error = render("header.h", view, Work->outputsDir() + "/" + Name + ".h"))
      return error;
    if (llvm::Error error = render("launcher.cpp", view,
                                   sourceDir() + "/" + Name + "_launcher.cpp"))
      return error;
    if (!Options.externalImage)
      if (llvm::Error error = render("image.S", view, sourceDir() + "/" + Name + "_image.S"))
        return error;
    if (Options.emitOnly)
      return llvm::Error::success();
    SlotGuard slot(Slots);
    return Runner.run(Host.compileLauncher);
  }

  HostPlan planHost() const {
    HostBuildOptions host;
    host.name = Name;
    host.compiler = Compiler.path;
    host.cudaInclude = Toolkit.includeDir;
    host.tlcInclude = Options.sources.frontend.tlcIncludeDir;
    host.runtimeLibrary = Options.runtimeLibrary;
    host.sourceDir = Work->workDir();
    host.outputDir = Work->outputsDir();
    host.workDir = Work->workDir();
    host.library = Work->outputsDir() + "/lib" + Name + ".so";
    host.embedImage = !Options.externalImage;
    return planHostBuild(host);
  }

  llvm::Error finishLibrary() {
    if (Host.assembleImage)
      if (llvm::Error error = Runner.run(*Host.assembleImage))
        return error;
    return Runner.run(Host.link);
  }

  // Writes NAME.json; returns the four outputs with their SHA-256, the manifest last.
  llvm::Expected<std::vector<CachedFile>> writeManifest(const Module& module,
                                                        const DevicePlan& device,
                                                        const std::vector<unsigned>& sms,
                                                        const std::string& nvccRelease,
                                                        const std::string& hostRelease) {
    ManifestFacts facts;
    facts.name = Name;
    facts.tlcVersion = tlcVersion();
    facts.clangVersion = clangVersion();
    facts.nvccVersion = nvccRelease;
    facts.hostCompilerVersion = hostRelease;
    facts.archs = archLabels(sms);
    const HostPlan& host = Host;
    std::vector<const Step*> steps;
    for (const Step& step : device.compiles)
      steps.push_back(&step);
    for (const Step& step : device.links)
      steps.push_back(&step);
    if (device.package)
      steps.push_back(&*device.package);
    steps.push_back(&host.compileLauncher);
    if (host.assembleImage)
      steps.push_back(&*host.assembleImage);
    steps.push_back(&host.link);
    for (const Step* step : steps)
      facts.commands.push_back(Runner.commandLine(*step));

    for (const std::string& input : Options.sources.inputs) {
      auto digest = inputDigest(input);
      if (!digest)
        return digest.takeError();
      facts.inputs.push_back({Paths.input(input), *digest});
    }
    const std::string& out = Work->outputsDir();
    std::pair<FileDigest*, std::string> outputs[] = {
        {&facts.image, imageFile()},
        {&facts.library, "lib" + Name + ".so"},
        {&facts.header, Name + ".h"},
    };
    for (auto& [digest, file] : outputs) {
      auto sha = sha256OfFile(out + "/" + file);
      if (!sha)
        return sha.takeError();
      *digest = {file, *sha};
    }
    facts.embeddedImage = !Options.externalImage;
    std::string manifest = buildManifest(module, facts).dump(2) + "\n";
    if (llvm::Error error = writeFile(out + "/" + Name + ".json", manifest))
      return error;
    return std::vector<CachedFile>{{facts.image.path, facts.image.sha256},
                                   {facts.library.path, facts.library.sha256},
                                   {facts.header.path, facts.header.sha256},
                                   {Name + ".json", sha256Hex(manifest)}};
  }

  const BuildOptions& Options;
  std::string Name;
  CudaToolkit Toolkit;
  HostCompiler Compiler;
  TemplateSet Templates;
  std::string LauncherTypes; // tlc/launcher.h, copied into NAME.h
  std::unique_ptr<Staging> Work;
  DisplayPaths Paths;
  JobSlots Slots;
  BuildCache* Cache;
  std::map<std::string, std::vector<std::string>> InputNvccFlags;
  const HostPlan Host;
  std::map<std::string, std::string> InputDigests; // by input path
  StepRunner Runner;
};

} // namespace

llvm::Error runBuild(const BuildOptions& requested) {
  BuildOptions options = requested;
  auto databaseFlags = applyCompileCommands(options.sources);
  if (!databaseFlags)
    return databaseFlags.takeError();
  std::map<std::string, std::vector<std::string>> inputNvccFlags;
  for (const auto& [input, flags] : *databaseFlags) {
    inputNvccFlags[input] = flags.nvcc;
    if (requested.archs.empty()) // the build system's targets, unless --arch says otherwise
      for (const std::string& arch : flags.archs)
        if (std::find(options.archs.begin(), options.archs.end(), arch) == options.archs.end())
          options.archs.push_back(arch);
  }
  // Parse for the newest arch built: its kernels are the ones the launcher must reach.
  if (options.sources.frontend.arch.empty() && !options.archs.empty())
    options.sources.frontend.arch = options.archs.back();
  auto name = moduleName(options);
  if (!name)
    return name.takeError();
  if (llvm::Error error = checkInputFiles(options.sources.inputs))
    return error;
  auto toolkit = findCudaToolkit(options.sources.cudaPath);
  if (!toolkit)
    return toolkit.takeError();
  HostCompiler compiler;
  if (!options.emitOnly) {
    auto found = findHostCompiler();
    if (!found)
      return found.takeError();
    compiler = std::move(*found);
  }
  auto templates = TemplateSet::load(options.templateDir);
  if (!templates)
    return templates.takeError();
  std::string launcherTypesPath = options.sources.frontend.tlcIncludeDir + "/tlc/launcher.h";
  auto launcherTypes = readFile(launcherTypesPath);
  if (!launcherTypes)
    return toolchainError("cannot read '" + launcherTypesPath + "' (reinstall tlc): " +
                          llvm::toString(launcherTypes.takeError()));
  if (!options.emitOnly && !llvm::sys::fs::exists(options.runtimeLibrary))
    return toolchainError("the launcher runtime '" + options.runtimeLibrary +
                          "' is missing (reinstall tlc)");
  auto staging = Staging::create(options.outputDir);
  if (!staging)
    return staging.takeError();
  bool useCache = !options.noCache && cacheEnabledByEnvironment() && !options.emitOnly &&
                  !options.keepTemps;
  BuildCache cache(defaultCacheDir());
  Builder builder(options, *name, std::move(*toolkit), std::move(compiler),
                  std::move(*templates), std::move(*launcherTypes), std::move(*staging),
                  useCache ? &cache : nullptr,
                  std::move(inputNvccFlags));
  return builder.run();
}

} // namespace tlc
