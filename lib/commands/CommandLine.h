// tlc's command line. Two definitions describe it: the CLI11 app (makeApp: the commands and tlc's
// own options) and nvcc's option table (frontend/NvccOptions.h: nvcc's options, which
// `inspect`, `check` and `build` take in nvcc's spellings). parseCommandLine reads arguments with
// both; --help, the man pages and shell completion (commands/CommandReference.h) are made from
// the same two.
//
// Where an nvcc spelling is also tlc's, tlc's meaning wins: `-o` names tlc's output folder, `-v`
// shows every command tlc runs, `--std` is checked against the dialects tlc parses.
#pragma once

#include "commands/Commands.h"
#include "support/Terminal.h"

#include <CLI/CLI.hpp>

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tlc {

enum class Command { None, Help, Version, Inspect, Check, Build, Verify, Cache, Completion };

// What the command line asks for, in the option records of Commands.h.
struct CommandLine {
  Command command = Command::None;
  InspectOptions inspect;
  SourceOptions check;
  BuildOptions build;
  VerifyOptions verify;
  CacheOptions cache;
  std::string versionCudaPath;           // --version --cuda-path DIR
  ColorChoice color = ColorChoice::Auto; // --color, of the commands that print diagnostics
  std::string completionShell;           // completion SHELL
  // Help, Completion: the text to print (`--help`, `tlc help [--man] [COMMAND]`, the completion
  // script); None: the usage to show after `problem`.
  std::string help;
  std::string problem; // None: the usage error, "no command given" unless a command lacks its own
};

// tlc's CLI11 app with every command and tlc's own options, bound to `into`.
std::unique_ptr<CLI::App> makeApp(CommandLine& into);

// Reads tlc's arguments (argv without argv[0]). UsageError on a mistake, with "did you mean"
// for a mistyped command or option.
llvm::Expected<CommandLine> parseCommandLine(const std::vector<std::string>& args);

// Whether `command` reads sources (inspect, check, build): it takes nvcc's options and `-- ARGS`.
bool readsSources(const CLI::App& command);

struct NvccOption;
// Whether tlc refuses `option` on its command line: tlc decides it, or it writes outside the build.
bool isRefused(const NvccOption& option);
// The nvcc options tlc refuses, as --help and the man pages name them.
std::vector<std::string> refusedNvccSpellings();

// The help's list of the nvcc options `inspect`, `check` and `build` take, from the table.
std::string nvccOptionsHelp();

} // namespace tlc
