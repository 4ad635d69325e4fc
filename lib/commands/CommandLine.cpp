// Reading tlc's command line: tlc's own options through CLI11, nvcc's through its table.
#include "commands/CommandLine.h"

#include "commands/BuildSetup.h"
#include "commands/CommandReference.h"
#include "frontend/NvccOptions.h"
#include "frontend/ParseArguments.h"
#include "support/Error.h"
#include "toolchain/GpuTargets.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace tlc {

namespace {

const std::vector<std::string>& dialects() {
  static const std::vector<std::string> names = {"c++11", "c++14", "c++17", "c++20"};
  return names;
}

// Why `value` is no GPU the parse can be for; empty if it is one.
std::string parseArchProblem(const std::string& value) {
  if (!std::regex_match(value, std::regex("sm_[0-9]+[af]?")))
    return "expected sm_XX, sm_XXa or sm_XXf, got '" + value + "'";
  if (!isKnownParseArch(value))
    return "Clang " + clangVersion() + " knows no GPU '" + value + "'";
  return "";
}

CLI::Validator archValidator() {
  return CLI::Validator(parseArchProblem, "sm_XX");
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

void addSourceOptions(CLI::App& command, SourceOptions& options) {
  command.add_option("files", options.inputs, "CUDA source files (.cu)")
      ->required()
      ->type_name("FILE");
  command.add_option("--std", options.frontend.standard, "C++ dialect (also nvcc's -std)")
      ->check(CLI::IsMember(dialects()))
      ->capture_default_str();
  command
      .add_option("--cuda-path", options.cudaPath,
                  "CUDA toolkit (default: $CUDA_PATH, $CUDA_HOME, /usr/local/cuda)")
      ->type_name("DIR");
  command
      .add_option("-j,--jobs", options.frontend.jobs,
                  "Parallel jobs (default: make's -jN under make, else all cores; under make's "
                  "jobserver each job beyond the first also takes one of its tokens)")
      ->check(atLeastOne());
  command.add_flag("-v,--verbose", options.verbose, "Print every command tlc runs");
  auto* database =
      command
          .add_option(
              "--compile-commands", options.compileCommands,
              "Take each input's flags from this compile_commands.json (nvcc command lines)")
          ->type_name("FILE");
  command
      .add_option_function<std::string>(
          "-p",
          [&options](const std::string& dir) {
            options.compileCommands = dir + "/compile_commands.json";
          },
          "Build folder holding compile_commands.json (as clang-tidy's -p)")
      ->type_name("DIR")
      ->excludes(database);
  // Read before CLI11 sees the arguments (parseCommandLine), listed here for --help.
  command
      .add_option_function<std::vector<std::string>>(
          "--Xnvcc", [](const std::vector<std::string>&) {},
          "-Xnvcc FLAG: pass FLAG to nvcc, also one nvcc's table does not know (repeatable)")
      ->type_name("FLAG");
  command.footer(nvccOptionsHelp());
}

// --color=auto|always|never, for the commands that print diagnostics.
void addColorOption(CLI::App& command, ColorChoice& color) {
  command
      .add_option_function<std::string>(
          "--color", [&color](const std::string& name) { color = *colorChoiceNamed(name); },
          "Color in diagnostics: auto (a terminal, TERM not dumb, NO_COLOR unset or empty), "
          "always, never (default: auto)")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");
}

void addParseArch(CLI::App& command, SourceOptions& options) {
  command
      .add_option("--arch", options.frontend.arch,
                  "GPU to parse for, sm_XX[a|f] (default: nvcc's default, sm_75 with CUDA 13)")
      ->check(archValidator());
}

void addBuildOptions(CLI::App& command, BuildOptions& options) {
  addSourceOptions(command, options.sources);
  // Also device images, with headers declaring their kernels (builder/ImageInputs.h).
  command.get_option("files")->description(
      "CUDA source files (.cu); or device images (.cubin, .fatbin, .ptx) with headers declaring "
      "their kernels (.h, .cuh, .hpp; docs/images.md)");
  command.add_option("-o,--output", options.outputDir, "Output folder (not nvcc's output file)")
      ->required()
      ->type_name("DIR");
  command
      .add_option("--name", options.name,
                  "Module name, the prefix of the API (default: the input's stem; several "
                  "inputs need --name)")
      ->type_name("NAME");
  command
      .add_option("--arch", options.archs,
                  "GPU target, repeatable, as nvcc's -arch: sm_XX[a|f] (SASS for sm_XX plus PTX "
                  "for compute_XX, which the driver JIT-compiles on newer GPUs), compute_XX (PTX "
                  "only), native (this machine's GPUs), all, all-major. Default: nvcc's default "
                  "(sm_75 with CUDA 13, so the library runs on every GPU nvcc's output runs on). "
                  "One SASS target gives NAME.cubin, anything else NAME.fatbin")
      ->type_name("ARCH")
      ->allow_extra_args(false);
  command
      .add_option("--gencode", options.gencodes,
                  "Exact targets, repeatable, as nvcc's -gencode: "
                  "arch=compute_XX,code=[sm_XX,compute_XX]")
      ->type_name("SPEC")
      ->allow_extra_args(false);
  command
      .add_option("--entry", options.entries,
                  "Generate launchers only for this kernel: C++ name, launcher name or "
                  "symbol (repeatable)")
      ->type_name("KERNEL")
      ->allow_extra_args(false);
  command.add_flag("--external-image", options.externalImage,
                   "Load NAME.cubin/.fatbin from beside libNAME.so instead of embedding it");
  command.add_flag("--emit-only", options.emitOnly,
                   "Write the generated sources (NAME.h, NAME_launcher.cpp, NAME_image.S) and "
                   "the device image, without compiling the library");
  command.add_flag("--keep-temps", options.keepTemps, "Keep the staging folder and say where");
  command.add_flag("--wheel", options.wheel,
                   "With --python, also write the package as an installable wheel into OUTDIR "
                   "(NAME-VERSION-cp310-abi3-PLATFORM.whl: libNAME.so inside, no dependency)");
  command
      .add_option("--wheel-version", options.wheelVersion,
                  "The version of the --wheel's distribution (default 0.1.0)")
      ->type_name("VERSION");
  command.add_flag("--force", options.force,
                   "Overwrite files in OUTDIR named like an output (NAME.h, libNAME.so, "
                   "NAME.json, the image, the package NAME/) that no earlier tlc build there "
                   "made; without it such a file stops the build and is left as it is");
  command
      .add_option("--template-dir", options.templateDir,
                  "Launcher templates to use instead of the installed ones")
      ->type_name("DIR");
  command.add_flag("-q,--quiet", options.quiet, "No progress lines");
  command
      .add_option("--depfile", options.depfile,
                  "Write a Make-style list of every file the build read (for Ninja/Make)")
      ->type_name("FILE");
  command
      .add_option("--depfile-target", options.depfileTarget,
                  "The target named in the depfile (default: OUTDIR/NAME.json)")
      ->type_name("TARGET");
  command
      .add_option("--compile-commands-out", options.compileCommandsOut,
                  "Write a compile_commands.json with each input's Clang parse, so that "
                  "clangd sees the kernels as tlc does (replaced atomically)")
      ->type_name("FILE");
  command
      .add_option("--launcher", options.launcher,
                  "Run nvcc under this command, e.g. ccache or sccache (repeatable for its "
                  "arguments)")
      ->type_name("CMD")
      ->allow_extra_args(false);
  command.add_flag("--no-cache", options.noCache,
                   "Do not use the build cache (also TLC_DISABLE_CACHE=1)");
  command
      .add_option("--remote-storage", options.remoteStorage,
                  "The build cache's shared second tier, as ccache's remote_storage: "
                  "redis://[[USER:]PASSWORD@]HOST[:PORT][/DB] or http://HOST[:PORT]/PATH "
                  "(docs/team-cache.md; default: TLC_REMOTE_STORAGE; \"\" turns it off)")
      ->type_name("URL");
  command
      .add_option("--base-dir", options.baseDir,
                  "Cache paths under this folder relative to the working folder, as ccache's "
                  "base_dir, so that checkouts under it share cache entries (default: "
                  "TLC_BASE_DIR; \"\" turns it off)")
      ->type_name("DIR");
  command
      .add_option("--tool-timeout", options.toolTimeout,
                  "Stop a tool (nvcc, the host compiler) that runs longer than this many "
                  "seconds, and fail (default 3600; 0: no limit)")
      ->check(CLI::Range(0u, 1000000000u))
      ->type_name("SECONDS")
      ->capture_default_str();
  command.add_flag("--python", options.python,
                   "Also build the Python package NAME/ beside the library: one function per "
                   "launcher, taking torch tensors, CUDA arrays and numbers (docs/python.md)");
}

bool isOption(llvm::StringRef arg) {
  return arg.size() > 1 && arg.starts_with("-");
}

bool takesValue(const CLI::Option& option) {
  return option.get_items_expected_max() > 0; // a flag expects none
}

// The option of `app` that `arg` names exactly ("-o", "--name", "--name=x"); null if none.
const CLI::Option* tlcOption(const CLI::App& app, llvm::StringRef arg) {
  for (const CLI::Option* option : app.get_options()) {
    if (arg.starts_with("--")) {
      if (llvm::is_contained(option->get_lnames(), arg.drop_front(2).split('=').first.str()))
        return option;
    } else if (arg.size() == 2 &&
               llvm::is_contained(option->get_snames(), arg.drop_front(1).str())) {
      return option;
    }
  }
  return nullptr;
}

// A one-letter option of `app` with its value joined: "-oout", "-j4".
bool isJoinedTlcOption(const CLI::App& app, llvm::StringRef arg) {
  if (arg.size() <= 2 || arg.starts_with("--"))
    return false;
  const CLI::Option* option = tlcOption(app, arg.take_front(2));
  return option && takesValue(*option);
}

std::vector<std::string> spellingsOf(const CLI::App& app) {
  std::vector<std::string> spellings;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames())
      spellings.push_back("--" + name);
    for (const std::string& name : option->get_snames())
      spellings.push_back("-" + name);
  }
  return spellings;
}

std::vector<std::string> commandsOf(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(command->get_name());
  return names;
}

CLI::App* commandNamed(CLI::App& app, llvm::StringRef name) {
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; }))
    if (command->get_name() == name)
      return command;
  return nullptr;
}

// The candidate closest to what was typed, if it is close enough to be a typo: at most one edit
// in three characters (`--acrh` is two edits from `--arch`); empty if none is.
std::string closest(llvm::StringRef typed, const std::vector<std::string>& candidates) {
  typed = typed.split('=').first;
  unsigned limit = std::clamp<unsigned>((typed.size() + 2) / 3, 1, 3);
  unsigned best = limit + 1;
  std::string match;
  for (const std::string& candidate : candidates) {
    unsigned distance = typed.edit_distance(candidate, true, limit);
    if (distance < best) {
      best = distance;
      match = candidate;
    }
  }
  return match;
}

// "tlc build" for `app`.
std::string commandPath(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* parent = app.get_parent(); parent; parent = parent->get_parent())
    path = parent->get_name() + " " + path;
  return path;
}

// What users of other tools type for one of tlc's own options: `tlc version` (go's, cargo's),
// `tlc -V` (nvcc's, gcc's), `tlc -version`; "" for anything else.
std::string aliasOf(llvm::StringRef typed, const CLI::App& app) {
  if (app.get_parent()) // only tlc's own: `tlc build -V` is nvcc's option
    return "";
  if (typed == "version" || typed == "-V" || typed == "-version" || typed == "--Version")
    return "--version";
  return "";
}

llvm::Error unknown(llvm::StringRef what, llvm::StringRef typed,
                    const std::vector<std::string>& candidates, const CLI::App& app) {
  std::string match = aliasOf(typed, app);
  if (match.empty())
    match = closest(typed, candidates);
  if (!match.empty())
    return usageError("unknown " + what.str() + " '" + typed.str() + "'; did you mean '" + match +
                      "'?");
  return usageError("unknown " + what.str() + " '" + typed.str() + "' (run '" + commandPath(app) +
                    " --help' for usage)");
}

// The arguments split three ways: CLI11's, nvcc's (the options of nvcc's table and -Xnvcc's
// values, in order) and Clang's (after `--`); `command` is the (sub)command they are for.
struct SplitArguments {
  std::vector<std::string> cli;
  std::vector<std::string> nvcc;
  std::vector<std::string> clang;
  CLI::App* command = nullptr;
  std::vector<std::string> help; // `tlc help COMMAND...`: the command's names
  bool askedHelp = false;
};

llvm::Expected<SplitArguments> splitArguments(CLI::App& root,
                                              const std::vector<std::string>& args) {
  SplitArguments split;
  split.command = &root;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    CLI::App& command = *split.command;
    bool nvccOptions = readsSources(command);
    if (arg == "--") {
      split.clang.assign(args.begin() + i + 1, args.end());
      break;
    }
    if (!isOption(arg)) {
      if (commandsOf(command).empty()) {
        split.cli.push_back(arg); // a file, a folder
        continue;
      }
      if (&command == &root && arg == "help") {
        split.askedHelp = true;
        split.help.assign(args.begin() + i + 1, args.end());
        return split;
      }
      CLI::App* chosen = commandNamed(command, arg);
      if (!chosen) {
        std::vector<std::string> names = commandsOf(command);
        if (&command == &root)
          names.push_back("help");
        return unknown("command", arg, names, command);
      }
      split.cli.push_back(arg);
      split.command = chosen;
      continue;
    }
    if (nvccOptions && (arg == "-Xnvcc" || arg == "--Xnvcc")) {
      if (i + 1 == args.size())
        return usageError(arg + " needs a value: the flag to pass to nvcc");
      split.nvcc.push_back(args[++i]);
      continue;
    }
    llvm::StringRef text(arg);
    if (nvccOptions && (text.consume_front("-Xnvcc=") || text.consume_front("--Xnvcc="))) {
      split.nvcc.push_back(text.str());
      continue;
    }
    if (const CLI::Option* option = tlcOption(command, arg)) {
      split.cli.push_back(arg);
      if (takesValue(*option) && !llvm::StringRef(arg).contains('=') && i + 1 < args.size())
        split.cli.push_back(args[++i]);
      continue;
    }
    if (nvccOptions) {
      size_t next = i;
      if (readNvccArgument(args, next).known()) {
        split.nvcc.insert(split.nvcc.end(), args.begin() + i, args.begin() + next);
        i = next - 1;
        continue;
      }
    }
    if (isJoinedTlcOption(command, arg)) {
      split.cli.push_back(arg);
      continue;
    }
    std::vector<std::string> candidates = spellingsOf(command);
    if (nvccOptions) {
      candidates.push_back("-Xnvcc");
      for (std::string& spelling : nvccSpellings())
        candidates.push_back(std::move(spelling));
    }
    return unknown("option", arg, candidates, command);
  }
  return split;
}

// `tlc cache` alone: the usage error for a command whose own command is missing, empty if none
// is.
std::string missingCommand(const SplitArguments& split) {
  bool help = llvm::is_contained(split.cli, "--help") || llvm::is_contained(split.cli, "-h");
  if (split.command->get_require_subcommand_min() == 0 || help)
    return "";
  return "'" + commandPath(*split.command) +
         "' needs a command: " + llvm::join(commandsOf(*split.command), ", ");
}

// The help of `command`, as --help prints it.
std::string helpOf(CLI::App& command) {
  return command.get_parent() ? command.help(commandPath(*command.get_parent())) : command.help();
}

// `tlc help [--man] [COMMAND...]`: the help of that command, or its man page (roff).
llvm::Expected<std::string> helpFor(CLI::App& root, std::vector<std::string> names) {
  bool man = !names.empty() && names.front() == "--man";
  if (man)
    names.erase(names.begin());
  CLI::App* command = &root;
  for (const std::string& name : names) {
    CLI::App* chosen = isOption(name) ? nullptr : commandNamed(*command, name);
    if (!chosen)
      return unknown("command", name, commandsOf(*command), *command);
    command = chosen;
  }
  if (!man)
    return helpOf(*command);
  if (names.size() > 1)
    return usageError("'tlc help --man' takes one command: its commands are sections of its page");
  std::vector<CommandEntry> reference = commandReference(root);
  std::vector<std::string> path = {root.get_name()};
  path.insert(path.end(), names.begin(), names.end());
  for (const CommandEntry& entry : reference)
    if (entry.path == path)
      return manPage(reference, entry);
  return internalError("no command reference for '" + commandPath(*command) + "'");
}

// nvcc's options from the command line and -Xnvcc, where they go for this command.
llvm::Error applyNvccOptions(const std::vector<std::string>& tokens, SourceOptions& sources,
                             BuildOptions* build) {
  auto routing = routeNvccArguments(readNvccArguments(tokens), NvccOrigin::CommandLine, "");
  if (!routing)
    return routing.takeError();
  FrontendOptions& frontend = sources.frontend;
  frontend.preprocessorFlags = routing->parse;
  if (!routing->standard.empty()) {
    if (!llvm::is_contained(dialects(), routing->standard))
      return usageError("-std '" + routing->standard + "': tlc parses " +
                        llvm::join(dialects(), ", "));
    frontend.standard = routing->standard;
  }
  std::vector<std::string> nvcc = routing->nvcc;
  if (routing->relocatable)
    nvcc.push_back("-rdc=true");
  if (!routing->codes.empty() && routing->archs.empty() && (!build || build->archs.empty()))
    return usageError("-code needs an -arch to compile from, as in nvcc's -arch=compute_90 "
                      "-code=sm_90,compute_90");
  if (build) {
    build->nvccFlags = std::move(nvcc);
    std::vector<std::string> archs = build->archs;
    archs.insert(archs.end(), routing->archs.begin(), routing->archs.end());
    build->archs.clear();
    targetsOf(archs, routing->codes, build->archs, build->gencodes);
    build->gencodes.insert(build->gencodes.end(), routing->gencodes.begin(),
                           routing->gencodes.end());
    return llvm::Error::success();
  }
  frontend.nvccFlags = std::move(nvcc);
  frontend.relocatable = routing->relocatable;
  if (!routing->codes.empty() || !routing->gencodes.empty())
    return usageError("-code and -gencode are for tlc build: inspect and check parse for one "
                      "GPU, given as -arch sm_XX (or --arch)");
  for (const std::string& arch : routing->archs) {
    std::string problem = parseArchProblem(arch);
    if (!problem.empty())
      return usageError("-arch: " + problem);
    frontend.arch = arch;
  }
  return llvm::Error::success();
}

// `text` broken into lines of at most `width` characters, each after `indent`.
std::string wrapped(llvm::StringRef text, size_t width, llvm::StringRef indent) {
  std::string out, line;
  for (llvm::StringRef word : llvm::split(text, ' ')) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += indent.str() + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word.str();
  }
  if (!line.empty())
    out += indent.str() + line + "\n";
  return out;
}

std::string placeholder(const NvccOption& option) {
  std::string value;
  switch (option.value) {
  case NvccValue::None:
    return "";
  case NvccValue::Folder:
    value = "DIR";
    break;
  case NvccValue::File:
    value = "FILE";
    break;
  case NvccValue::Program:
    value = "PROGRAM";
    break;
  case NvccValue::Macro:
    value = "NAME[=VALUE]";
    break;
  case NvccValue::Undefine:
    value = "NAME";
    break;
  case NvccValue::Plain:
    value = "VALUE";
    break;
  case NvccValue::Enum:
    value = "{" + llvm::join(option.allowed, "|") + "}";
    break;
  }
  return " " + value + (option.list ? ",..." : "");
}

} // namespace

bool isRefused(const NvccOption& option) {
  return option.route == NvccRoute::Decided || option.route == NvccRoute::SideOutput;
}

std::vector<std::string> refusedNvccSpellings() {
  // By their short names, but by their long ones where tlc has the short one: tlc's -o, -h.
  std::vector<std::string> refused;
  for (const NvccOption& option : nvccOptions()) {
    if (!isRefused(option))
      continue;
    bool tlcs = option.shortName() == "-o" || option.shortName() == "-h";
    refused.push_back((tlcs ? option.longName() : option.shortName()).str());
  }
  return refused;
}

bool readsSources(const CLI::App& app) {
  return llvm::is_contained({"inspect", "check", "build"}, app.get_name());
}

std::string nvccOptionsHelp() {
  std::string text = wrapped(
      "nvcc's options, as nvcc spells them (long or short, the value after '=' or as the next "
      "argument, lists with commas); those that change what the preprocessor sees reach the "
      "parse too (inspect and check use only those):",
      98, "");
  std::vector<std::string> refused = refusedNvccSpellings();
  for (const NvccOption& option : nvccOptions()) {
    if (isRefused(option))
      continue;
    std::string names = option.shortName().str();
    for (llvm::StringRef spelling : option.spellings)
      if (spelling != option.shortName())
        names += ", " + spelling.str();
    names = "  " + names + placeholder(option);
    names.resize(std::max<size_t>(names.size() + 1, 46), ' ');
    text += names + option.help.str() + "\n";
  }
  text += wrapped("Refused, as tlc decides them itself: " + llvm::join(refused, " ") +
                      " (tlc's -o is its output folder, -v its own).",
                  98, "");
  return text;
}

std::unique_ptr<CLI::App> makeApp(CommandLine& into) {
  auto app = std::make_unique<CLI::App>("tlc: ahead-of-time compiler for CUDA kernels.\n"
                                        "Arguments after `--` are passed to Clang when parsing.",
                                        "tlc");
  app->require_subcommand(0, 1);
  app->add_flag_callback(
      "--version", [&into] { into.command = Command::Version; },
      "Print the versions of tlc, Clang and CUDA");
  app->add_option("--cuda-path", into.versionCudaPath, "CUDA toolkit for --version")
      ->type_name("DIR");

  CLI::App* inspect =
      app->add_subcommand("inspect", "List every kernel of the given files: a table, or --json");
  addSourceOptions(*inspect, into.inspect.sources);
  addParseArch(*inspect, into.inspect.sources);
  addColorOption(*inspect, into.color);
  inspect->add_flag("--json", into.inspect.json, "Print the module model as JSON");

  CLI::App* check = app->add_subcommand(
      "check", "Check that device symbols and launcher names are unique across the files");
  addSourceOptions(*check, into.check);
  addParseArch(*check, into.check);
  addColorOption(*check, into.color);

  CLI::App* build = app->add_subcommand(
      "build", "Compile .cu files (or take device images) into a device image and a launcher "
               "library with a C header");
  addBuildOptions(*build, into.build);
  addColorOption(*build, into.color);

  CLI::App* verify = app->add_subcommand(
      "verify", "Check the files of a build folder against the hashes in its manifest");
  verify->add_option("outdir", into.verify.outputDir, "A folder written by tlc build")
      ->required()
      ->type_name("DIR");
  verify->add_flag("--allow-extra", into.verify.allowExtra,
                   "Allow files the manifest does not list (logs beside the outputs), except "
                   "shared libraries and Python modules, and any inside the build's folders");
  addColorOption(*verify, into.color);

  CLI::App* completion =
      app->add_subcommand("completion", "Print the shell completion script for bash, zsh or fish");
  completion
      ->add_option("shell", into.completionShell,
                   "bash (source <(tlc completion bash)), zsh (source <(tlc completion zsh)) or "
                   "fish (tlc completion fish | source)")
      ->required()
      ->check(CLI::IsMember(completionShells()));

  CLI::App* cache = app->add_subcommand("cache", "Inspect or trim the build cache");
  cache->require_subcommand(1);
  cache->add_subcommand("stats", "Entries, size, hits and misses")->callback([&into] {
    into.cache.action = CacheAction::Stats;
  });
  cache->add_subcommand("clear", "Remove every entry")->callback([&into] {
    into.cache.action = CacheAction::Clear;
  });
  CLI::App* prune = cache->add_subcommand("prune", "Remove least recently used entries");
  prune->add_option("--max-size", into.cache.maxSize, "Keep at most this much: 500M, 10G, ...")
      ->required()
      ->type_name("SIZE");
  prune->callback([&into] { into.cache.action = CacheAction::Prune; });
  return app;
}

llvm::Expected<CommandLine> parseCommandLine(const std::vector<std::string>& args) {
  CommandLine line;
  std::unique_ptr<CLI::App> app = makeApp(line);
  auto split = splitArguments(*app, args);
  if (!split)
    return split.takeError();
  if (split->askedHelp) {
    auto help = helpFor(*app, split->help);
    if (!help)
      return help.takeError();
    line.command = Command::Help;
    line.help = std::move(*help);
    return line;
  }
  line.problem = missingCommand(*split);
  if (!line.problem.empty()) {
    line.help = helpOf(*split->command);
    return line;
  }
  try {
    std::vector<std::string> reversed(split->cli.rbegin(), split->cli.rend());
    app->parse(reversed); // CLI11 takes its vector in reverse order
  } catch (const CLI::Success& success) {
    std::ostringstream out, err;
    app->exit(success, out, err);
    line.command = Command::Help;
    line.help = out.str();
    return line;
  } catch (const CLI::ParseError& error) {
    return usageError(std::string(error.what()) + " (run '" + commandPath(*split->command) +
                      " --help' for usage)");
  }

  struct Reader {
    const char* name;
    Command command;
    SourceOptions* sources;
    BuildOptions* build;
  } readers[] = {{"inspect", Command::Inspect, &line.inspect.sources, nullptr},
                 {"check", Command::Check, &line.check, nullptr},
                 {"build", Command::Build, &line.build.sources, &line.build},
                 {"verify", Command::Verify, nullptr, nullptr},
                 {"completion", Command::Completion, nullptr, nullptr},
                 {"cache", Command::Cache, nullptr, nullptr}};
  for (const Reader& reader : readers) {
    if (!app->get_subcommand(reader.name)->parsed())
      continue;
    line.command = reader.command;
    if (reader.command == Command::Completion) {
      std::string problem;
      TargetWords targets = completionTargets(problem);
      if (!problem.empty())
        printToolMessage(MessageKind::Warning,
                         problem + "; the script completes no GPU targets but native, all and "
                                   "all-major");
      line.help = completionScript(commandReference(*app), line.completionShell, targets);
    }
    if (!reader.sources)
      return line;
    if (llvm::Error error = screenParseArguments(split->clang))
      return error;
    reader.sources->frontend.extraArgs = split->clang;
    if (llvm::Error error = applyNvccOptions(split->nvcc, *reader.sources, reader.build)) {
      // The build's own mistakes too, all in one run (they do not depend on nvcc's options).
      if (reader.build)
        error = llvm::joinErrors(std::move(error), checkRequest(*reader.build));
      return error;
    }
    return line;
  }
  if (line.command == Command::None) {
    line.problem = "no command given (run 'tlc --help' for usage)";
    line.help = app->help();
  }
  return line;
}

} // namespace tlc
