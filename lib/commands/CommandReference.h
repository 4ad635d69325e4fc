// tlc's commands and options as data, read from the CLI11 app (makeApp) and nvcc's option table
// (frontend/NvccOptions.h): what the man pages and the shell completion scripts are made from, so
// that neither lists an option of its own.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace tlc {

// What an option's value is, for completion: which words to offer.
enum class ValueKind {
  None,    // a flag
  Folder,  // a folder
  File,    // a file
  Program, // a command on PATH
  Arch,    // a GPU target: sm_XX[a|f], compute_XX[a|f], native, all, all-major
  Gencode, // a --gencode spec: arch=compute_XX,code=sm_XX
  Choice,  // one of `choices`
  Other,   // anything else: nothing to offer
};

struct OptionEntry {
  std::vector<std::string> spellings; // with their dashes: "-o", "--output"; nvcc's "-arch"
  std::string placeholder;            // the value's name in the synopsis: "DIR"; empty for a flag
  std::string description;
  ValueKind kind = ValueKind::None;
  std::vector<std::string> choices; // Choice: the values taken
  bool repeatable = false;
};

struct CommandEntry {
  std::vector<std::string> path; // {"tlc", "cache", "prune"}; {"tlc"} for the top
  std::string description;
  std::vector<OptionEntry> options;     // tlc's own, as CLI11 has them (with -h, --help)
  std::vector<OptionEntry> nvccOptions; // nvcc's that this command takes, in nvcc's spellings
  std::vector<std::string> nvccRefused; // nvcc's options it refuses (tlc decides them)
  std::vector<OptionEntry> positionals; // "files", "outdir": placeholder is the name
  std::vector<std::string> commands;    // the names of its commands, in the app's order
  bool takesClangArguments = false;     // `-- ARGS` go to Clang

  std::string name() const; // "tlc cache prune"
};

// Every visible command of `root` (the app makeApp returns), the top first, each before its
// own commands.
std::vector<CommandEntry> commandReference(const CLI::App& root);

// The man page of `command` (the top or one of its commands; their own commands are sections of
// it): roff for man(1), named tlc(1), tlc-build(1), ... The top's SEE ALSO names every other page.
std::string manPage(const std::vector<CommandEntry>& reference, const CommandEntry& command);

// The man page's name of `command`: "tlc", "tlc-build".
std::string manPageName(const CommandEntry& command);

// The shells `tlc completion` writes a script for.
const std::vector<std::string>& completionShells();

// The words completion offers for GPU targets: the names tlc checks --arch and --gencode against
// (toolchain/GpuTargets.h: targetNames, gencodeForms), from the toolkit's nvcc.
struct TargetWords {
  std::vector<std::string> archs;    // --arch, -arch, -code
  std::vector<std::string> gencodes; // --gencode, -gencode
};

// The target words of the toolkit tlc finds as a build would (CUDA_PATH, ...); without one, only
// native, all and all-major, and `problem` says why.
TargetWords completionTargets(std::string& problem);

// The completion script for `shell` (one of completionShells()).
std::string completionScript(const std::vector<CommandEntry>& reference, const std::string& shell,
                             const TargetWords& targets);

} // namespace tlc
