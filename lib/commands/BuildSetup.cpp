// `tlc build` before building: the request checked, the options resolved, the tools found and
// given their names (commands/BuildSetup.h).
#include "commands/BuildSetup.h"

#include "builder/ModuleWheel.h"
#include "builder/PythonPackage.h"
#include "commands/Commands.h"
#include "frontend/CompileCommands.h"
#include "frontend/Frontend.h"
#include "render/PythonView.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Identifiers.h"
#include "support/Jobs.h"
#include "support/Jobserver.h"
#include "support/Process.h"
#include "support/Terminal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
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
  if ((options.python || options.wheel) && isPythonKeyword(name))
    return usageError(source + " is a Python keyword, which no package can be named (import " +
                      name + " is a syntax error); choose another with --name");
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

// The suffixes of the files a build writes (and of objects): an -o naming one names a file.
const std::vector<llvm::StringRef>& outputFileSuffixes() {
  static const std::vector<llvm::StringRef> suffixes = {".so",     ".a",   ".o", ".cubin",
                                                        ".fatbin", ".ptx", ".h", ".json"};
  return suffixes;
}

// The module name -o suggests when it names a file, not a folder (`-o x/libconvert.so`:
// convert); "" when it names a folder.
std::string nameFromOutputFile(llvm::StringRef output) {
  if (output.ends_with("/")) // said to be a folder
    return "";
  llvm::StringRef file = llvm::sys::path::filename(output);
  llvm::StringRef suffix = llvm::sys::path::extension(file);
  if (!llvm::is_contained(outputFileSuffixes(), suffix))
    return "";
  llvm::StringRef stem = llvm::sys::path::stem(file);
  if (suffix == ".so" || suffix == ".a")
    stem.consume_front("lib");
  return suggestedNameFrom(stem);
}

// The module name to suggest where tlc does not choose one: the output folder's (or, where -o
// names a file, that file's).
std::string suggestedName(const BuildOptions& options) {
  if (std::string name = nameFromOutputFile(options.outputDir); !name.empty())
    return name;
  llvm::SmallString<256> folder(options.outputDir);
  llvm::sys::fs::make_absolute(folder);
  llvm::sys::path::remove_dots(folder, /*remove_dot_dot=*/true);
  return suggestedNameFrom(llvm::sys::path::filename(folder));
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

} // namespace

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

// -o is the output folder. Named like one of the files a build writes (`-o x/libconvert.so`) or
// an object file (`-o k.o`, nvcc -c's), it is a mistake tlc would otherwise make into a folder of
// that name.
llvm::Error checkOutputIsFolder(const BuildOptions& options) {
  llvm::StringRef output = options.outputDir;
  std::string suggested = nameFromOutputFile(output);
  if (suggested.empty())
    return llvm::Error::success();
  std::string name = options.name.empty() ? suggested : options.name;
  llvm::StringRef suffix = llvm::sys::path::extension(llvm::sys::path::filename(output));
  llvm::StringRef parent = llvm::sys::path::parent_path(output);
  return usageError("-o '" + output.str() + "' names a " + suffix.str() +
                    " file, but -o is the output folder, into which tlc writes libNAME.so, "
                    "NAME.h, NAME.json and the device image; for files named '" +
                    name + "', give -o " + shellQuote({parent.empty() ? "." : parent.str()}) +
                    " --name " + name);
}

llvm::Error checkRequest(const BuildOptions& options) {
  llvm::Error errors = llvm::Error::success();
  auto add = [&](llvm::Error error) {
    errors = llvm::joinErrors(std::move(errors), std::move(error));
  };
  if (options.outputDir.empty())
    add(usageError("-o '' names no folder"));
  add(checkInputFiles(options.sources.inputs));
  add(checkOutputIsFolder(options));
  add(checkDistinctInputs(options.sources.inputs));
  add(checkNameGiven(options));
  add(checkWheelOptions(options));
  return errors;
}

llvm::Error checkWheelOptions(const BuildOptions& options) {
  if (!options.wheel)
    return llvm::Error::success();
  if (!options.python)
    return usageError("--wheel packs the Python package: give --python too");
  if (options.emitOnly)
    return usageError("--wheel packs the built package, and --emit-only builds none");
  if (!isWheelVersion(options.wheelVersion))
    return usageError("--wheel-version '" + options.wheelVersion +
                      "' is not a version a wheel may carry (digits and dots, as 1.2.0, "
                      "optionally rc1, .post1 or .dev1)");
  return llvm::Error::success();
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
    if (!pythonSupported())
      return toolchainError("this tlc was built without Python support: install Python's and "
                            "DLPack's headers (Debian: python3-dev libdlpack-dev) and build tlc "
                            "again (docs/python.md)");
    for (const std::string& file : {options.emitOnly ? std::string() : options.pythonLibrary,
                                    options.pythonHelpersDir + "/tlc/__init__.py"})
      if (!file.empty() && !llvm::sys::fs::exists(file))
        return toolchainError("'" + file + "' is missing (reinstall tlc)");
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

// With device debug info, the folder nvcc compiles in when it can be the user's working folder
// (ToolPaths::runInUserFolder): every input usable as typed, and the work folder, which nvcc is
// then given by its absolute path, without the ',' that nvcc splits option values at (its path
// is shell-safe already, workRoot). Empty where not: the work folder, and real paths.
static std::string userFolderForCompiles(const BuildOptions& options, bool debugInfo, bool images) {
  // A compiler cache keys the folder it runs in unless told not to; its builds stay in theirs.
  if (!debugInfo || images || !options.launcher.empty())
    return "";
  for (const std::string& input : options.sources.inputs)
    if (!ToolPaths::usableAsTyped(input))
      return "";
  auto root = workRoot();
  if (!root) {
    llvm::consumeError(root.takeError()); // Staging reports it
    return "";
  }
  llvm::SmallString<256> cwd;
  if (llvm::StringRef(*root).contains(',') || llvm::sys::fs::current_path(cwd))
    return "";
  return cwd.str().str();
}

static llvm::Expected<ToolView> prepareToolsIn(const BuildOptions& options, const BuildTools& tools,
                                               const PathRelocation& relocation,
                                               const std::string& userFolder);

// With device debug info the line tables name the real files (ToolPaths.h): as nvcc run in the
// user's folder names them where it can be, by their real paths otherwise. A path nvcc could
// reach only through a link would be named by the link's absolute path in the work folder, which
// no two builds share and which is gone after the build: then no compile runs in the user's
// folder, and the link's stable relative name is what the line table records.
llvm::Expected<ToolView> prepareTools(const BuildOptions& options, const BuildTools& tools,
                                      const PathRelocation& relocation) {
  bool debugInfo = wantsDeviceDebugInfo(options.nvccFlags);
  std::string userFolder =
      userFolderForCompiles(options, debugInfo, hasImageInputs(options.sources.inputs));
  auto view = prepareToolsIn(options, tools, relocation, userFolder);
  if (view && !userFolder.empty() && view->compilesReachLinks)
    return prepareToolsIn(options, tools, relocation, "");
  return view;
}

// The options the tools get: the inputs copied into the work folder and every other path a
// link there (ToolPaths.h); every flag that reaches nvcc checked. Fails before anything is made.
static llvm::Expected<ToolView> prepareToolsIn(const BuildOptions& options, const BuildTools& tools,
                                               const PathRelocation& relocation,
                                               const std::string& userFolder) {
  const FrontendOptions& frontend = options.sources.frontend;
  ToolView view;
  ToolPaths& names = view.names;
  bool debugInfo = wantsDeviceDebugInfo(options.nvccFlags);
  bool images = hasImageInputs(options.sources.inputs);
  DeviceBuildOptions& device = view.device;
  device.userFolder = userFolder;
  if (!userFolder.empty())
    names.runInUserFolder();
  else
    names.useRealPaths(debugInfo);
  device.name = options.name;
  // With debug info the toolkit by its real path (where shell-safe), so that the line tables
  // name its headers where they are. Under a compiler launcher too: sccache's server remembers
  // a compiler by where it really is and runs it again by the path it was first given, which a
  // link in an earlier build's (deleted) work folder would be.
  device.nvcc = (options.launcher.empty() ? names.reach(tools.toolkit.root, "cuda")
                                          : names.reachByRealPath(tools.toolkit.root, "cuda")) +
                "/bin/nvcc";
  device.targets = options.targets;
  device.standard = frontend.standard;
  device.launcher = options.launcher;
  device.relocatable = frontend.relocatable;
  // A build of images: ptxas and fatbinary read them through links, nvcc reads nothing.
  if (images)
    prepareImageTools(options, tools, view);
  for (size_t i = 0; i < options.sources.inputs.size() && !images; ++i) {
    const std::string& input = options.sources.inputs[i];
    SourceIdentity identity = sourceIdentity(input, relocation.path(absolutePath(input)), debugInfo,
                                             names.runsInUserFolder());
    device.inputs.push_back(names.input(i, input, identity));
    device.hashedPaths.push_back(identity.hashedPath);
    view.identities.push_back(identity);
    device.inputDirs.push_back(names.inputFolder(i));
    device.inputWorkDirs.push_back(names.inputWorkFolder(i));
    device.inputNames.push_back(llvm::sys::path::filename(options.sources.inputs[i]).str());
  }
  if (!frontend.tlcIncludeDir.empty())
    device.tlcIncludeDir = names.reach(frontend.tlcIncludeDir, "tlc-include");
  // -I/-D/-U/..., then nvcc's other options, then each input's compile-database flags: macros
  // keep that order.
  ToolPaths::Macros macros;
  auto preprocessor = names.nvccFlags(frontend.preprocessorFlags, "-D", macros);
  if (!preprocessor)
    return preprocessor.takeError();
  device.preprocessorFlags = std::move(*preprocessor);
  auto nvccFlags = names.nvccFlags(options.nvccFlags, "nvcc", macros);
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

  device.workNames = names.workNames();
  view.compilesReachLinks = names.linksAny();

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
    python.tlcInclude = host.tlcInclude;
    python.cudaInclude = host.cudaInclude;
    python.bindingLibrary = names.link(options.pythonLibrary, "libtlc_python.a");
  }
  return view;
}

StagePlans planStages(ToolView& view, const CudaToolkit& toolkit) {
  StagePlans plans;
  plans.deviceOptions = std::move(view.device);
  if (view.images) {
    ImageBuild build = planImageBuild(*view.images, view.imageSources, view.imageOptions);
    plans.device = std::move(build.device);
    plans.staged = std::move(build.staged);
    plans.images = std::move(view.images);
  } else {
    plans.device = planDeviceBuild(plans.deviceOptions, toolkit);
  }
  if (!view.host.compiler.empty())
    plans.host = planHostBuild(view.host);
  if (view.python)
    plans.python = planPythonBuild(*view.python);
  return plans;
}

void StagePlans::makeRelocatable(const CudaToolkit& toolkit) {
  deviceOptions.relocatable = true;
  device = planDeviceBuild(deviceOptions, toolkit);
}

std::vector<std::string> parsedInputs(const BuildOptions& options, const StagePlans& plans) {
  return plans.images ? plans.images->declarations : options.sources.inputs;
}

void noteHostFunctions(const std::vector<TranslationUnitFacts::HostFunction>& functions,
                       const std::string& module) {
  if (functions.empty())
    return;
  constexpr size_t kShown = 8;
  std::string list;
  for (size_t i = 0; i < functions.size() && i < kShown; ++i)
    list += (i ? ", " : "") + functions[i].name + " (" + functions[i].location.str() + ")";
  if (functions.size() > kShown)
    list += " and " + std::to_string(functions.size() - kShown) + " more";
  printToolMessage(MessageKind::Note,
                   "host code of the inputs is not in lib" + module +
                       ".so, which holds the kernels' launchers only (nvcc -shared would export "
                       "it; docs/cli.md, \"Host code in the inputs\"): " +
                       list);
}

llvm::Error writeCompileCommands(const BuildOptions& options, const StagePlans& plans,
                                 const CudaToolkit& toolkit,
                                 const std::map<std::string, std::string>* headers) {
  if (options.compileCommandsOut.empty())
    return llvm::Error::success();
  return writeCompileDatabase(options.compileCommandsOut, parsedInputs(options, plans),
                              options.sources.frontend, toolkit, headers);
}

ToolReleases toolReleases(const BuildTools& tools) {
  return {tlcVersion(), clangVersion(), tools.toolkit.release, hostCompilerVersion(tools.compiler)};
}

DisplayPaths displayPathsFor(const BuildOptions& options, const BuildTools& tools,
                             const std::string& workDir) {
  DisplayPaths paths(options.sources.inputs, workDir);
  // The tools and tlc's own files are named by what they are, not where they are installed.
  paths.addPlaceholder(tools.toolkit.root, "<cuda>");
  // tlc's own folders only (a checkout's build folder is tlc's prefix there, and may hold
  // the user's files): its headers and its libraries.
  std::string prefix = llvm::sys::path::parent_path(options.sources.frontend.tlcIncludeDir).str();
  for (const std::string& file : {options.runtimeLibrary, options.pythonLibrary})
    if (!file.empty() && !prefix.empty()) {
      std::string folder = llvm::sys::path::parent_path(absolutePath(file)).str();
      paths.addPlaceholder(folder, "<tlc>/" + relativePath(absolutePath(prefix), folder));
    }
  if (!prefix.empty())
    paths.addPlaceholder(options.sources.frontend.tlcIncludeDir, "<tlc>/include");
  if (!tools.compiler.path.empty())
    paths.addPlaceholder(tools.compiler.path, llvm::sys::path::filename(tools.compiler.name).str());
  return paths;
}

StepRunner stepRunnerFor(const BuildOptions& options, const ToolPaths& names,
                         const DisplayPaths& paths, const std::atomic<bool>* cancel) {
  StepRunner runner;
  runner.verbose = options.sources.verbose;
  runner.timeoutSeconds = options.toolTimeout;
  runner.cancel = cancel;
  runner.display = [&names, &paths](const std::vector<std::string>& argv) {
    std::vector<std::string> shown;
    for (const std::string& arg : argv)
      shown.push_back(names.argument(arg));
    return paths.commandLine(shown);
  };
  runner.messages = [&names](const std::string& text) { return names.message(text); };
  return runner;
}

std::vector<std::string> buildDependencies(const BuildOptions& options, const BuildTools& tools,
                                           const std::vector<std::string>& filesRead) {
  std::set<std::string> files;
  for (const std::string& file : options.sources.inputs)
    files.insert(absolutePath(file));
  for (const std::string& file : filesRead)
    files.insert(absolutePath(file));
  for (const std::string& file : tools.templates.files())
    files.insert(absolutePath(file));
  files.insert(absolutePath(tools.launcherTypesPath));
  if (!options.emitOnly)
    files.insert(absolutePath(options.runtimeLibrary));
  if (options.python) {
    for (const std::string& file :
         pythonPackageInputs(options.pythonHelpersDir, options.sources.frontend.tlcIncludeDir))
      files.insert(absolutePath(file));
    if (!options.emitOnly)
      files.insert(absolutePath(options.pythonLibrary));
  }
  return {files.begin(), files.end()};
}

} // namespace tlc
