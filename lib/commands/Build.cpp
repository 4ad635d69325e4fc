// `tlc build`: resolve the options, look the build up in the cache, else plan it (BuildPlan.h)
// and run the plan (Executor.h) with this file's task handlers; publish the outputs at once.
#include "builder/BuildKey.h"
#include "builder/BuildPlan.h"
#include "builder/DeviceBuild.h"
#include "builder/DeviceImage.h"
#include "builder/DisplayPaths.h"
#include "builder/Executor.h"
#include "builder/HostBuild.h"
#include "builder/ImageCheck.h"
#include "builder/ImageInputs.h"
#include "builder/LayoutCheck.h"
#include "builder/OutputPaths.h"
#include "builder/PythonBuild.h"
#include "builder/Steps.h"
#include "builder/SymbolResolution.h"
#include "builder/ToolPaths.h"
#include "cache/Cache.h"
#include "cache/Relocation.h"
#include "cache/RemoteCache.h"
#include "cache/TieredCache.h"
#include "checks/Analysis.h"
#include "checks/Entries.h"
#include "checks/LauncherNames.h"
#include "checks/SourceDiagnostics.h"
#include "commands/Commands.h"
#include "frontend/Frontend.h"
#include "model/DerivedFacts.h"
#include "publish/Depfile.h"
#include "publish/Manifest.h"
#include "publish/Publish.h"
#include "render/LauncherView.h"
#include "render/PythonView.h"
#include "render/Templates.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/Identifiers.h"
#include "support/Interrupts.h"
#include "support/Jobserver.h"
#include "support/Process.h"
#include "support/StartUp.h"
#include "support/Terminal.h"
#include "toolchain/Toolchain.h"

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

// The module's name: --name, else the only input's stem (several need --name: checkNameGiven). It
// prefixes the whole generated API, so it must be a C identifier, and it may not begin with tlc_'s
// own prefix (`tlc`, `TLC_`...), which keeps every name tlc makes (tlc_NAME_*, TLC_NAME_*) apart
// from every launcher (NAME_*).
llvm::Expected<std::string> moduleName(const BuildOptions& options) {
  std::string name = options.name;
  std::string source = "--name '" + name + "'";
  if (name.empty()) {
    // A build of images is named after its image, not the header declaring its kernels.
    std::vector<std::string> images = imageInputsOf(options.sources.inputs);
    std::string file =
        llvm::sys::path::filename(images.empty() ? options.sources.inputs.front() : images.front())
            .str();
    name = identifierFrom(llvm::sys::path::stem(file).str());
    source = "the module name '" + name + "' (from " + file + ", as no --name was given)";
  }
  if (!isCIdentifier(name))
    return usageError(source + " is not a C identifier (it prefixes every function of the "
                               "generated API); choose one with --name");
  std::string folded = llvm::StringRef(name).lower();
  if (folded == "tlc" || llvm::StringRef(folded).starts_with("tlc_"))
    return usageError(source +
                      " begins with tlc's own prefix, which names the API every "
                      "module shares (tlc_config, tlc_NAME_load, ...); choose another with --name");
  return name;
}

// A file or folder name as a module name to suggest: each run of other characters than letters,
// digits and `_` one `_` (`my-kernels.v2` -> my_kernels_v2); "kernels" where that is no name tlc
// allows.
std::string suggestedNameFrom(llvm::StringRef spelling) {
  std::string name;
  for (char c : spelling) {
    bool kept = llvm::isAlnum(c) || c == '_';
    if (kept)
      name += c;
    else if (!name.empty() && name.back() != '_')
      name += '_';
  }
  while (!name.empty() && name.back() == '_')
    name.pop_back();
  std::string folded = llvm::StringRef(name).lower();
  if (!isCIdentifier(name) || folded == "tlc" || llvm::StringRef(folded).starts_with("tlc_"))
    return "kernels";
  return name;
}

// The module name to suggest where tlc does not choose one: the output folder's.
std::string suggestedName(const BuildOptions& options) {
  llvm::SmallString<256> folder(options.outputDir);
  llvm::sys::fs::make_absolute(folder);
  llvm::sys::path::remove_dots(folder, /*remove_dot_dot=*/true);
  return suggestedNameFrom(llvm::sys::path::filename(folder));
}

// Several inputs make one module, whose name prefixes the whole API: no one input's name is the
// module's, so the user names it (a three-file build named after its first file reads wrong).
llvm::Error checkNameGiven(const BuildOptions& options) {
  std::vector<std::string> inputs = options.sources.inputs;
  if (hasImageInputs(inputs)) // the headers declaring an image's kernels name nothing
    inputs = imageInputsOf(inputs);
  if (inputs.size() < 2 || !options.name.empty())
    return llvm::Error::success();
  return usageError(
      std::to_string(inputs.size()) +
      " inputs make one module, which needs a name: give --name NAME (it names "
      "libNAME.so and NAME.h and prefixes every launcher, NAME_kernel), e.g. --name " +
      suggestedName(options) + " (a single input's module is named after it)");
}

// -o is the output folder. Named like one of the files a build writes (`-o x/libconvert.so`),
// it is a mistake tlc would otherwise make into a folder of that name.
llvm::Error checkOutputIsFolder(const BuildOptions& options) {
  llvm::StringRef output = options.outputDir;
  if (output.ends_with("/")) // said to be a folder
    return llvm::Error::success();
  llvm::StringRef file = llvm::sys::path::filename(output);
  llvm::StringRef suffix = llvm::sys::path::extension(file);
  if (!llvm::is_contained({".so", ".a", ".cubin", ".fatbin", ".ptx", ".h", ".json"}, suffix))
    return llvm::Error::success();
  llvm::StringRef stem = llvm::sys::path::stem(file);
  if (suffix == ".so" || suffix == ".a")
    stem.consume_front("lib");
  std::string name = options.name.empty() ? suggestedNameFrom(stem) : options.name;
  llvm::StringRef parent = llvm::sys::path::parent_path(output);
  return usageError("-o '" + output.str() + "' names a " + suffix.str() +
                    " file, but -o is the output folder, into which tlc writes libNAME.so, "
                    "NAME.h, NAME.json and the device image; for files named '" +
                    name + "', give -o " + shellQuote({parent.empty() ? "." : parent.str()}) +
                    " --name " + name);
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
  HostCompiler compiler; // unset with --emit-only
  TemplateSet templates;
  std::string launcherTypes; // tlc/launcher.h, copied into NAME.h
  std::string launcherTypesPath;
};

// What the tools get (ToolPaths.h): names in the work folder for every path, checked flags.
struct ToolView {
  ToolPaths names;
  std::vector<SourceIdentity> identities; // per input: what nvcc is told of it
  DeviceBuildOptions device;
  HostBuildOptions host;
  std::optional<PythonBuildOptions> python; // with --python
  // A build of device images (builder/ImageInputs.h): what they hold, each target's source.
  std::optional<ImageSet> images;
  std::vector<TargetSource> imageSources;
  ImageBuildOptions imageOptions;

  void setWorkDir(const std::string& dir) {
    names.setWorkDir(dir);
    device.workDir = host.workDir = imageOptions.workDir = dir;
    if (python)
      python->workDir = dir;
  }
};

class Builder : public TaskHandler {
public:
  Builder(const BuildOptions& options, BuildTools tools, std::unique_ptr<Staging> staging,
          TieredCache* cache, PathRelocation relocation, ToolView view)
      : Options(options), Name(Options.name), Tools(std::move(tools)), Work(std::move(staging)),
        Names(std::move(view.names)), Identities(std::move(view.identities)),
        Paths(options.sources.inputs, Work->workDir()),
        Slots(effectiveJobs(options.sources.frontend.jobs), processJobserver()), Cache(cache),
        Relocation(std::move(relocation)), DeviceOptions(std::move(view.device)),
        Device(view.images ? DevicePlan() : planDeviceBuild(DeviceOptions, Tools.toolkit)),
        Host(view.host.compiler.empty() ? HostPlan() : planHostBuild(view.host)),
        Python(view.python ? std::optional<PythonPlan>(planPythonBuild(*view.python))
                           : std::nullopt) {
    if (view.images) {
      ImageBuild build = planImageBuild(*view.images, view.imageSources, view.imageOptions);
      Device = std::move(build.device);
      Staged = std::move(build.staged);
      Images = std::move(view.images);
    }
    // The tools and tlc's own files are named by what they are, not where they are installed.
    Paths.addPlaceholder(Tools.toolkit.root, "<cuda>");
    // tlc's own folders only (a checkout's build folder is tlc's prefix there, and may hold
    // the user's files): its headers and its libraries.
    std::string prefix = llvm::sys::path::parent_path(options.sources.frontend.tlcIncludeDir).str();
    for (const std::string& file : {options.runtimeLibrary, options.pythonLibrary})
      if (!file.empty() && !prefix.empty()) {
        std::string folder = llvm::sys::path::parent_path(absolutePath(file)).str();
        Paths.addPlaceholder(folder, "<tlc>/" + relativePath(absolutePath(prefix), folder));
      }
    if (!prefix.empty())
      Paths.addPlaceholder(options.sources.frontend.tlcIncludeDir, "<tlc>/include");
    if (!Tools.compiler.path.empty())
      Paths.addPlaceholder(Tools.compiler.path,
                           llvm::sys::path::filename(Tools.compiler.name).str());
    if (options.python)
      Paths.addPlaceholder(pythonIncludeDir(), "<python-include>");
    Runner.verbose = options.sources.verbose;
    Runner.timeoutSeconds = options.toolTimeout;
    Runner.cancel = &ParseFailed;
    if (options.sources.verbose)
      noteJobLimit(effectiveJobs(options.sources.frontend.jobs));
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
      if (llvm::Error error = Work->keep())
        return error;
    if (llvm::Error error = writeCompileCommands())
      return error;
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
        inputs.push_back(Relocation.path(absolutePath(input)));
      std::optional<TieredCache::Hit> hit =
          Cache->restore(key, publishedFiles(Options), inputs, Relocation, Work->outputsDir());
      if (hit) {
        Progress progress(1, Options.quiet);
        progress.start("cached " + Name + " (" + (hit->remote ? "remote " : "") +
                       llvm::sys::path::filename(hit->entry.entryDir).str() + ")");
        return finish(fileNames(hit->entry.files), Name + ".json", hit->entry.dependencies);
      }
    }

    if (llvm::Error error = Names.materialize())
      return error;
    if (Images)
      if (llvm::Error error = stageImageFiles(*Images, {Device, Staged}))
        return error;
    if (llvm::Error error = execute())
      return error;

    std::vector<std::string> dependencies = dependenciesOf();
    if (Options.emitOnly) {
      // What tlc would compile, and the image NAME_image.S embeds (publishedFiles names them).
      return finish(publishedFiles(Options), Name + ".h", dependencies);
    }
    if (Cache)
      storeBuild(key, dependencies);
    return finish(fileNames(Outputs), Name + ".json", dependencies);
  }

  // Puts the build into the cache's tiers. Entries record the files relocated as the key spells
  // them, hashed as they are after the build. A failure only warns.
  void storeBuild(const std::string& key, const std::vector<std::string>& dependencies) {
    std::vector<std::string> recorded;
    for (const std::string& dependency : dependencies)
      recorded.push_back(Relocation.path(dependency));
    Cache->store(key, Work->outputsDir(), Outputs, recorded, Relocation);
  }

  // Plans the build and runs the plan. A device-side kernel launch (dynamic parallelism) is
  // found by the parse, which runs beside nvcc: in code planned whole-program, nvcc refuses it,
  // and the build runs again as relocatable device code, parse included (nvcc then defines
  // __CUDACC_RDC__, which the parse must see too).
  llvm::Error execute() {
    BuildPlanOptions planOptions;
    planOptions.inputCount = parsedInputs().size();
    planOptions.emitOnly = Options.emitOnly;
    planOptions.python = Options.python;
    BuildPlan plan = planBuild(planOptions, Device, Host, Python ? &*Python : nullptr);
    Progress progress(plan.progressTotal(), Options.quiet);
    auto announce = [&](const Task& task) { progress.start(task.description); };
    std::vector<TaskFailure> failures = executePlan(plan, *this, Slots, announce);
    // A signal stops the plan without a failure when it comes before the tasks it skips start:
    // the build did not happen (and nothing it would have made, the parse included, exists).
    if (interrupted()) {
      for (TaskFailure& failure : failures)
        llvm::consumeError(std::move(failure.error));
      return interruptedError();
    }
    if (!failures.empty() && !Device.relocatable && Parsed && Parsed->module.deviceSideLaunch) {
      for (TaskFailure& failure : failures)
        llvm::consumeError(std::move(failure.error));
      Options.sources.frontend.relocatable = true;
      DeviceOptions.relocatable = true;
      if (llvm::Error error = writeCompileCommands())
        return error;
      Device = planDeviceBuild(DeviceOptions, Tools.toolkit);
      Parsed.reset();
      return execute();
    }
    return firstFailure(plan, std::move(failures));
  }

  // The plan's tasks.
  llvm::Error run(const Task& task) override {
    switch (task.kind) {
    case TaskKind::Parse:
      if (llvm::Error error = parse()) {
        // Its errors are what the build reports (firstFailure): nvcc, still compiling the same
        // sources, could only repeat them, or wait forever on what the parse refused to open
        // (a FIFO #included).
        ParseFailed = true;
        return error;
      }
      return llvm::Error::success();
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
    return writeCompileDatabase(Options.compileCommandsOut, parsedInputs(),
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

  // Writes the depfile, whose target is `targetFile` in OUTDIR unless --depfile-target names
  // one, then publishes `files` (from a build or the cache). The depfile comes first: a build
  // that cannot write it fails before anything is published.
  llvm::Error finish(const std::vector<std::string>& files, const std::string& targetFile,
                     const std::vector<std::string>& dependencies) {
    // The headers the build read are known now: none may be an output (builder/OutputPaths.h).
    if (llvm::Error error = OutputPaths(Options, files).checkAgainst(dependencies))
      return error;
    if (!Options.depfile.empty()) {
      std::string target = Options.depfileTarget.empty() ? Options.outputDir + "/" + targetFile
                                                         : Options.depfileTarget;
      if (llvm::Error error = writeDepfile(Options.depfile, target, dependencies))
        return error;
    }
    // The last moment a signal stops the build; once publishing starts it completes.
    if (interrupted())
      return interruptedError();
    return Work->publish(files, Name + ".json");
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

  // Everything known before building that decides the outputs (builder/BuildKey.h).
  llvm::Expected<std::string> cacheKey() {
    KeyInputs inputs{Options,
                     Tools.toolkit,
                     Tools.compiler.path,
                     Tools.templates.files(),
                     Tools.launcherTypes,
                     Identities,
                     Options.python ? pythonInputs() : std::vector<std::string>(),
                     Cache->toolMemoDir()};
    return buildCacheKey(inputs, Paths, Relocation,
                         [this](const std::string& input) { return inputDigest(input); });
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
  std::string sourceDir() const { return Options.emitOnly ? Work->outputsDir() : Work->workDir(); }

  // What Clang parses: the sources, or the headers declaring the kernels of images.
  std::vector<std::string> parsedInputs() const {
    return Images ? Images->declarations : Options.sources.inputs;
  }

  // Task: parse and check every input. Images without declarations have nothing to parse: their
  // launchers come from the image alone.
  llvm::Error parse() {
    llvm::Expected<Analysis> analyzed = Analysis();
    if (Images && Images->declarations.empty())
      analyzed->module.inputs = Images->images;
    else
      analyzed = analyze(parsedInputs(), Options.sources.frontend, Tools.toolkit, &Slots);
    if (!analyzed)
      return analyzed.takeError();
    Module& module = analyzed->module;
    // A parse that found no kernel does not make a module without any: nvcc's image decides what
    // gets launchers (checkImage).
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
  // build, and the kernels found there join the module. `undeclared` keeps what none explains.
  llvm::Error parseOtherArchs(std::set<std::string>& undeclared, const EntriesByInput& entries) {
    if (Images) // declarations are not code for one arch
      return llvm::Error::success();
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
      resolveKernelSymbols(other, entries); // those it cannot resolve are no entry's
      for (Kernel& kernel : other.kernels)
        if (undeclared.erase(kernel.symbol))
          module.kernels.push_back(std::move(kernel));
      for (const std::string& entry : other.otherEntries)
        if (undeclared.erase(entry))
          module.otherEntries.push_back(entry);
      Parsed->filesRead.insert(Parsed->filesRead.end(), analyzed->filesRead.begin(),
                               analyzed->filesRead.end());
    }
    return llvm::Error::success();
  }

  // Each input's entry symbols, by its name in the module: from the image itself for one input
  // compiled whole-program, else from each input's own relocatable object.
  llvm::Expected<EntriesByInput> entriesByInput() const {
    if (Images)
      return imageEntriesByInput(*Images,
                                 [this](const std::string& input) { return Paths.input(input); });
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

  // Task: every kernel's symbol from the image (builder/SymbolResolution.h), then every target's
  // symbol table against the parsed kernels, every entry no kernel claims made a kernel of its
  // own (builder/ImageKernels.h), and every launcher's parameter layout proven against the
  // image (builder/LayoutCheck.h); the image goes to the outputs.
  llvm::Error checkImage() {
    auto entries = entriesByInput();
    if (!entries)
      return entries.takeError();
    Module& module = Parsed->module;
    std::vector<UnresolvedKernel> unresolved = resolveKernelSymbols(module, *entries);
    std::set<std::string> fromInputs;
    for (const auto& [input, symbols] : *entries)
      fromInputs.insert(symbols.begin(), symbols.end());
    auto targetEntries = readTargetEntries(Device, fromInputs);
    if (!targetEntries)
      return targetEntries.takeError();
    if (std::set<std::string> undeclared = undeclaredEntries(module, *targetEntries);
        !undeclared.empty())
      if (llvm::Error error = parseOtherArchs(undeclared, *entries))
        return error;
    SourceDiagnostics diagnostics(llvm::errs(), Options.sources.frontend.color);
    diagnostics.setFileNames([this](const std::string& file) { return Paths.sourcePath(file); });
    if (Images)
      if (llvm::Error error = checkDeclaredKernels(module, *targetEntries, diagnostics))
        return error;
    ParseFacts parse{*entries, unresolved, Images.has_value(),
                     Images && !Images->declarations.empty()};
    if (llvm::Error error = assignKernelTargets(module, Device, *targetEntries, parse, diagnostics))
      return error;
    if (module.kernels.empty())
      return inputError("no kernels to launch in " + llvm::join(Options.sources.inputs, ", ") +
                        (module.otherEntries.empty()
                             ? ": nvcc's image holds none"
                             : ": nvcc's image holds library kernels only"));
    if (!assignLauncherNames(module.kernels, diagnostics, Name))
      return reportedInputError("launcher names collide");
    deriveFacts(module);
    // --entry names kernels by their final symbols too; the others stay in the image.
    if (llvm::Error error = selectEntries(module, Options.entries))
      return error;
    if (llvm::Error error =
            checkParameterLayouts(module, Device, *targetEntries, diagnostics, Images.has_value()))
      return error;
    deriveFacts(module); // untyped parameters' C types follow the image's sizes
    return copyFile(Device.image, Work->outputsDir() + "/" + imageFile());
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
  // The header is an output, and the launcher's compile reads it beside the sources.
  llvm::Error renderSources(const Module& module) {
    nlohmann::json view = launcherView(module, launcherFacts());
    if (llvm::Error error = renderFile("header.h", view, Work->outputsDir() + "/" + Name + ".h"))
      return error;
    if (sourceDir() != Work->outputsDir())
      if (llvm::Error error =
              copyFile(Work->outputsDir() + "/" + Name + ".h", sourceDir() + "/" + Name + ".h"))
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
    for (const auto& [from, to] : copied) {
      if (!llvm::sys::fs::exists(from))
        return toolchainError("'" + from + "' is missing (reinstall tlc)");
      if (llvm::Error error = copyFile(from, to))
        return error;
    }
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
    if (Options.python) {
      PythonPackageFiles files = pythonPackageFiles(Name);
      if (llvm::Error error = copyFile(Work->workDir() + "/" + pythonExtensionWorkName(Name),
                                       out + "/" + files.extension, 0777))
        return error;
      std::pair<const char*, std::string> roles[] = {
          {"python_init", files.init},
          {"python_stubs", files.stubs},
          {"python_marker", files.marker},
          {"python_helpers", files.helpers},
          {"python_helper_stubs", files.helperStubs},
          {"python_extension", files.extension},
      };
      for (const auto& [role, file] : roles) {
        auto sha = sha256OfFile(out + "/" + file);
        if (!sha)
          return sha.takeError();
        facts.python.push_back({role, {file, *sha}});
      }
    }
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
    for (const auto& [role, digest] : facts.python)
      Outputs.push_back({digest.path, digest.sha256});
    return llvm::Error::success();
  }

  BuildOptions Options; // its code becomes relocatable when the parse finds a device-side launch
  const std::string& Name;
  BuildTools Tools;
  std::unique_ptr<Staging> Work;
  ToolPaths Names;                        // what the tools are given
  std::vector<SourceIdentity> Identities; // per input: the names nvcc is told, in the outputs
  DisplayPaths Paths;
  JobSlots Slots;
  TieredCache* Cache;               // local, and remote when one is configured; none: no cache
  PathRelocation Relocation;        // how the cache spells paths (--base-dir)
  DeviceBuildOptions DeviceOptions; // relocatable when the parse finds a device-side launch
  DevicePlan Device;
  const HostPlan Host;
  const std::optional<PythonPlan> Python; // with --python
  std::atomic<bool> ParseFailed{false};   // stops the tools still running (StepRunner::cancel)
  StepRunner Runner;
  std::mutex DigestMutex;
  std::map<std::string, std::string> InputDigests; // by input path
  // What the tasks found, each written by one task and read by the tasks after it.
  std::optional<Analysis> Parsed;
  std::string RenderedLauncher;  // NAME_launcher.cpp as last written
  bool LauncherCompiled = false; // ...and compiled since
  std::string NvccRelease, HostRelease;
  std::vector<CachedFile> Outputs;
  std::optional<ImageSet> Images; // a build of device images: what they hold
  std::vector<StagedFile> Staged; // ...and the files of theirs the tools read
};

// The options as the build uses them: the compile database's flags and targets applied, the
// targets resolved, the parse arch and the module's name decided.
llvm::Expected<BuildOptions> resolveOptions(const BuildOptions& requested,
                                            const CudaToolkit& toolkit, const ImageSet* images) {
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
    if (flags.relocatable) // -dc or -rdc=true: the module's code is relocatable
      addOnce(options.nvccFlags, "-rdc=true");
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
  if (images && !asked) // a build of images makes what they hold
    options.targets = targetsHeld(*images);
  // Parse for the newest arch built: its kernels are the ones the launcher must reach. The parse
  // sees what nvcc sees: its flags and whether the code is relocatable.
  FrontendOptions& frontend = options.sources.frontend;
  if (frontend.arch.empty())
    frontend.arch = parseArchFor(options.targets);
  frontend.nvccFlags = options.nvccFlags;
  frontend.relocatable = !images && relocatableCode(options.sources.inputs.size(),
                                                    options.nvccFlags, !options.launcher.empty());
  frontend.declarationsOnly = images != nullptr;
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
    for (const std::string& file : {options.emitOnly ? std::string() : options.pythonLibrary,
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
    return toolchainError("cannot read '" + tools.launcherTypesPath +
                          "' (reinstall tlc): " + llvm::toString(launcherTypes.takeError()));
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

// A build of images: the toolkit's ptxas and fatbinary, and a link to each image, which they
// read as it is (not copied: a copy of a source starts with a line marker).
void prepareImageTools(const BuildOptions& options, const BuildTools& tools, ToolView& view) {
  ImageBuildOptions& image = view.imageOptions;
  image.name = options.name;
  image.targets = options.targets;
  std::string cuda = view.names.link(tools.toolkit.root, "cuda");
  image.ptxas = cuda + "/bin/ptxas";
  image.fatbinary = cuda + "/bin/fatbinary";
  std::vector<std::string> images = imageInputsOf(options.sources.inputs);
  for (size_t i = 0; i < images.size(); ++i) {
    std::string suffix = llvm::sys::path::extension(images[i]).lower();
    image.linked.push_back(view.names.link(images[i], "image" + std::to_string(i) + suffix));
    image.displayed.push_back(llvm::sys::path::filename(images[i]).str());
  }
}

// The options the tools get: the inputs copied into the work folder and every other path a
// link there (ToolPaths.h); every flag that reaches nvcc checked. Fails before anything is made.
llvm::Expected<ToolView> prepareTools(const BuildOptions& options, const BuildTools& tools,
                                      const PathRelocation& relocation) {
  const FrontendOptions& frontend = options.sources.frontend;
  ToolView view;
  ToolPaths& names = view.names;
  DeviceBuildOptions& device = view.device;
  device.name = options.name;
  device.nvcc = names.link(tools.toolkit.root, "cuda") + "/bin/nvcc";
  device.targets = options.targets;
  device.standard = frontend.standard;
  device.launcher = options.launcher;
  device.relocatable = frontend.relocatable;
  bool debugInfo = wantsDeviceDebugInfo(options.nvccFlags);
  // A build of images: ptxas and fatbinary read them through links, nvcc reads nothing.
  bool images = hasImageInputs(options.sources.inputs);
  if (images)
    prepareImageTools(options, tools, view);
  for (size_t i = 0; i < options.sources.inputs.size() && !images; ++i) {
    const std::string& input = options.sources.inputs[i];
    SourceIdentity identity =
        sourceIdentity(input, relocation.path(absolutePath(input)), debugInfo);
    device.inputs.push_back(names.input(i, input, identity));
    device.hashedPaths.push_back(identity.hashedPath);
    view.identities.push_back(identity);
    device.inputDirs.push_back(names.inputFolder(i));
    device.inputNames.push_back(llvm::sys::path::filename(options.sources.inputs[i]).str());
  }
  if (!frontend.tlcIncludeDir.empty())
    device.tlcIncludeDir = names.link(frontend.tlcIncludeDir, "tlc-include");
  // -I/-D/-U/..., then nvcc's other options, then each input's compile-database flags: macros
  // keep that order.
  ToolPaths::Macros macros;
  auto preprocessor = names.nvccFlags(frontend.preprocessorFlags, "-D", macros);
  if (!preprocessor)
    return preprocessor.takeError();
  device.preprocessorFlags = std::move(*preprocessor);
  auto nvccFlags = names.nvccFlags(options.nvccFlags, "-Xnvcc", macros);
  if (!nvccFlags)
    return nvccFlags.takeError();
  device.nvccFlags = std::move(*nvccFlags);
  for (size_t i = 0; i < options.sources.inputs.size() && !images; ++i) {
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
  if (options.python && !options.emitOnly) {
    PythonBuildOptions& python = view.python.emplace();
    python.name = options.name;
    python.compiler = tools.compiler.path;
    python.pythonInclude = names.link(pythonIncludeDir(), "python-include");
    python.tlcInclude = host.tlcInclude;
    python.cudaInclude = host.cudaInclude;
    python.bindingLibrary = names.link(options.pythonLibrary, "libtlc_python.a");
  }
  return view;
}

} // namespace

// The build, from the options to publishing; runBuild() holds the InterruptScope around it.
static llvm::Error buildAndPublish(const BuildOptions& requested) {
  if (requested.outputDir.empty())
    return usageError("-o '' names no folder");
  // Device images as inputs (builder/ImageInputs.h): read, and refused when unreadable (a
  // usage error: the wrong file was given), first.
  if (llvm::Error error = checkImageInputKinds(requested.sources.inputs))
    return error;
  std::optional<ImageSet> images;
  if (hasImageInputs(requested.sources.inputs)) {
    auto read = readImageInputs(requested.sources.inputs);
    if (!read)
      return read.takeError();
    images = std::move(*read);
  }
  if (llvm::Error error = checkInputFiles(requested.sources.inputs))
    return error;
  if (llvm::Error error = checkOutputIsFolder(requested))
    return error;
  if (llvm::Error error = checkDistinctInputs(requested.sources.inputs))
    return error;
  if (llvm::Error error = checkNameGiven(requested))
    return error;
  if (llvm::Error error = checkTemporaryFolder()) // before nvcc's probes need it
    return error;
  auto toolkit = findCudaToolkit(requested.sources.cudaPath);
  if (!toolkit)
    return toolkit.takeError();
  if (llvm::Error error = checkToolkitPath(*toolkit))
    return error;
  auto options = resolveOptions(requested, *toolkit, images ? &*images : nullptr);
  if (!options)
    return options.takeError();
  std::vector<TargetSource> imageSources;
  if (images) {
    auto chosen = chooseTargetSources(*images, options->targets);
    if (!chosen)
      return chosen.takeError();
    imageSources = std::move(*chosen);
  }
  auto tools = findTools(*options, std::move(*toolkit));
  if (!tools)
    return tools.takeError();
  // A base folder that is none is an error before anything is made. It decides how manifests
  // name files under it, with the cache or without, and how nvcc is told the inputs' names.
  auto relocation = PathRelocation::fromSettings(options->baseDir ? &*options->baseDir : nullptr);
  if (!relocation)
    return relocation.takeError();
  relocation->setToolkit(tools->toolkit.root);
  auto view = prepareTools(*options, *tools, *relocation);
  if (!view)
    return view.takeError();
  if (images) {
    view->images = std::move(images);
    view->imageSources = std::move(imageSources);
  }
  auto cacheEnabled = cacheEnabledByEnvironment();
  if (!cacheEnabled)
    return cacheEnabled.takeError();
  bool useCache = !options->noCache && *cacheEnabled && !options->emitOnly && !options->keepTemps;
  std::unique_ptr<RemoteCache> remote; // a bad URL is an error before anything is made
  if (useCache) {
    auto configured = remoteCacheFor(*options);
    if (!configured)
      return configured.takeError();
    remote = std::move(*configured);
  }

  // No output may be a file the build reads (builder/OutputPaths.h); checked again with the
  // headers once the parse has read them.
  if (llvm::Error error =
          OutputPaths(*options, publishedFiles(*options))
              .checkBeforeWriting(filesReadBeforeBuilding(*options, tools->templates.files())))
    return error;

  // From here on tlc makes files, which an interrupt removes.
  auto staging = Staging::create(options->outputDir);
  if (!staging)
    return staging.takeError();
  view->setWorkDir((*staging)->workDir());
  std::optional<BuildCache> cache;
  if (useCache)
    cache = openBuildCache(defaultCacheDir());
  if (cache) // the parse's precompiled preamble lives with the cache (frontend/Preamble.h)
    options->sources.frontend.preambleDir = cache->preambleDir();
  std::optional<TieredCache> tiers;
  if (cache)
    tiers.emplace(*cache, remote.get());
  return Builder(*options, std::move(*tools), std::move(*staging), tiers ? &*tiers : nullptr,
                 std::move(*relocation), std::move(*view))
      .run();
}

// A signal at any point of a build (its start-up queries of nvcc and the host compiler
// included) stops the tools, unwinds and ends in exit 128 + the signal's number.
llvm::Error runBuild(const BuildOptions& requested) {
  InterruptScope interrupts;
  llvm::Error result = buildAndPublish(requested);
  if (result && interrupted()) { // whatever failed, the signal came first
    llvm::consumeError(std::move(result));
    return interruptedError();
  }
  return result;
}

} // namespace tlc
