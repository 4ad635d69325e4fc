// tlc's command line: parses arguments into the library's option structs and calls the command.
// Everything else lives in lib/.
#include "commands/Commands.h"
#include "pipeline/GpuTargets.h"
#include "pipeline/Toolchain.h"
#include "support/Error.h"
#include "support/InstallLayout.h"
#include "support/StartUp.h"
#include "support/Terminal.h"

#include <CLI/CLI.hpp>

#include <regex>
#include <string>
#include <vector>

namespace {

constexpr int kUsageError = static_cast<int>(tlc::ExitCode::UsageError);

// Arguments after `--` belong to Clang, not to tlc: split them off before CLI11 sees them.
// nvcc users type `-std=c++20` and `-gencode ...`; accept them as `--std`, `--gencode`.
// `-Xnvcc FLAG` takes the next argument whatever it looks like (it usually starts with '-'),
// so it is joined here.
std::vector<std::string> tlcArguments(int argc, char** argv, std::vector<std::string>& clangArgs) {
  std::vector<std::string> args;
  bool forClang = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (forClang) {
      clangArgs.push_back(arg);
    } else if (arg == "--") {
      forClang = true;
    } else if ((arg == "-Xnvcc" || arg == "--Xnvcc") && i + 1 < argc) {
      args.push_back(std::string("--Xnvcc=") + argv[++i]);
    } else {
      if (arg.rfind("-std=", 0) == 0 || arg.rfind("-Xnvcc=", 0) == 0 || arg == "-gencode" ||
          arg.rfind("-gencode=", 0) == 0)
        arg = "-" + arg;
      args.push_back(arg);
    }
  }
  std::reverse(args.begin(), args.end()); // CLI11 takes its vector in reverse order
  return args;
}

CLI::Validator archValidator() {
  return CLI::Validator(
      [](const std::string& value) {
        if (!std::regex_match(value, std::regex("sm_[0-9]+[af]?")))
          return "expected sm_XX, sm_XXa or sm_XXf, got '" + value + "'";
        if (!tlc::isKnownParseArch(value))
          return "Clang " + tlc::clangVersion() + " knows no GPU '" + value + "'";
        return std::string();
      },
      "sm_XX");
}

CLI::Validator atLeastOne() {
  return CLI::Validator(
      [](const std::string& value) {
        return value.find_first_not_of("0123456789") == std::string::npos && !value.empty() &&
                       value.size() < 10 && std::stoul(value) > 0
                   ? std::string()
                   : "expected a whole number of at least 1, got '" + value + "'";
      },
      "N");
}

void addSourceOptions(CLI::App& command, tlc::SourceOptions& options) {
  command.add_option("files", options.inputs, "CUDA source files (.cu)")->required();
  // Repeatable options take one value per occurrence, so `--arch sm_90a a.cu` keeps a.cu.
  command.add_option("-I", options.frontend.includeDirs, "Add an include directory")
      ->allow_extra_args(false);
  command.add_option("-D", options.frontend.defines, "Define a macro: NAME or NAME=VALUE")
      ->allow_extra_args(false);
  command
      .add_option("--std", options.frontend.standard, "C++ dialect (c++11, c++14, c++17, c++20)")
      ->check(CLI::IsMember({"c++11", "c++14", "c++17", "c++20"}))
      ->capture_default_str();
  command.add_option("--cuda-path", options.cudaPath,
                     "CUDA toolkit (default: $CUDA_PATH, $CUDA_HOME, /usr/local/cuda)");
  command
      .add_option("-j,--jobs", options.frontend.jobs,
                  "Parallel jobs (default: make's -jN under make, else all cores; under make's "
                  "jobserver each job beyond the first also takes one of its tokens)")
      ->check(atLeastOne());
  command.add_flag("-v,--verbose", options.verbose, "Print every command tlc runs");
  auto* database = command.add_option(
      "--compile-commands", options.compileCommands,
      "Take each input's flags from this compile_commands.json (nvcc command lines)");
  command
      .add_option_function<std::string>(
          "-p",
          [&options](const std::string& dir) {
            options.compileCommands = dir + "/compile_commands.json";
          },
          "Build folder holding compile_commands.json (as clang-tidy's -p)")
      ->excludes(database);
}

void addParseArch(CLI::App& command, tlc::SourceOptions& options) {
  command
      .add_option("--arch", options.frontend.arch,
                  "GPU to parse for, sm_XX[a|f] (default: nvcc's default, sm_75 with CUDA 13)")
      ->check(archValidator());
}

void addBuildOptions(CLI::App& command, tlc::BuildOptions& options) {
  addSourceOptions(command, options.sources);
  command.add_option("-o,--output", options.outputDir, "Output folder")->required();
  command.add_option("--name", options.name,
                     "Module name, the prefix of the API (default: the first file's stem)");
  command
      .add_option("--arch", options.archs,
                  "GPU target, repeatable, as nvcc's -arch: sm_XX[a|f] (SASS for sm_XX plus PTX "
                  "for compute_XX, which the driver JIT-compiles on newer GPUs), compute_XX (PTX "
                  "only), native (this machine's GPUs), all, all-major. Default: nvcc's default "
                  "(sm_75 with CUDA 13, so the library runs on every GPU nvcc's output runs on). "
                  "One SASS target gives NAME.cubin, anything else NAME.fatbin")
      ->allow_extra_args(false);
  command
      .add_option("--gencode", options.gencodes,
                  "Exact targets, repeatable, as nvcc's -gencode: "
                  "arch=compute_XX,code=[sm_XX,compute_XX]")
      ->allow_extra_args(false);
  command.add_option("--Xnvcc", options.nvccFlags, "-Xnvcc FLAG: pass FLAG to nvcc (repeatable)")
      ->allow_extra_args(false);
  command
      .add_option("--entry", options.entries,
                  "Generate launchers only for this kernel: C++ name, launcher name or "
                  "symbol (repeatable)")
      ->allow_extra_args(false);
  command.add_flag("--external-image", options.externalImage,
                   "Load NAME.cubin/.fatbin from beside libNAME.so instead of embedding it");
  command.add_flag("--emit-only", options.emitOnly,
                   "Write the generated sources (NAME.h, NAME_launcher.cpp, NAME_image.S) and "
                   "the device image, without compiling the library");
  command.add_flag("--keep-temps", options.keepTemps, "Keep the staging folder and say where");
  command.add_option("--template-dir", options.templateDir,
                     "Launcher templates to use instead of the installed ones");
  command.add_flag("-q,--quiet", options.quiet, "No progress lines");
  command.add_option("--depfile", options.depfile,
                     "Write a Make-style list of every file the build read (for Ninja/Make)");
  command.add_option("--depfile-target", options.depfileTarget,
                     "The target named in the depfile (default: OUTDIR/NAME.json)");
  command.add_option("--compile-commands-out", options.compileCommandsOut,
                     "Write a compile_commands.json with each input's Clang parse, so that "
                     "clangd sees the kernels as tlc does (replaced atomically)");
  command
      .add_option("--launcher", options.launcher,
                  "Run nvcc under this command, e.g. ccache or sccache (repeatable for its "
                  "arguments)")
      ->allow_extra_args(false);
  command.add_flag("--no-cache", options.noCache,
                   "Do not use the build cache (also TLC_DISABLE_CACHE=1)");
  command.add_option("--remote-storage", options.remoteStorage,
                     "The build cache's shared second tier, as ccache's remote_storage: "
                     "redis://[[USER:]PASSWORD@]HOST[:PORT][/DB] or http://HOST[:PORT]/PATH "
                     "(docs/team-cache.md; default: TLC_REMOTE_STORAGE; \"\" turns it off)");
  command.add_option("--base-dir", options.baseDir,
                     "Cache paths under this folder relative to the working folder, as ccache's "
                     "base_dir, so that checkouts under it share cache entries (default: "
                     "TLC_BASE_DIR; \"\" turns it off)");
  command
      .add_option("--tool-timeout", options.toolTimeout,
                  "Stop a tool (nvcc, the host compiler) that runs longer than this many "
                  "seconds, and fail (default 3600; 0: no limit)")
      ->check(CLI::Range(0u, 1000000000u))
      ->capture_default_str();
  command.add_flag("--python", options.python,
                   "Also build the Python package NAME/ beside the library: one function per "
                   "launcher, taking torch tensors, CUDA arrays and numbers (docs/python.md)");
}

// Reports the command's errors, and a failure to write its output (a full disk, a closed pipe).
int finish(llvm::Error error) {
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    std::string why = llvm::outs().error().message();
    llvm::outs().clear_error();
    error = llvm::joinErrors(std::move(error), tlc::inputError("cannot write the output: " + why));
  }
  return static_cast<int>(tlc::reportErrors(std::move(error)));
}

} // namespace

int main(int argc, char** argv) {
  tlc::prepareProcess();
  // However main returns: a closed or full stderr is no reason to fail.
  struct StderrGuard {
    ~StderrGuard() { tlc::forgetStderrFailure(); }
  } stderrGuard;
  std::vector<std::string> clangArgs;
  std::vector<std::string> args = tlcArguments(argc, argv, clangArgs);
  tlc::InstallLayout layout = tlc::installLayoutOf(argv[0]);

  CLI::App app{"tlc: ahead-of-time compiler for CUDA kernels.\n"
               "Arguments after `--` are passed to Clang when parsing.",
               "tlc"};
  app.require_subcommand(0, 1);
  bool showVersion = false;
  std::string versionCudaPath;
  app.add_flag("--version", showVersion, "Print the versions of tlc, Clang and CUDA");
  app.add_option("--cuda-path", versionCudaPath, "CUDA toolkit for --version");

  tlc::InspectOptions inspect;
  CLI::App* inspectCommand =
      app.add_subcommand("inspect", "List every kernel of the given files: a table, or --json");
  addSourceOptions(*inspectCommand, inspect.sources);
  addParseArch(*inspectCommand, inspect.sources);
  inspectCommand->add_flag("--json", inspect.json, "Print the module model as JSON");

  tlc::SourceOptions check;
  CLI::App* checkCommand = app.add_subcommand(
      "check", "Check that device symbols and launcher names are unique across the files");
  addSourceOptions(*checkCommand, check);
  addParseArch(*checkCommand, check);

  tlc::BuildOptions build;
  CLI::App* buildCommand = app.add_subcommand(
      "build", "Compile .cu files into a device image and a launcher library with a C header");
  addBuildOptions(*buildCommand, build);

  CLI::App* verifyCommand = app.add_subcommand(
      "verify", "Check the files of a build folder against the hashes in its manifest");
  std::string verifyDir;
  verifyCommand->add_option("outdir", verifyDir, "A folder written by tlc build")->required();

  CLI::App* cacheCommand = app.add_subcommand("cache", "Inspect or trim the build cache");
  cacheCommand->require_subcommand(1);
  tlc::CacheOptions cache;
  cacheCommand->add_subcommand("stats", "Entries, size, hits and misses")->callback([&] {
    cache.action = tlc::CacheAction::Stats;
  });
  cacheCommand->add_subcommand("clear", "Remove every entry")->callback([&] {
    cache.action = tlc::CacheAction::Clear;
  });
  CLI::App* prune = cacheCommand->add_subcommand("prune", "Remove least recently used entries");
  prune->add_option("--max-size", cache.maxSize, "Keep at most this much: 500M, 10G, ...")
      ->required();
  prune->callback([&] { cache.action = tlc::CacheAction::Prune; });

  try {
    app.parse(args);
  } catch (const CLI::Success& e) {
    return app.exit(e); // --help
  } catch (const CLI::ParseError& e) {
    tlc::printToolMessage(tlc::MessageKind::Error,
                          std::string(e.what()) + " (run 'tlc --help' for usage)");
    return kUsageError;
  }

  if (showVersion) {
    tlc::printVersion(versionCudaPath, llvm::outs());
    return finish(llvm::Error::success());
  }
  bool color = tlc::stderrWantsColor();
  for (tlc::SourceOptions* options : {&inspect.sources, &check, &build.sources}) {
    options->frontend.extraArgs = clangArgs;
    options->frontend.color = color;
    options->frontend.verbose = options->verbose;
    options->frontend.tlcIncludeDir = layout.includeDir();
  }
  if (*inspectCommand || *checkCommand || *buildCommand) {
    if (llvm::Error error = tlc::checkWorkingFolder())
      return finish(std::move(error));
    std::string hostIncludeDir = tlc::hostCompilerIncludeDir();
    for (tlc::SourceOptions* options : {&inspect.sources, &check, &build.sources})
      options->frontend.hostIncludeDir = hostIncludeDir;
  }
  if (*inspectCommand)
    return finish(tlc::runInspect(inspect, llvm::outs()));
  if (*checkCommand)
    return finish(tlc::runCheck(check, llvm::outs()));
  if (*verifyCommand)
    return finish(tlc::runVerify(verifyDir, llvm::outs()));
  if (*cacheCommand)
    return finish(tlc::runCache(cache, llvm::outs()));
  if (*buildCommand) {
    if (build.templateDir.empty())
      build.templateDir = layout.templatesDir();
    build.runtimeLibrary = layout.runtimeLibrary();
    build.pythonLibrary = layout.pythonLibrary();
    build.pythonHelpersDir = layout.pythonHelpersDir();
    return finish(tlc::runBuild(build));
  }

  tlc::printToolMessage(tlc::MessageKind::Error, "no command given (run 'tlc --help' for usage)");
  llvm::errs() << app.help();
  return kUsageError;
}
