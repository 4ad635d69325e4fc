// `tlc build`: resolve the options, look the build up in the cache, else plan it (BuildPlan.h)
// and run the plan (Executor.h) with this file's task handlers; publish the outputs at once.
#include "build/BuildKey.h"
#include "build/BuildPlan.h"
#include "build/Depfile.h"
#include "build/DeviceBuild.h"
#include "build/DeviceImage.h"
#include "build/DisplayPaths.h"
#include "build/Executor.h"
#include "build/Steps.h"
#include "build/SymbolResolution.h"
#include "build/HostBuild.h"
#include "build/ImageCheck.h"
#include "build/Manifest.h"
#include "build/Publish.h"
#include "build/PythonBuild.h"
#include "build/Toolchain.h"
#include "cache/Cache.h"
#include "cache/RemoteCache.h"
#include "checks/Analysis.h"
#include "checks/Entries.h"
#include "checks/SourceDiagnostics.h"
#include "model/DerivedFacts.h"
#include "model/LauncherNames.h"
#include "commands/Commands.h"
#include "frontend/Frontend.h"
#include "render/LauncherView.h"
#include "render/PythonView.h"
#include "render/Templates.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/Identifiers.h"
#include "support/Jobserver.h"
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

// The module's name: --name, else the first input's stem. It prefixes the whole generated API,
// so it must be a C identifier, and it may not begin with tlc_'s own prefix (`tlc`, `TLC_`...),
// which keeps every name tlc makes (tlc_NAME_*, TLC_NAME_*) apart from every launcher (NAME_*).
llvm::Expected<std::string> moduleName(const BuildOptions& options) {
  std::string name = options.name;
  std::string source = "--name '" + name + "'";
  if (name.empty()) {
    std::string file = llvm::sys::path::filename(options.sources.inputs.front()).str();
    name = identifierFrom(llvm::sys::path::stem(file).str());
    source = "the module name '" + name + "' (from " + file + ", as no --name was given)";
  }
  if (!isCIdentifier(name))
    return usageError(source + " is not a C identifier (it prefixes every function of the "
                      "generated API); choose one with --name");
  llvm::StringRef lower = llvm::StringRef(name).lower();
  std::string folded = lower.str();
  if (folded == "tlc" || llvm::StringRef(folded).starts_with("tlc_"))
    return usageError(source + " begins with tlc's own prefix, which names the API every "
                      "module shares (tlc_config, tlc_NAME_load, ...); choose another with --name");
  return name;
}

// What a build reads besides its inputs: found once, before the build.
struct BuildTools {
  CudaToolkit toolkit;
  HostCompiler compiler;        // unset with --emit-only
  TemplateSet templates;
  std::string launcherTypes;    // tlc/launcher.h, copied into NAME.h
  std::string launcherTypesPath;
};

class Builder : public TaskHandler {
public:
  Builder(const BuildOptions& options, BuildTools tools, std::unique_ptr<Staging> staging,
          BuildCache* cache, RemoteCache* remote)
      : Options(options), Name(Options.name), Tools(std::move(tools)),
        Work(std::move(staging)), Paths(options.sources.inputs, Work->root()),
        Slots(effectiveJobs(options.sources.frontend.jobs), processJobserver()), Cache(cache),
        Remote(remote),
        Device(planDeviceBuild(deviceOptions(), Tools.toolkit)), Host(planHost()),
        Python(planPython()) {
    Runner.verbose = options.sources.verbose;
    if (options.sources.verbose)
      noteJobLimit(effectiveJobs(options.sources.frontend.jobs));
    Runner.display = [this](const std::vector<std::string>& argv) {
      return Paths.commandLine(argv);
    };
  }

  llvm::Error run() {
    if (Options.keepTemps)
      Work->keep();
    if (llvm::Error error = writeCompileCommands())
      return error;
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
      std::optional<CacheHit> hit = Cache->find(key);
      bool fromRemote = false;
      if (!hit && Remote && Remote->fetch(key, *Cache)) { // now in the local cache
        hit = Cache->find(key);
        fromRemote = true;
      }
      if (hit && Cache->restore(*hit, Work->outputsDir())) {
        Cache->count(true);
        Progress progress(1, Options.quiet);
        progress.start("cached " + Name + " (" + (fromRemote ? "remote " : "") +
                       llvm::sys::path::filename(hit->entryDir).str() + ")");
        return finish(fileNames(hit->files), Name + ".json", hit->dependencies);
      }
      Cache->count(false);
    }

    if (llvm::Error error = execute())
      return error;

    std::vector<std::string> dependencies = dependenciesOf();
    if (Options.emitOnly) {
      // What tlc would compile, and the image NAME_image.S embeds.
      std::vector<std::string> sources = {Name + ".h", Name + "_launcher.cpp", imageFile()};
      if (!Options.externalImage)
        sources.push_back(Name + "_image.S");
      if (Options.python) {
        sources.push_back(Name + "_python.c");
        for (const std::string& file : pythonPackageFiles(Name).all())
          if (file != pythonPackageFiles(Name).extension)
            sources.push_back(file);
      }
      return finish(sources, Name + ".h", dependencies);
    }
    if (Cache)
      if (llvm::Error error = Cache->store(key, Work->outputsDir(), Outputs, dependencies))
        printToolMessage(MessageKind::Warning, "cannot store the build in the cache: " +
                                                   summarize(std::move(error)).message);
    if (Remote)
      Remote->store(key, Work->outputsDir(), Outputs, dependencies);
    return finish(fileNames(Outputs), Name + ".json", dependencies);
  }

  // Plans the build and runs the plan. A device-side kernel launch (dynamic parallelism) is
  // found by the parse, which runs beside nvcc: in code planned whole-program, nvcc refuses it,
  // and the build runs again as relocatable device code, parse included (nvcc then defines
  // __CUDACC_RDC__, which the parse must see too).
  llvm::Error execute() {
    BuildPlanOptions planOptions;
    planOptions.inputCount = Options.sources.inputs.size();
    planOptions.emitOnly = Options.emitOnly;
    planOptions.python = Options.python;
    BuildPlan plan = planBuild(planOptions, Device, Host, Python ? &*Python : nullptr);
    Progress progress(plan.progressTotal(), Options.quiet);
    auto announce = [&](const Task& task) { progress.start(task.description); };
    std::vector<TaskFailure> failures = executePlan(plan, *this, Slots, announce);
    if (!failures.empty() && !Device.relocatable && Parsed && Parsed->module.deviceSideLaunch) {
      for (TaskFailure& failure : failures)
        llvm::consumeError(std::move(failure.error));
      Options.sources.frontend.relocatable = true;
      if (llvm::Error error = writeCompileCommands())
        return error;
      Device = planDeviceBuild(deviceOptions(), Tools.toolkit);
      Parsed.reset();
      return execute();
    }
    return firstFailure(plan, std::move(failures));
  }

  // The plan's tasks.
  llvm::Error run(const Task& task) override {
    switch (task.kind) {
    case TaskKind::Parse:
      return parse();
    case TaskKind::Tool:
      return Runner.run(*task.step);
    case TaskKind::ExtractPtx:
      for (const PtxExtraction& extraction : Device.ptxExtractions)
        if (llvm::Error error = extractPtx(extraction))
          return error;
      return llvm::Error::success();
    case TaskKind::CheckImage:
      return checkImage();
    case TaskKind::Render:
      return render();
    case TaskKind::ToolVersions:
      return readToolVersions();
    case TaskKind::Manifest:
      return writeManifest();
    case TaskKind::RenderPython:
      return renderPython();
    }
    return internalError("unknown build task '" + task.description + "'");
  }

private:
  // --compile-commands-out: written before the build, from the options it parses with, so that an
  // editor has the kernels' flags while they do not build yet too; again when the build turns
  // relocatable (the parse then has -fgpu-rdc).
  llvm::Error writeCompileCommands() const {
    if (Options.compileCommandsOut.empty())
      return llvm::Error::success();
    return writeCompileDatabase(Options.compileCommandsOut, Options.sources.inputs,
                                Options.sources.frontend, Tools.toolkit);
  }

  // -v: how many jobs run at once, and whether make's jobserver bounds them too.
  static void noteJobLimit(unsigned jobs) {
    std::string note = "at most " + std::to_string(jobs) + " jobs at once";
    if (processJobserver())
      note += ", each beyond the first holding a token of make's jobserver";
    else if (std::string problem = processJobserverProblem(); !problem.empty())
      note += "; not joining make's jobserver: " + problem;
    printToolMessage(MessageKind::Note, note);
  }

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

  // Every file the build read: inputs, the headers the parse opened (the device side, for each
  // arch it parsed: what nvcc compiles into the image), the templates, the runtime's header and
  // library.
  std::vector<std::string> dependenciesOf() const {
    std::set<std::string> files;
    for (const std::string& file : Options.sources.inputs)
      files.insert(absolutePath(file));
    for (const std::string& file : Parsed->filesRead)
      files.insert(absolutePath(file));
    for (const std::string& file : Tools.templates.files())
      files.insert(absolutePath(file));
    files.insert(absolutePath(Tools.launcherTypesPath));
    if (!Options.emitOnly)
      files.insert(absolutePath(Options.runtimeLibrary));
    if (Options.python) {
      for (const std::string& file : pythonInputs())
        files.insert(absolutePath(file));
      if (!Options.emitOnly)
        files.insert(absolutePath(Options.pythonLibrary));
    }
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
    if (Options.python) {
      if (llvm::Error error = key.addFile("python-library", Options.pythonLibrary))
        return error;
      for (const std::string& file : pythonInputs())
        if (llvm::Error error = key.addFile("python " + file, file))
          return error;
      key.add("python-include", pythonIncludeDir());
    }
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

  DeviceBuildOptions deviceOptions() const {
    const FrontendOptions& frontend = Options.sources.frontend;
    DeviceBuildOptions device;
    device.name = Name;
    device.inputs = Options.sources.inputs;
    device.targets = Options.targets;
    device.includeDirs = frontend.includeDirs;
    device.defines = frontend.defines;
    device.standard = frontend.standard;
    device.nvccFlags = Options.nvccFlags;
    device.tlcIncludeDir = frontend.tlcIncludeDir;
    device.workDir = Work->workDir();
    device.launcher = Options.launcher;
    device.inputFlags = Options.inputNvccFlags;
    device.relocatable = Options.sources.frontend.relocatable;
    return device;
  }

  HostPlan planHost() const {
    HostBuildOptions host;
    host.name = Name;
    host.compiler = Tools.compiler.path;
    host.cudaInclude = Tools.toolkit.includeDir;
    host.tlcInclude = Options.sources.frontend.tlcIncludeDir;
    host.runtimeLibrary = Options.runtimeLibrary;
    host.sourceDir = sourceDir();
    host.outputDir = Work->outputsDir();
    host.workDir = Work->workDir();
    host.library = Work->outputsDir() + "/lib" + Name + ".so";
    host.embedImage = !Options.externalImage;
    return host.compiler.empty() ? HostPlan() : planHostBuild(host);
  }

  std::optional<PythonPlan> planPython() const {
    if (!Options.python || Options.emitOnly)
      return std::nullopt;
    PythonBuildOptions python;
    python.name = Name;
    python.compiler = Tools.compiler.path;
    python.pythonInclude = pythonIncludeDir();
    python.tlcInclude = Options.sources.frontend.tlcIncludeDir;
    python.cudaInclude = Tools.toolkit.includeDir;
    python.bindingLibrary = Options.pythonLibrary;
    python.sourceDir = sourceDir();
    python.outputDir = Work->outputsDir();
    python.workDir = Work->workDir();
    return planPythonBuild(python);
  }

  // What the Python package is made from besides the templates and the binding library: the
  // helper submodule's files, the binding's header and the Python headers' version.
  std::vector<std::string> pythonInputs() const {
    return {Options.pythonHelpersDir + "/tlc/__init__.py",
            Options.pythonHelpersDir + "/tlc/__init__.pyi",
            Options.sources.frontend.tlcIncludeDir + "/tlc/python.h",
            std::string(pythonIncludeDir()) + "/patchlevel.h"};
  }

  std::string imageFile() const { return imageFileName(Name, Options.targets); }

  // The sources are temporaries, unless they are what was asked for (--emit-only).
  std::string sourceDir() const {
    return Options.emitOnly ? Work->outputsDir() : Work->workDir();
  }

  // Task: parse and check every input.
  llvm::Error parse() {
    auto analyzed = analyze(Options.sources.inputs, Options.sources.frontend, Tools.toolkit,
                            &Slots);
    if (!analyzed)
      return analyzed.takeError();
    Module& module = analyzed->module;
    if (module.kernels.empty())
      return inputError("no kernels to launch in " + llvm::join(Options.sources.inputs, ", "));
    Paths.relativize(module);
    Parsed = std::move(*analyzed);
    if (Options.emitOnly)
      return llvm::Error::success();
    // The launcher as Clang names the kernels, so it compiles while nvcc runs: nvcc agrees for
    // every kernel with external linkage. The final render corrects the rest (render()).
    Module guess = Parsed->module;
    if (llvm::Error error = selectEntries(guess, Options.entries)) {
      llvm::consumeError(std::move(error)); // the check reports it, with the final symbols
      guess = Parsed->module;
    }
    return renderSources(guess);
  }

  // Kernels some target holds that the parse did not see, being for another arch (code under
  // `#if __CUDA_ARCH__ < 900`, say): the inputs are parsed again for each other arch of the
  // build, and the kernels found there join the module.
  llvm::Error parseOtherArchs(std::set<std::string> undeclared, const EntriesByInput& entries) {
    Module& module = Parsed->module;
    std::set<std::string> archs;
    for (const GpuTarget& target : Options.targets)
      archs.insert("sm_" + target.number());
    archs.erase(Options.sources.frontend.arch);
    for (const std::string& arch : archs) {
      if (undeclared.empty())
        break;
      FrontendOptions frontend = Options.sources.frontend;
      frontend.arch = arch;
      auto analyzed = analyze(Options.sources.inputs, frontend, Tools.toolkit, &Slots);
      if (!analyzed)
        return analyzed.takeError();
      Module& other = analyzed->module;
      Paths.relativize(other);
      if (llvm::Error error = resolveKernelSymbols(other, entries))
        return error;
      for (Kernel& kernel : other.kernels)
        if (undeclared.erase(kernel.symbol))
          module.kernels.push_back(std::move(kernel));
      for (const std::string& entry : other.otherEntries)
        if (undeclared.erase(entry))
          module.otherEntries.push_back(entry);
      Parsed->filesRead.insert(Parsed->filesRead.end(), analyzed->filesRead.begin(),
                               analyzed->filesRead.end());
    }
    SourceDiagnostics diagnostics(llvm::errs(), Options.sources.frontend.color);
    if (!assignLauncherNames(module.kernels, diagnostics))
      return reportedInputError("launcher names collide");
    deriveFacts(module);
    return llvm::Error::success();
  }

  // Each input's entry symbols, by its name in the module: from the image itself for one input
  // compiled whole-program, else from each input's own relocatable object.
  llvm::Expected<EntriesByInput> entriesByInput() const {
    EntriesByInput entries;
    const std::vector<std::string>& inputs = Options.sources.inputs;
    const TargetImage& first = Device.targets.front();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string& file = first.perInput.empty() ? Device.image : first.perInput[i];
      auto contents = readDeviceImageFile(file);
      if (!contents)
        return contents.takeError();
      std::set<std::string>& symbols = entries[Paths.input(inputs[i])];
      for (const ImageContents::Part& part : contents->parts)
        for (const ImageEntry& entry : part.info.entries)
          symbols.insert(entry.symbol);
    }
    return entries;
  }

  // Task: every kernel's symbol from the image (build/SymbolResolution.h), then every target's
  // symbol table against the parsed kernels; the image goes to the outputs.
  llvm::Error checkImage() {
    auto entries = entriesByInput();
    if (!entries)
      return entries.takeError();
    if (llvm::Error error = resolveKernelSymbols(Parsed->module, *entries))
      return error;
    std::set<std::string> fromInputs;
    for (const auto& [input, symbols] : *entries)
      fromInputs.insert(symbols.begin(), symbols.end());
    auto targetEntries = readTargetEntries(Device, fromInputs);
    if (!targetEntries)
      return targetEntries.takeError();
    if (std::set<std::string> undeclared = undeclaredEntries(Parsed->module, *targetEntries);
        !undeclared.empty())
      if (llvm::Error error = parseOtherArchs(std::move(undeclared), *entries))
        return error;
    if (llvm::Error error = assignKernelTargets(Parsed->module, Device, *targetEntries))
      return error;
    // --entry names kernels by their final symbols too; the others stay in the image.
    if (llvm::Error error = selectEntries(Parsed->module, Options.entries))
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

  // NAME.h, NAME_launcher.cpp and NAME_image.S from `module`; remembers the launcher's text.
  llvm::Error renderSources(const Module& module) {
    nlohmann::json view = launcherView(module, launcherFacts());
    if (llvm::Error error =
            renderFile("header.h", view, Work->outputsDir() + "/" + Name + ".h"))
      return error;
    auto launcher = Tools.templates.render("launcher.cpp", view);
    if (!launcher)
      return launcher.takeError();
    if (*launcher != RenderedLauncher) {
      RenderedLauncher = std::move(*launcher);
      if (llvm::Error error =
              writeFile(sourceDir() + "/" + Name + "_launcher.cpp", RenderedLauncher))
        return error;
      LauncherCompiled = false;
    }
    if (!Options.externalImage)
      return renderFile("image.S", view, sourceDir() + "/" + Name + "_image.S");
    return llvm::Error::success();
  }

  // Task: the sources from the checked module. The launcher compiled from the parse's guess is
  // compiled again only if the image's symbols, targets or --entry changed it.
  llvm::Error render() {
    LauncherCompiled = !Options.emitOnly; // the compile task ran on the guess
    if (llvm::Error error = renderSources(Parsed->module))
      return error;
    if (LauncherCompiled || Options.emitOnly)
      return llvm::Error::success();
    return Runner.run(Host.compileLauncher);
  }

  // Task: the package NAME/ (its Python files) in the outputs, NAME_python.c with the sources.
  llvm::Error renderPython() {
    if (llvm::Error error = checkPythonNames(Parsed->module))
      return error;
    nlohmann::json view = launcherView(Parsed->module, launcherFacts());
    addPythonView(Parsed->module, view);
    const std::string& out = Work->outputsDir();
    PythonPackageFiles files = pythonPackageFiles(Name);
    if (auto ec = llvm::sys::fs::create_directories(out + "/" + Name + "/tlc"))
      return inputError("cannot create '" + out + "/" + Name + "/tlc': " + ec.message());
    std::pair<const char*, std::string> rendered[] = {
        {"python_module.c", sourceDir() + "/" + Name + "_python.c"},
        {"python_init.py", out + "/" + files.init},
        {"python_stubs.pyi", out + "/" + files.stubs},
    };
    for (const auto& [templateName, path] : rendered)
      if (llvm::Error error = renderFile(templateName, view, path))
        return error;
    if (llvm::Error error = writeFile(out + "/" + files.marker, ""))
      return error;
    std::pair<std::string, std::string> copied[] = {
        {Options.pythonHelpersDir + "/tlc/__init__.py", out + "/" + files.helpers},
        {Options.pythonHelpersDir + "/tlc/__init__.pyi", out + "/" + files.helperStubs},
    };
    for (const auto& [from, to] : copied)
      if (auto ec = llvm::sys::fs::copy_file(from, to))
        return toolchainError("cannot copy '" + from + "' (reinstall tlc): " + ec.message());
    return llvm::Error::success();
  }

  // Task: the versions the manifest records (nvcc's was read when the toolkit was found).
  llvm::Error readToolVersions() {
    NvccRelease = Tools.toolkit.release;
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
    steps.push_back(&Host.link);
    if (Python) {
      steps.push_back(&Python->compileExtension);
      steps.push_back(&Python->linkExtension);
    }
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
    if (Options.python) {
      PythonPackageFiles files = pythonPackageFiles(Name);
      std::pair<const char*, std::string> roles[] = {
          {"python_init", files.init},         {"python_stubs", files.stubs},
          {"python_marker", files.marker},     {"python_helpers", files.helpers},
          {"python_helper_stubs", files.helperStubs}, {"python_extension", files.extension},
      };
      for (const auto& [role, file] : roles) {
        auto sha = sha256OfFile(out + "/" + file);
        if (!sha)
          return sha.takeError();
        facts.python.push_back({role, {file, *sha}});
      }
    }
    std::string manifest = buildManifest(Parsed->module, facts).dump(2) + "\n";
    if (llvm::Error error = writeFile(out + "/" + Name + ".json", manifest))
      return error;
    Outputs = {{facts.image.path, facts.image.sha256},
               {facts.library.path, facts.library.sha256},
               {facts.header.path, facts.header.sha256},
               {Name + ".json", sha256Hex(manifest)}};
    for (const auto& [role, digest] : facts.python)
      Outputs.push_back({digest.path, digest.sha256});
    return llvm::Error::success();
  }

  BuildOptions Options; // its code becomes relocatable when the parse finds a device-side launch
  const std::string& Name;
  BuildTools Tools;
  std::unique_ptr<Staging> Work;
  DisplayPaths Paths;
  JobSlots Slots;
  BuildCache* Cache;
  RemoteCache* Remote; // the cache's second tier, when one is configured
  DevicePlan Device;
  const HostPlan Host;
  const std::optional<PythonPlan> Python; // with --python
  StepRunner Runner;
  std::mutex DigestMutex;
  std::map<std::string, std::string> InputDigests; // by input path
  // What the tasks found, each written by one task and read by the tasks after it.
  std::optional<Analysis> Parsed;
  std::string RenderedLauncher; // NAME_launcher.cpp as last written
  bool LauncherCompiled = false; // ...and compiled since
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
  // The probes keep to the build's job limit, as its tools will.
  JobSlots probeSlots(effectiveJobs(options.sources.frontend.jobs), processJobserver());
  auto environment = targetEnvironment(toolkit, &probeSlots);
  if (!environment)
    return environment.takeError();
  auto targets = resolveTargets(options.archs, options.gencodes, *environment);
  if (!targets)
    return targets.takeError();
  options.targets = std::move(*targets);
  // Parse for the newest arch built: its kernels are the ones the launcher must reach. The parse
  // sees what nvcc sees: its flags and whether the code is relocatable.
  FrontendOptions& frontend = options.sources.frontend;
  if (frontend.arch.empty())
    frontend.arch = parseArchFor(options.targets);
  frontend.nvccFlags = options.nvccFlags;
  frontend.relocatable = relocatableCode(options.sources.inputs.size(), options.nvccFlags,
                                         !options.launcher.empty());
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
  if (options.python) {
    if (!*pythonIncludeDir())
      return toolchainError("this tlc was built without Python support: install Python's and "
                            "DLPack's headers (Debian: python3-dev libdlpack-dev) and build tlc "
                            "again (docs/python.md)");
    for (const std::string& file :
         {options.emitOnly ? std::string() : options.pythonLibrary,
          options.pythonHelpersDir + "/tlc/__init__.py",
          std::string(pythonIncludeDir()) + "/Python.h"})
      if (!file.empty() && !llvm::sys::fs::exists(file))
        return toolchainError("'" + file + "' is missing (" +
                              (llvm::StringRef(file).ends_with("Python.h")
                                   ? std::string("install python3-dev")
                                   : std::string("reinstall tlc")) +
                              ")");
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

// --remote-storage, else TLC_REMOTE_STORAGE; none when that is empty.
llvm::Expected<std::unique_ptr<RemoteCache>> remoteCacheFor(const BuildOptions& options) {
  std::string url = options.remoteStorage ? *options.remoteStorage : remoteStorageFromEnvironment();
  if (url.empty())
    return nullptr;
  auto storage = RemoteStorage::create(url);
  if (!storage)
    return storage.takeError();
  return std::make_unique<RemoteCache>(std::move(*storage));
}

} // namespace

llvm::Error runBuild(const BuildOptions& requested) {
  if (llvm::Error error = checkInputFiles(requested.sources.inputs))
    return error;
  auto toolkit = findCudaToolkit(requested.sources.cudaPath);
  if (!toolkit)
    return toolkit.takeError();
  auto options = resolveOptions(requested, *toolkit);
  if (!options)
    return options.takeError();
  auto tools = findTools(*options, std::move(*toolkit));
  if (!tools)
    return tools.takeError();
  auto staging = Staging::create(options->outputDir);
  if (!staging)
    return staging.takeError();
  bool useCache = !options->noCache && cacheEnabledByEnvironment() && !options->emitOnly &&
                  !options->keepTemps;
  BuildCache cache(defaultCacheDir());
  std::unique_ptr<RemoteCache> remote;
  if (useCache) {
    auto configured = remoteCacheFor(*options);
    if (!configured)
      return configured.takeError();
    remote = std::move(*configured);
  }
  Builder builder(*options, std::move(*tools), std::move(*staging), useCache ? &cache : nullptr,
                  remote.get());
  return builder.run();
}

} // namespace tlc
