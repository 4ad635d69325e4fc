// `tlc build`: resolve the options, look the build up in the cache, else plan it (BuildPlan.h)
// and run the plan (Executor.h) with this file's task handlers; publish the outputs at once.
#include "build/BuildKey.h"
#include "build/BuildPlan.h"
#include "build/Depfile.h"
#include "build/DeviceBuild.h"
#include "build/DisplayPaths.h"
#include "build/Executor.h"
#include "build/Steps.h"
#include "build/HostBuild.h"
#include "build/Manifest.h"
#include "build/Publish.h"
#include "build/Steps.h"
#include "build/ToolPaths.h"
#include "build/Toolchain.h"
#include "cache/Cache.h"
#include "checks/Analysis.h"
#include "checks/Entries.h"
#include "commands/Commands.h"
#include "frontend/Frontend.h"
#include "render/LauncherView.h"
#include "render/Templates.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/Identifiers.h"
#include "support/Interrupts.h"
#include "support/Terminal.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace tlc {

namespace {

llvm::Expected<std::string> moduleName(const BuildOptions& options) {
  if (!options.name.empty()) {
    if (!isCIdentifier(options.name))
      return usageError("--name '" + options.name +
                        "' is not a C identifier (it prefixes every "
                        "function of the generated API)");
    return options.name;
  }
  const std::string& first = options.sources.inputs.front();
  std::string name = identifierFrom(llvm::sys::path::stem(first).str());
  if (!isCIdentifier(name))
    return usageError("the module's name would come from '" + first + "', but '" + name +
                      "' is not a C identifier (it prefixes every function of the generated "
                      "API); pass --name NAME");
  return name;
}

// Each input once: the same file twice would define every kernel twice.
llvm::Error checkDistinctInputs(const std::vector<std::string>& inputs) {
  std::vector<std::pair<llvm::sys::fs::UniqueID, const std::string*>> seen;
  for (const std::string& input : inputs) {
    llvm::sys::fs::UniqueID id;
    if (llvm::sys::fs::getUniqueID(input, id))
      continue; // checkInputFiles reports it
    for (const auto& [other, name] : seen)
      if (other == id)
        return usageError(*name == input
                              ? "input '" + input + "' is given twice"
                              : "inputs '" + *name + "' and '" + input + "' are the same file");
    seen.push_back({id, &input});
  }
  return llvm::Error::success();
}

// What a build reads besides its inputs: found once, before the build.
struct BuildTools {
  CudaToolkit toolkit;
  HostCompiler compiler;        // unset with --emit-only
  TemplateSet templates;
  std::string launcherTypes;    // tlc/launcher.h, copied into NAME.h
  std::string launcherTypesPath;
};

// What the tools get (ToolPaths.h): names in the work folder for every path, checked flags.
struct ToolView {
  ToolPaths names;
  DeviceBuildOptions device;
  HostBuildOptions host;

  void setWorkDir(const std::string& dir) {
    names.setWorkDir(dir);
    device.workDir = host.workDir = dir;
  }
};

class Builder : public TaskHandler {
public:
  Builder(const BuildOptions& options, BuildTools tools, std::unique_ptr<Staging> staging,
          BuildCache* cache, ToolView view)
      : Options(options), Name(options.name), Tools(std::move(tools)), Work(std::move(staging)),
        Names(std::move(view.names)), Paths(options.sources.inputs, Work->workDir()),
        Slots(effectiveJobs(options.sources.frontend.jobs)), Cache(cache),
        Device(planDeviceBuild(view.device, Tools.toolkit)),
        Host(view.host.compiler.empty() ? HostPlan() : planHostBuild(view.host)) {
    Runner.verbose = options.sources.verbose;
    Runner.timeoutSeconds = options.toolTimeout;
    Runner.display = [this](const std::vector<std::string>& argv) {
      std::vector<std::string> shown;
      for (const std::string& arg : argv)
        shown.push_back(Names.argument(arg));
      return Paths.commandLine(shown);
    };
    Runner.messages = [this](const std::string& text) { return Names.message(text); };
  }

  llvm::Error run() {
    if (Options.keepTemps)
      Work->keep();
    // Said after a failed build too: that is when the temporaries are wanted most.
    llvm::scope_exit sayKept([&] {
      if (Options.keepTemps)
        printToolMessage(MessageKind::Note, "kept temporary files in " + Work->workDir());
    });
    std::string key;
    if (Cache) {
      auto computed = cacheKey();
      if (!computed)
        return computed.takeError();
      key = *computed;
      std::vector<std::string> inputs;
      for (const std::string& input : Options.sources.inputs)
        inputs.push_back(absolutePath(input));
      std::vector<std::string> outputs = {imageFile(), "lib" + Name + ".so", Name + ".h",
                                          Name + ".json"};
      if (std::optional<CacheHit> hit = Cache->find(key, outputs, inputs);
          hit && Cache->restore(*hit, Work->outputsDir())) {
        Cache->count(true);
        Progress progress(1, Options.quiet);
        progress.start("cached " + Name + " (" +
                       llvm::sys::path::filename(hit->entryDir).str() + ")");
        return finish(fileNames(hit->files), Name + ".json", hit->dependencies);
      }
      Cache->count(false);
    }

    if (llvm::Error error = Names.materialize())
      return error;
    BuildPlanOptions planOptions;
    planOptions.inputCount = Options.sources.inputs.size();
    planOptions.emitOnly = Options.emitOnly;
    BuildPlan plan = planBuild(planOptions, Device, Host);
    Progress progress(plan.progressTotal(), Options.quiet);
    auto announce = [&](const Task& task) { progress.start(task.description); };
    if (llvm::Error error = firstFailure(plan, executePlan(plan, *this, Slots, announce)))
      return error;

    std::vector<std::string> dependencies = dependenciesOf();
    if (Options.emitOnly) {
      // What tlc would compile, and the image NAME_image.S embeds.
      std::vector<std::string> sources = {Name + ".h", Name + "_launcher.cpp", imageFile()};
      if (!Options.externalImage)
        sources.push_back(Name + "_image.S");
      return finish(sources, Name + ".h", dependencies);
    }
    if (Cache)
      if (llvm::Error error = Cache->store(key, Work->outputsDir(), Outputs, dependencies))
        printToolMessage(MessageKind::Warning, "cannot store the build in the cache: " +
                                                   summarize(std::move(error)).message);
    return finish(fileNames(Outputs), Name + ".json", dependencies);
  }

  // The plan's tasks.
  llvm::Error run(const Task& task) override {
    switch (task.kind) {
    case TaskKind::Parse:
      return parse();
    case TaskKind::Tool:
      return Runner.run(*task.step);
    case TaskKind::CheckImage:
      return checkImage();
    case TaskKind::Render:
      return render();
    case TaskKind::ToolVersions:
      return readToolVersions();
    case TaskKind::Manifest:
      return writeManifest();
    }
    return internalError("unknown build task '" + task.description + "'");
  }

private:
  static std::vector<std::string> fileNames(const std::vector<CachedFile>& files) {
    std::vector<std::string> names;
    for (const CachedFile& file : files)
      names.push_back(file.name);
    return names;
  }

  // Source errors come first: nvcc would only repeat them. The other failures are dropped.
  static llvm::Error firstFailure(const BuildPlan& plan, std::vector<TaskFailure> failures) {
    std::stable_partition(failures.begin(), failures.end(), [&](const TaskFailure& failure) {
      return plan.tasks[failure.task].kind == TaskKind::Parse;
    });
    llvm::Error first = llvm::Error::success();
    for (TaskFailure& failure : failures) {
      if (first)
        llvm::consumeError(std::move(failure.error));
      else
        first = std::move(failure.error);
    }
    return first;
  }

  // Writes the depfile, whose target is `targetFile` in OUTDIR unless --depfile-target names
  // one, then publishes `files` (from a build or the cache). The depfile comes first: a build
  // that cannot write it fails before anything is published.
  llvm::Error finish(const std::vector<std::string>& files, const std::string& targetFile,
                     const std::vector<std::string>& dependencies) {
    if (!Options.depfile.empty()) {
      std::string target = Options.depfileTarget.empty() ? Options.outputDir + "/" + targetFile
                                                         : Options.depfileTarget;
      if (llvm::Error error = writeDepfile(Options.depfile, target, dependencies))
        return error;
    }
    // The last moment a signal stops the build; once publishing starts it completes.
    if (interrupted())
      return interruptedError();
    return Work->publish(files);
  }

  // Every file the build read: inputs, the headers Clang and nvcc opened, the templates, the
  // runtime's header and library.
  std::vector<std::string> dependenciesOf() const {
    std::set<std::string> files;
    for (const std::string& file : Options.sources.inputs)
      files.insert(absolutePath(file));
    for (const std::string& file : Parsed->filesRead)
      files.insert(absolutePath(file));
    // nvcc names files as it was given them; what tlc made in the work folder is not read
    // from the user's files.
    llvm::StringRef work = Work->workDir();
    for (const std::string& depfile : Device.dependencyFiles)
      for (const std::string& file : readDependencyFile(Work->workDir() + "/" + depfile))
        if (std::string path = Names.outside(file);
            !llvm::StringRef(path).starts_with((work + "/").str()))
          files.insert(path);
    for (const std::string& file : Tools.templates.files())
      files.insert(absolutePath(file));
    files.insert(absolutePath(Tools.launcherTypesPath));
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
    const CudaToolkit& toolkit = Tools.toolkit;
    key.add("cuda", toolkit.root + " " + std::to_string(toolkit.cudaVersion));
    for (const char* tool :
         {"bin/nvcc", "bin/ptxas", "bin/nvlink", "bin/fatbinary", "nvvm/bin/cicc"})
      key.addFileIdentity(tool, toolkit.root + "/" + tool);
    key.addFileIdentity("host-compiler", Tools.compiler.path);
    addBuildOptions(key, Options, Paths);
    for (const std::string& input : Options.sources.inputs) {
      auto digest = inputDigest(input);
      if (!digest)
        return digest.takeError();
      key.add("input-content " + Paths.input(input), *digest);
    }
    for (const std::string& file : Tools.templates.files())
      if (llvm::Error error =
              key.addFile("template " + llvm::sys::path::filename(file).str(), file))
        return error;
    key.add("launcher-types", Tools.launcherTypes);
    if (llvm::Error error = key.addFile("runtime-library", Options.runtimeLibrary))
      return error;
    return key.digest();
  }

  // An input's SHA-256, read once for the cache key and the manifest.
  llvm::Expected<std::string> inputDigest(const std::string& input) {
    std::lock_guard<std::mutex> lock(DigestMutex);
    auto known = InputDigests.find(input);
    if (known != InputDigests.end())
      return known->second;
    auto digest = sha256OfFile(input);
    if (digest)
      InputDigests[input] = *digest;
    return digest;
  }

  std::string imageFile() const { return imageFileName(Name, Options.targets); }

  // The sources are temporaries, unless they are what was asked for (--emit-only).
  std::string sourceDir() const {
    return Options.emitOnly ? Work->outputsDir() : Work->workDir();
  }

  // Task: parse and check every input, then keep the kernels --entry selects.
  llvm::Error parse() {
    auto analyzed = analyze(Options.sources.inputs, Options.sources.frontend, Tools.toolkit,
                            &Slots);
    if (!analyzed)
      return analyzed.takeError();
    Module& module = analyzed->module;
    if (module.kernels.empty())
      return inputError("no kernels to launch in " + llvm::join(Options.sources.inputs, ", "));
    if (llvm::Error error = selectEntries(module, Options.entries))
      return error;
    Paths.relativize(module);
    Parsed = std::move(*analyzed);
    return llvm::Error::success();
  }

  // Task: every image's symbol table against the parsed kernels; the image goes to the outputs.
  llvm::Error checkImage() {
    if (llvm::Error error = verifyImages(Device, Parsed->module))
      return error;
    std::string published = Work->outputsDir() + "/" + imageFile();
    if (auto ec = llvm::sys::fs::copy_file(Device.image, published))
      return inputError("cannot write '" + published + "': " + ec.message());
    return llvm::Error::success();
  }

  LauncherFacts launcherFacts() const {
    LauncherFacts facts;
    facts.name = Name;
    for (const std::string& input : Options.sources.inputs)
      facts.inputs.push_back(Paths.input(input));
    for (const GpuTarget& target : Options.targets)
      facts.targets.push_back(target.code);
    facts.relocatable = Device.relocatable;
    facts.imageFile = imageFile();
    facts.embedImage = !Options.externalImage;
    facts.launcherTypes = Tools.launcherTypes;
    return facts;
  }

  llvm::Error renderFile(const std::string& templateName, const nlohmann::json& view,
                         const std::string& path) const {
    auto text = Tools.templates.render(templateName, view);
    if (!text)
      return text.takeError();
    return writeFile(path, *text);
  }

  // Task: NAME.h, NAME_launcher.cpp and NAME_image.S from the checked module. The header is
  // an output, and the launcher's compile reads it beside the sources.
  llvm::Error render() {
    nlohmann::json view = launcherView(Parsed->module, launcherFacts());
    if (llvm::Error error =
            renderFile("header.h", view, Work->outputsDir() + "/" + Name + ".h"))
      return error;
    if (sourceDir() != Work->outputsDir())
      if (llvm::Error error =
              copyFile(Work->outputsDir() + "/" + Name + ".h", sourceDir() + "/" + Name + ".h"))
        return error;
    if (llvm::Error error =
            renderFile("launcher.cpp", view, sourceDir() + "/" + Name + "_launcher.cpp"))
      return error;
    if (!Options.externalImage)
      return renderFile("image.S", view, sourceDir() + "/" + Name + "_image.S");
    return llvm::Error::success();
  }

  // Task: the versions the manifest records.
  llvm::Error readToolVersions() {
    auto release = nvccVersion(Tools.toolkit);
    if (!release)
      return release.takeError();
    NvccRelease = *release;
    HostRelease = hostCompilerVersion(Tools.compiler);
    return llvm::Error::success();
  }

  // Task: NAME.json; records the four outputs with their SHA-256, the manifest last.
  llvm::Error writeManifest() {
    ManifestFacts facts;
    facts.name = Name;
    facts.tlcVersion = tlcVersion();
    facts.clangVersion = clangVersion();
    facts.nvccVersion = NvccRelease;
    facts.hostCompilerVersion = HostRelease;
    facts.targets = Options.targets;
    std::vector<const Step*> steps;
    for (const std::vector<Step>* group : {&Device.compiles, &Device.links})
      for (const Step& step : *group)
        steps.push_back(&step);
    for (const std::optional<Step>* step : {&Device.package})
      if (*step)
        steps.push_back(&**step);
    steps.push_back(&Host.compileLauncher);
    if (Host.assembleImage)
      steps.push_back(&*Host.assembleImage);
    steps.push_back(&Host.link);
    for (const Step* step : steps)
      facts.commands.push_back(Runner.commandLine(*step));

    for (const std::string& input : Options.sources.inputs) {
      auto digest = inputDigest(input);
      if (!digest)
        return digest.takeError();
      facts.inputs.push_back({Paths.input(input), *digest});
    }
    const std::string& out = Work->outputsDir();
    std::string library = "lib" + Name + ".so";
    if (llvm::Error error = copyFile(Work->workDir() + "/" + library, out + "/" + library, 0777))
      return error;
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
    // A name that is not UTF-8 (a file name) is written with replacement characters.
    std::string manifest = buildManifest(Parsed->module, facts)
                               .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                           "\n";
    if (llvm::Error error = writeFile(out + "/" + Name + ".json", manifest))
      return error;
    Outputs = {{facts.image.path, facts.image.sha256},
               {facts.library.path, facts.library.sha256},
               {facts.header.path, facts.header.sha256},
               {Name + ".json", sha256Hex(manifest)}};
    return llvm::Error::success();
  }

  const BuildOptions& Options;
  const std::string& Name;
  BuildTools Tools;
  std::unique_ptr<Staging> Work;
  ToolPaths Names; // what the tools are given
  DisplayPaths Paths;
  JobSlots Slots;
  BuildCache* Cache;
  const DevicePlan Device;
  const HostPlan Host;
  StepRunner Runner;
  std::mutex DigestMutex;
  std::map<std::string, std::string> InputDigests; // by input path
  // What the tasks found, each written by one task and read by the tasks after it.
  std::optional<Analysis> Parsed;
  std::string NvccRelease, HostRelease;
  std::vector<CachedFile> Outputs;
};

// The options as the build uses them: the compile database's flags and targets applied, the
// targets resolved, the parse arch and the module's name decided.
llvm::Expected<BuildOptions> resolveOptions(const BuildOptions& requested,
                                            const CudaToolkit& toolkit) {
  BuildOptions options = requested;
  auto databaseFlags = applyCompileCommands(options.sources);
  if (!databaseFlags)
    return databaseFlags.takeError();
  bool asked = !requested.archs.empty() || !requested.gencodes.empty();
  auto addOnce = [](std::vector<std::string>& list, const std::string& value) {
    if (std::find(list.begin(), list.end(), value) == list.end())
      list.push_back(value);
  };
  for (const auto& [input, flags] : *databaseFlags) {
    options.inputNvccFlags[input] = flags.nvcc;
    if (asked) // the build system's targets, unless --arch or --gencode say otherwise
      continue;
    for (const std::string& arch : flags.archs)
      addOnce(options.archs, arch);
    for (const std::string& gencode : flags.gencodes)
      addOnce(options.gencodes, gencode);
  }
  auto environment = targetEnvironment(toolkit);
  if (!environment)
    return environment.takeError();
  auto targets = resolveTargets(options.archs, options.gencodes, *environment);
  if (!targets)
    return targets.takeError();
  options.targets = std::move(*targets);
  // Parse for the newest arch built: its kernels are the ones the launcher must reach.
  if (options.sources.frontend.arch.empty())
    options.sources.frontend.arch = parseArchFor(options.targets);
  auto name = moduleName(options);
  if (!name)
    return name.takeError();
  options.name = *name;
  return options;
}

llvm::Expected<BuildTools> findTools(const BuildOptions& options, CudaToolkit toolkit) {
  BuildTools tools;
  tools.toolkit = std::move(toolkit);
  if (!options.emitOnly) {
    auto compiler = findHostCompiler();
    if (!compiler)
      return compiler.takeError();
    tools.compiler = std::move(*compiler);
    if (!llvm::sys::fs::exists(options.runtimeLibrary))
      return toolchainError("the launcher runtime '" + options.runtimeLibrary +
                            "' is missing (reinstall tlc)");
  }
  auto templates = TemplateSet::load(options.templateDir);
  if (!templates)
    return templates.takeError();
  tools.templates = std::move(*templates);
  tools.launcherTypesPath = options.sources.frontend.tlcIncludeDir + "/tlc/launcher.h";
  auto launcherTypes = readFile(tools.launcherTypesPath);
  if (!launcherTypes)
    return toolchainError("cannot read '" + tools.launcherTypesPath + "' (reinstall tlc): " +
                          llvm::toString(launcherTypes.takeError()));
  tools.launcherTypes = std::move(*launcherTypes);
  return tools;
}

// The options the tools get: the inputs copied into the work folder and every other path a
// link there (ToolPaths.h); every flag that reaches nvcc checked. Fails before anything is made.
llvm::Expected<ToolView> prepareTools(const BuildOptions& options, const BuildTools& tools) {
  const FrontendOptions& frontend = options.sources.frontend;
  ToolView view;
  ToolPaths& names = view.names;
  DeviceBuildOptions& device = view.device;
  device.name = options.name;
  device.targets = options.targets;
  device.standard = frontend.standard;
  device.launcher = options.launcher;
  for (size_t i = 0; i < options.sources.inputs.size(); ++i) {
    device.inputs.push_back(names.input(i, options.sources.inputs[i]));
    device.inputDirs.push_back(names.inputFolder(i));
    device.inputNames.push_back(llvm::sys::path::filename(options.sources.inputs[i]).str());
  }
  for (const std::string& dir : frontend.includeDirs)
    device.includeDirs.push_back(names.folder(dir));
  if (!frontend.tlcIncludeDir.empty())
    device.tlcIncludeDir = names.link(frontend.tlcIncludeDir, "tlc-include");
  // -D, then -Xnvcc, then each input's compile-database flags: macros keep that order.
  ToolPaths::Macros macros;
  std::vector<std::string> defineFlags;
  for (const std::string& define : frontend.defines)
    defineFlags.push_back("-D" + define);
  auto defines = names.nvccFlags(defineFlags, "-D", macros);
  if (!defines)
    return defines.takeError();
  device.defines = std::move(*defines);
  auto nvccFlags = names.nvccFlags(options.nvccFlags, "-Xnvcc", macros);
  if (!nvccFlags)
    return nvccFlags.takeError();
  device.nvccFlags = std::move(*nvccFlags);
  for (size_t i = 0; i < options.sources.inputs.size(); ++i) {
    const std::string& input = options.sources.inputs[i];
    ToolPaths::Macros inputMacros = macros;
    std::vector<std::string> flags;
    if (auto it = options.inputNvccFlags.find(input); it != options.inputNvccFlags.end()) {
      auto checked = names.nvccFlags(it->second, "compile_commands.json", inputMacros);
      if (!checked)
        return checked.takeError();
      flags = std::move(*checked);
    }
    for (const std::string& flag :
         names.forceInclude("tlc-macros-" + std::to_string(i) + ".h", inputMacros))
      flags.push_back(flag);
    if (!flags.empty())
      device.inputFlags[device.inputs[i]] = std::move(flags);
  }

  HostBuildOptions& host = view.host;
  host.name = options.name;
  host.compiler = tools.compiler.path;
  host.embedImage = !options.externalImage;
  if (!options.emitOnly) {
    host.cudaInclude = names.link(tools.toolkit.includeDir, "cuda-include");
    host.tlcInclude = names.link(frontend.tlcIncludeDir, "tlc-include");
    host.runtimeLibrary = names.link(options.runtimeLibrary, "libtlc_runtime.a");
    host.runtimeFlags = runtimeArchiveFlags();
  }
  return view;
}

} // namespace

llvm::Error runBuild(const BuildOptions& requested) {
  if (requested.outputDir.empty())
    return usageError("-o '' names no folder");
  if (llvm::Error error = checkInputFiles(requested.sources.inputs))
    return error;
  if (llvm::Error error = checkDistinctInputs(requested.sources.inputs))
    return error;
  auto toolkit = findCudaToolkit(requested.sources.cudaPath);
  if (!toolkit)
    return toolkit.takeError();
  if (llvm::Error error = checkToolkitPath(*toolkit))
    return error;
  auto options = resolveOptions(requested, *toolkit);
  if (!options)
    return options.takeError();
  auto tools = findTools(*options, std::move(*toolkit));
  if (!tools)
    return tools.takeError();
  auto view = prepareTools(*options, *tools);
  if (!view)
    return view.takeError();
  auto cacheEnabled = cacheEnabledByEnvironment();
  if (!cacheEnabled)
    return cacheEnabled.takeError();
  bool useCache = !options->noCache && *cacheEnabled && !options->emitOnly && !options->keepTemps;

  // From here on tlc makes files: a signal stops the build and removes them.
  InterruptScope interrupts;
  auto staging = Staging::create(options->outputDir);
  if (!staging)
    return staging.takeError();
  view->setWorkDir((*staging)->workDir());
  std::optional<BuildCache> cache;
  if (useCache)
    cache = openBuildCache(defaultCacheDir());
  llvm::Error result = Builder(*options, std::move(*tools), std::move(*staging),
                               cache ? &*cache : nullptr, std::move(*view))
                           .run();
  if (result && interrupted()) { // whatever failed, the signal came first
    llvm::consumeError(std::move(result));
    return interruptedError();
  }
  return result;
}

} // namespace tlc
