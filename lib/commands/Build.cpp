// `tlc build`: resolve the options (commands/BuildSetup.h), look the build up in the cache
// (commands/BuildCaching.h), else plan it (BuildPlan.h) and run the plan (Executor.h), each task
// handed to its stage's service; publish the outputs at once.
#include "commands/Build.h"

#include "builder/BuildKey.h"
#include "builder/BuildPlan.h"
#include "builder/CheckedModule.h"
#include "builder/DeviceBuild.h"
#include "builder/Executor.h"
#include "builder/ImageInputs.h"
#include "builder/LauncherSources.h"
#include "builder/NvccMessages.h"
#include "builder/OutputNames.h"
#include "builder/OutputPaths.h"
#include "builder/PythonPackage.h"
#include "builder/Steps.h"
#include "cache/Cache.h"
#include "cache/Relocation.h"
#include "cache/RemoteCache.h"
#include "cache/TieredCache.h"
#include "checks/Analysis.h"
#include "commands/BuildCaching.h"
#include "commands/BuildSetup.h"
#include "commands/Commands.h"
#include "publish/Depfile.h"
#include "publish/Manifest.h"
#include "publish/Publish.h"
#include "render/LauncherView.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/Interrupts.h"
#include "support/Jobs.h"
#include "support/Jobserver.h"
#include "support/ProbeMemo.h"
#include "support/StartUp.h"
#include "support/Terminal.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

namespace tlc {

namespace {

// -v: how many jobs run at once, and whether make's jobserver bounds them too.
void noteJobLimit(unsigned jobs) {
  std::string note = "at most " + std::to_string(jobs) + " jobs at once";
  if (processJobserver())
    note += ", each beyond the first holding a token of make's jobserver";
  else if (std::string problem = processJobserverProblem(); !problem.empty())
    note += "; not joining make's jobserver: " + problem;
  printToolMessage(MessageKind::Note, note);
}

void dropFailures(std::vector<TaskFailure>& failures) {
  for (TaskFailure& failure : failures)
    llvm::consumeError(std::move(failure.error));
}

// The conductor: one module's build as the data flows (ARCHITECTURE.md). The key and the cache;
// else the plan, run: nvcc beside the parse, the image check, the render, the host build, the
// manifest, each task handed to its stage's service; then the outputs stored and published.
class Builder : public TaskHandler {
public:
  Builder(const BuildOptions& options, BuildTools tools, std::unique_ptr<Staging> staging,
          TieredCache* cache, PathRelocation relocation, ToolView view,
          const CommandRunner& commands)
      : Options(options), Tools(std::move(tools)), Work(std::move(staging)),
        Files(Options.name, Options.targets), Names(std::move(view.names)),
        Identities(std::move(view.identities)),
        Paths(displayPathsFor(Options, Tools, Work->workDir())),
        Slots(effectiveJobs(options.sources.frontend.jobs), processJobserver()), Cache(cache),
        Relocation(std::move(relocation)), Plans(planStages(view, Tools.toolkit)),
        Sources(Tools.templates, Files, Work->outputsDir(), sourceDir(), !Options.externalImage),
        Runner(stepRunnerFor(Options, Names, Paths, &ParseFailed)) {
    Runner.commands = &commands;
    if (options.sources.verbose)
      noteJobLimit(effectiveJobs(options.sources.frontend.jobs));
  }

  // The key; a hit restores the outputs, else the plan runs (execute); then the outputs are
  // stored and published.
  llvm::Error run() {
    if (Options.keepTemps)
      if (llvm::Error error = Work->keep())
        return error;
    if (llvm::Error error = writeCompileCommands(Options, Plans, Tools.toolkit))
      return error;
    // Said after a failed build too: that is when the temporaries are wanted most.
    llvm::scope_exit sayKept([&] {
      if (Options.keepTemps)
        printToolMessage(MessageKind::Note, "kept temporary files in " + Work->workDir());
    });
    std::string key;
    if (Cache) {
      auto computed = cacheKeyOf(Options, Tools, Identities, Names.realPaths(), Paths, Relocation,
                                 *Cache, Digests);
      if (!computed)
        return computed.takeError();
      key = *computed;
      if (auto hit = restoreFromCache(*Cache, key, Options, Relocation, Work->outputsDir()))
        return finish(fileNames(hit->entry.files), Files.manifest, hit->entry.dependencies);
    }

    if (llvm::Error error = Names.materialize())
      return error;
    if (Plans.images)
      if (llvm::Error error = stageImageFiles(*Plans.images, {Plans.device, Plans.staged}))
        return error;
    if (llvm::Error error = execute())
      return error;

    std::vector<std::string> dependencies = buildDependencies(Options, Tools, Parsed->filesRead);
    if (Options.emitOnly) // what tlc would compile, and the image NAME_image.S embeds
      return finish(publishedFiles(Options), Files.header, dependencies);
    if (Cache) { // a failure only warns
      storeCompiles();
      storeInCache(*Cache, key, Work->outputsDir(), Outputs, dependencies, Relocation, Diagnostics);
    }
    return finish(fileNames(Outputs), Files.manifest, dependencies);
  }

  // Plans the build and runs the plan. A device-side kernel launch (dynamic parallelism) is
  // found by the parse, which runs beside nvcc: in code planned whole-program, nvcc refuses it,
  // and the build runs again as relocatable device code, parse included (nvcc then defines
  // __CUDACC_RDC__, which the parse must see too).
  llvm::Error execute() {
    ToolOutputs.clear();
    BuildPlan plan =
        planBuild({parsedInputs(Options, Plans).size(), Options.emitOnly, Options.python},
                  Plans.device, Plans.host, Plans.pythonPlan());
    Progress progress(plan.progressTotal(), Options.quiet);
    auto announce = [&](const Task& task) { progress.start(task.description); };
    std::vector<TaskFailure> failures = executePlan(plan, *this, Slots, announce);
    // A signal stops the plan without a failure when it comes before the tasks it skips start:
    // the build did not happen (and nothing it would have made, the parse included, exists).
    if (interrupted()) {
      dropFailures(failures);
      return interruptedError();
    }
    if (!failures.empty() && !Plans.device.relocatable && Parsed &&
        Parsed->module.deviceSideLaunch) {
      dropFailures(failures);
      Options.sources.frontend.relocatable = true;
      Plans.makeRelocatable(Tools.toolkit);
      if (llvm::Error error = writeCompileCommands(Options, Plans, Tools.toolkit))
        return error;
      Parsed.reset();
      return execute();
    }
    return report(plan, std::move(failures));
  }

  // The plan's tasks, each its stage's.
  llvm::Error run(const Task& task) override {
    switch (task.kind) {
    case TaskKind::Parse:
      if (llvm::Error error = parse()) {
        ParseFailed = true; // parse() says why
        return error;
      }
      return llvm::Error::success();
    case TaskKind::Tool: { // what it prints is shown once the plan has run (report)
      StepOutput output;
      std::optional<size_t> input = cachedCompileOf(*task.step);
      llvm::Error error = input                           ? compileInput(*input, *task.step, output)
                          : isLauncherCompile(*task.step) ? compileLauncher(*task.step, &output)
                                                          : Runner.run(*task.step, &output);
      std::lock_guard<std::mutex> lock(OutputsMutex);
      ToolOutputs[&task] = std::move(output);
      return error;
    }
    case TaskKind::ExtractPtx:
      return extractPtx(Plans.device);
    case TaskKind::CheckImage: // the module as the image decides it; the image to the outputs
      if (llvm::Error error = checkModuleAgainstImage(
              *Parsed, {Options, Plans.device, Plans.imageSet(), Tools.toolkit, &Slots, Paths}))
        return error;
      return copyFile(Plans.device.image, Work->outputsDir() + "/" + Files.image);
    case TaskKind::Render: {
      auto changed = renderSources(Parsed->module);
      if (!changed)
        return changed.takeError();
      // The launcher compiled from the parse's guess is compiled again only if the image's
      // symbols, targets or --entry changed it.
      if (!*changed || Options.emitOnly)
        return llvm::Error::success();
      return compileLauncher(Plans.host.compileLauncher, nullptr);
    }
    case TaskKind::ToolVersions:
      Versions = toolReleases(Tools);
      return llvm::Error::success();
    case TaskKind::Manifest:
      return writeManifest();
    case TaskKind::RenderPython:
      return writePythonPackage(Parsed->module, launcherView(Parsed->module, launcherFacts()),
                                Tools.templates, Files,
                                {Options.pythonHelpersDir, Work->outputsDir(), sourceDir()});
    }
    return internalError("unknown build task '" + task.description + "'");
  }

private:
  // What the plan's tools printed and how it failed, in the plan's order, so in the inputs': the
  // parse's errors alone when it failed (Clang printed them; nvcc's would only repeat them), else
  // every failure and what every tool printed, nvcc's diagnostics in tlc's format
  // (NvccMessages.h). A compile's failure is shown where its input is, its errors with it; what
  // the tools printed is kept for the cache entry (Diagnostics), which replays it.
  llvm::Error report(const BuildPlan& plan, std::vector<TaskFailure> failures) {
    for (TaskFailure& failure : failures)
      if (plan.tasks[failure.task].kind == TaskKind::Parse) {
        llvm::Error parse = std::move(failure.error);
        for (TaskFailure& other : failures)
          if (other.error) // the parse's own was moved out
            llvm::consumeError(std::move(other.error));
        return parse;
      }
    std::map<size_t, llvm::Error> failed;
    for (TaskFailure& failure : failures)
      failed.emplace(failure.task, std::move(failure.error));
    SourceLines lines;
    std::set<std::pair<std::string, unsigned>> kernels = launchedKernelLines();
    auto launched = [&](const std::string& file, unsigned line) {
      return kernels.count({realPathOf(file), line}) > 0;
    };
    std::set<std::string> shown; // a step's messages once: several targets may repeat them
    Diagnostics.clear();
    llvm::Error result = llvm::Error::success();
    for (size_t i = 0; i < plan.tasks.size(); ++i) {
      const Task& task = plan.tasks[i];
      auto output = ToolOutputs.find(&task);
      std::string text;
      std::string asNvccPrinted; // under -v, nvcc's own words too, where tlc's format differs
      if (output != ToolOutputs.end()) {
        text = output->second.text;
        if (task.step->compilesSources) {
          std::string kept = dropLaunchedKernelWarnings(text, launched);
          text = rewriteNvccDiagnostics(kept, lines);
          if (Options.sources.verbose && kept != text)
            asNvccPrinted = std::move(kept);
        }
      }
      auto showAsNvccPrinted = [&] {
        if (!asNvccPrinted.empty())
          printToolMessage(MessageKind::Note, "as nvcc printed it:\n" +
                                                  llvm::StringRef(asNvccPrinted).rtrim("\n").str());
      };
      auto failure = failed.find(i);
      if (failure == failed.end()) {
        if (!text.empty() && shown.insert(text).second) {
          {
            StderrSection section;
            llvm::errs() << text;
          }
          showAsNvccPrinted();
          Diagnostics += text;
        }
        continue;
      }
      if (output == ToolOutputs.end() || output->second.failure.empty()) {
        result = llvm::joinErrors(std::move(result), std::move(failure->second));
        continue;
      }
      // Said here, in its input's place, with the tool's messages as shown.
      ExitCode code = summarize(std::move(failure->second)).code;
      std::string message =
          output->second.failure + ":\n" + llvm::StringRef(text).rtrim("\n").str();
      printToolMessage(MessageKind::Error, message);
      showAsNvccPrinted();
      result = llvm::joinErrors(
          std::move(result), llvm::make_error<ToolError>(code, message, /*alreadyReported=*/true));
    }
    return result;
  }

  // Where the parse found a kernel the launcher library launches: (real path, line).
  std::set<std::pair<std::string, unsigned>> launchedKernelLines() const {
    std::set<std::pair<std::string, unsigned>> lines;
    if (!Parsed)
      return lines;
    for (const Kernel& kernel : Parsed->module.kernels)
      if (kernel.location.valid())
        lines.insert({realPathOf(Paths.sourcePath(kernel.location.file)), kernel.location.line});
    return lines;
  }

  static std::string realPathOf(const std::string& path) {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real))
      return absolutePath(path);
    return real.str().str();
  }

  // The depfile written, the outputs published (publish/Publish.h, finishBuild).
  llvm::Error finish(const std::vector<std::string>& files, const std::string& targetFile,
                     const std::vector<std::string>& dependencies) {
    return finishBuild(*Work, Options, files, targetFile, Files.manifest, dependencies);
  }

  // Whether the build's steps are cached one by one (commands/BuildCaching.h), each input's nvcc
  // compile and the launcher's: relocatable code of several inputs, with a cache and no compiler
  // launcher (ccache and sccache cache those compiles themselves). An edit of one input then
  // leaves its compile, the device link and the library's link to do. (A module of one input
  // compiles it again on any edit; its launcher's compile is the least of that build.)
  bool cachesSteps() const { return Cache && Plans.device.relocatable && Options.launcher.empty(); }

  // The input whose own nvcc compile `step` is, where steps are cached one by one.
  std::optional<size_t> cachedCompileOf(const Step& step) const {
    if (!cachesSteps())
      return std::nullopt;
    const std::vector<Step>& compiles = Plans.device.compiles;
    for (size_t i = 0; i < compiles.size() && i < Options.sources.inputs.size(); ++i)
      if (compiles[i].output == step.output && compiles[i].argv == step.argv)
        return i;
    return std::nullopt;
  }

  // Input `i`'s compile, from its own cache entry where one matches (`output` then holds what
  // nvcc printed when the entry was made), else run (and stored once the build succeeded, with
  // what the input's parse read and what nvcc printed: storeCompiles).
  llvm::Error compileInput(size_t i, const Step& step, StepOutput& output) {
    std::string key;
    {
      std::lock_guard<std::mutex> lock(CompileCacheMutex);
      auto digest = Digests.of(Options.sources.inputs[i]);
      if (!digest)
        return digest.takeError();
      key = compileStepCacheKey({Tools.toolkit, Tools.compiler.path, Runner.commandLine(step),
                                 *digest, Identities[i], Cache->toolMemoDir()});
      std::string input = Relocation.path(absolutePath(Options.sources.inputs[i]));
      if (restoreStep(key, step, {input}, &output))
        return llvm::Error::success();
    }
    if (llvm::Error error = Runner.run(step, &output))
      return error;
    std::lock_guard<std::mutex> lock(CompileCacheMutex);
    CompilesToStore.push_back({i, key, step.output, step.workingDir, output.text});
    return llvm::Error::success();
  }

  // `step`'s output restored from its own cache entry under `key` (one that lists `inputs`), and
  // what its tool printed when it ran handed to `output` (shown now, without one); false on a
  // miss. The caller holds CompileCacheMutex.
  bool restoreStep(const std::string& key, const Step& step, const std::vector<std::string>& inputs,
                   StepOutput* output) {
    auto messages = restoreCompile(*Cache, key, step.output, inputs, Relocation, step.workingDir);
    if (!messages)
      return false;
    if (Options.sources.verbose)
      printToolMessage(MessageKind::Note, "cached: " + step.description);
    if (output) {
      output->text = std::move(*messages);
    } else if (!messages->empty()) {
      StderrSection section;
      llvm::errs() << *messages;
    }
    return true;
  }

  bool isLauncherCompile(const Step& step) const {
    const Step& launcher = Plans.host.compileLauncher;
    return step.output == launcher.output && step.argv == launcher.argv;
  }

  // The launcher's compile, where steps are cached one by one: from its own cache entry where
  // one matches, else run and stored with the headers it read (its depfile). Its key holds the
  // two files the build rendered (launcherStepCacheKey), which only the kernels' signatures,
  // names and targets decide: an edited kernel body, or one edited file of several, renders the
  // same launcher again.
  llvm::Error compileLauncher(const Step& step, StepOutput* output) {
    if (!cachesSteps())
      return Runner.run(step, output);
    const std::string& dir = step.workingDir;
    auto source = sha256OfFile(dir + "/" + Files.launcherSource);
    auto header = sha256OfFile(dir + "/" + Files.header);
    if (!source || !header) { // the compile will say what is wrong with them
      llvm::consumeError(source.takeError());
      llvm::consumeError(header.takeError());
      return Runner.run(step, output);
    }
    std::string key = launcherStepCacheKey(
        {Tools.compiler.path, Runner.commandLine(step), *source, *header, Cache->toolMemoDir()});
    {
      std::lock_guard<std::mutex> lock(CompileCacheMutex);
      if (restoreStep(key, step, {}, output))
        return llvm::Error::success();
    }
    if (llvm::Error error = Runner.run(step, output))
      return error;
    auto dependencies =
        compileHeaders(dir, Plans.host.launcherDependencies, {Files.launcherSource, Files.header});
    if (!dependencies) { // not stored: what it read is not known
      llvm::consumeError(dependencies.takeError());
      return llvm::Error::success();
    }
    std::lock_guard<std::mutex> lock(CompileCacheMutex);
    storeCompile(*Cache, key, step.output, dir, *dependencies, Relocation,
                 output ? output->text : "");
    return llvm::Error::success();
  }

  // The compiles that ran, each stored under its own key with the files its input's parse read.
  void storeCompiles() {
    for (const CompileToStore& compile : CompilesToStore) {
      if (!Parsed || compile.input >= Parsed->filesReadByInput.size())
        continue;
      storeCompile(*Cache, compile.key, compile.output, compile.workDir,
                   inputDependencies(Parsed->filesReadByInput[compile.input],
                                     Options.sources.inputs[compile.input]),
                   Relocation, compile.messages);
    }
  }

  // The sources are temporaries, unless they are what was asked for (--emit-only).
  std::string sourceDir() const { return Options.emitOnly ? Work->outputsDir() : Work->workDir(); }

  // Task: parse and check every input (builder/CheckedModule.h), and render the launcher from
  // Clang's names so that it compiles while nvcc runs. The parse's errors are what the build
  // reports (report): nvcc, still compiling the same sources, could only repeat them, or
  // wait forever on what the parse refused to open (a FIFO #included), so they stop the tools.
  llvm::Error parse() {
    // Each input's parse is kept in the cache too where there are several (CachedParses): an
    // edit of one parses that one. (A module of one input parses it on any change.)
    std::vector<std::string> inputs = parsedInputs(Options, Plans);
    std::optional<CachedParses> kept;
    if (Cache && inputs.size() > 1)
      kept.emplace(*Cache, Relocation, Work->workDir(), CompileCacheMutex, Options.sources.verbose);
    auto analyzed = parseModule(inputs, Plans.imageSet(), Options.sources.frontend, Tools.toolkit,
                                &Slots, Paths, kept ? &*kept : nullptr);
    if (!analyzed)
      return analyzed.takeError();
    Parsed = std::move(*analyzed);
    // The database again, now with the headers the inputs include (written before the build
    // with those it listed already).
    if (llvm::Error error =
            writeCompileCommands(Options, Plans, Tools.toolkit, &Parsed->userHeaders))
      return error;
    if (!HostFunctionsNoted.exchange(true)) // once, though a relocatable retry parses again
      noteHostFunctions(Parsed->hostFunctions, Options.name);
    if (Options.emitOnly)
      return llvm::Error::success();
    return renderSources(guessedModule(Parsed->module, Options.entries)).takeError();
  }

  LauncherFacts launcherFacts() const {
    return tlc::launcherFacts(Options, Files, Paths, Plans.device.relocatable, Tools.launcherTypes);
  }

  // NAME.h, NAME_launcher.cpp and NAME_image.S from `module`; whether the launcher changed.
  llvm::Expected<bool> renderSources(const Module& module) {
    return Sources.write(launcherView(module, launcherFacts()));
  }

  // Task: NAME.json, recording the outputs with their SHA-256, the manifest last.
  llvm::Error writeManifest() {
    auto inputs = inputDigests(Options.sources.inputs, Paths, Digests);
    if (!inputs)
      return inputs.takeError();
    ManifestSources sources{Versions, &Options,
                            planCommands(Runner, Plans.device, Plans.host, Plans.pythonPlan()),
                            std::move(*inputs)};
    auto written =
        tlc::writeManifest(Parsed->module, sources, Files, Work->workDir(), Work->outputsDir());
    if (!written)
      return written.takeError();
    Outputs = std::move(*written);
    return llvm::Error::success();
  }

  BuildOptions Options; // its code becomes relocatable when the parse finds a device-side launch
  BuildTools Tools;
  std::unique_ptr<Staging> Work;
  const OutputNames Files;                // what the build makes, by name
  ToolPaths Names;                        // what the tools are given
  std::vector<SourceIdentity> Identities; // per input: the names nvcc is told, in the outputs
  DisplayPaths Paths;
  JobSlots Slots;
  TieredCache* Cache;        // local, and remote when one is configured; none: no cache
  PathRelocation Relocation; // how the cache spells paths (--base-dir)
  StagePlans Plans;          // the device build's turns relocatable on a device-side launch
  LauncherSources Sources;
  std::atomic<bool> ParseFailed{false};        // stops the tools still running (StepRunner::cancel)
  std::atomic<bool> HostFunctionsNoted{false}; // noteHostFunctions: once per build
  StepRunner Runner;
  FileDigests Digests; // the inputs': for the key and the manifest
  // What the tasks found, each written by one task and read by the tasks after it.
  std::optional<Analysis> Parsed;
  std::mutex OutputsMutex;
  std::map<const Task*, StepOutput> ToolOutputs; // what each tool task printed
  std::string Diagnostics;                       // what the tools printed, as shown (report)
  ToolReleases Versions;
  std::vector<CachedFile> Outputs;
  // Each input's own compile (compileInput): run on a miss, stored after the build.
  struct CompileToStore {
    size_t input;
    std::string key, output, workDir, messages;
  };
  std::mutex CompileCacheMutex;
  std::vector<CompileToStore> CompilesToStore;
};

} // namespace

llvm::Error buildAndPublish(const BuildOptions& requested, const BuildServices& services) {
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
  if (llvm::Error error = checkRequest(requested)) // all of its mistakes at once
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
  if (!options->depfile.empty())
    if (llvm::Error error = checkDepfileReplaceable(options->depfile))
      return error;

  // From here on tlc makes files, which an interrupt removes.
  auto staging = Staging::create(options->outputDir);
  if (!staging)
    return staging.takeError();
  view->setWorkDir((*staging)->workDir());
  std::optional<BuildCache> cache;
  if (useCache)
    cache = openBuildCache(services.cacheDir.empty() ? defaultCacheDir() : services.cacheDir);
  if (cache) // the parse's precompiled preamble lives with the cache (frontend/Preamble.h)
    options->sources.frontend.preambleDir = cache->preambleDir();
  std::optional<TieredCache> tiers;
  if (cache)
    tiers.emplace(*cache, remote.get());
  return Builder(*options, std::move(*tools), std::move(*staging), tiers ? &*tiers : nullptr,
                 std::move(*relocation), std::move(*view), *services.commands)
      .run();
}

// A signal at any point of a build (its start-up queries of nvcc and the host compiler
// included) stops the tools, unwinds and ends in exit 128 + the signal's number.
llvm::Error runBuild(const BuildOptions& requested) {
  InterruptScope interrupts;
  setProbeTimeout(requested.toolTimeout); // a tool's `--version` is a tool run too
  llvm::Error result = buildAndPublish(requested, BuildServices());
  if (result && interrupted()) { // whatever failed, the signal came first
    llvm::consumeError(std::move(result));
    return interruptedError();
  }
  return result;
}

} // namespace tlc
