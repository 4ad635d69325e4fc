// Compilation databases (compile_commands.json), both ways:
//  - read (`-p BUILD_DIR`, `--compile-commands FILE`): each input's nvcc command line as the build
//    system wrote it, routed by nvcc's option table (NvccOptions.h): what Clang needs to parse
//    the same code (include paths, macros, the language standard, the macros nvcc defines for
//    its options), what nvcc should keep (everything that shapes device code), the archs it
//    targets; what tlc decides (the mode, the output) and whatever would write outside the
//    build (dependency files, kept temporaries, the host compiler's -o) is dropped;
//  - written (`--compile-commands-out FILE`): each input's Clang parse, for clangd.
#pragma once

#include "frontend/Frontend.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tlc {

struct InputFlags {
  std::vector<std::string> clang; // -I, -isystem, -D, -U, -include, -std, with paths absolute
  std::vector<std::string> nvcc;  // the command without what tlc decides (-c, -o, targets, ...)
  // The targets, in tlc's --arch / --gencode language (toolchain/GpuTargets.h): -arch values as
  // they are, -gencode specs as they are, and -arch X -code Y as the gencode it means.
  std::vector<std::string> archs;
  std::vector<std::string> gencodes;
  bool relocatable = false;         // -rdc=true or -dc: relocatable device code
  std::vector<std::string> dropped; // what was dropped and why, for -v: "'-o k.o' (...)"
};

// Splits one nvcc command line (argv[0] first) run in `directory` for `input`.
InputFlags translateNvccCommand(const std::vector<std::string>& command,
                                const std::string& directory, const std::string& input);

// The largest compilation database tlc reads: a project of 100000 files writes some 100 MiB.
constexpr uint64_t kCompileDatabaseReadLimit = uint64_t(1) << 30;

// The flags of every input from compile_commands.json at `path`; InputError if the database
// cannot be read (not a regular file, larger than the limit, not JSON: with its line and
// column), or has no entry for an input.
llvm::Expected<std::map<std::string, InputFlags>>
flagsFromCompileDatabase(const std::string& path, const std::vector<std::string>& inputs);

// The compatibility header written beside the database `path`: `path` without `.json`, then
// `.tlc_nvcc_compat.h`, made absolute.
std::string compileDatabaseCompatHeader(const std::string& path);

// Whether writeCompileDatabase may replace what is at `path` and beside it: nothing, or a
// regular file (through links) that tlc could have written there: a compilation database (a
// JSON list) or an empty file, and beside it the compatibility header. Anything else is
// refused (a FIFO or device: InputError, as the writer would; a file of the user's, a header
// the build is about to read say: UsageError naming it), before anything is written.
llvm::Error checkCompileDatabaseOut(const std::string& path);

// Writes a compilation database at `path` with one entry per input: `directory` the working
// folder, `file` the input's absolute path, `arguments` the Clang parse tlc runs on it
// (editorCommandLine()); then one per header of the user's the inputs include, with the command
// of the input that includes it, the header in the input's place, so that clangd parses a
// shared header as CUDA, never with a command it would infer from the nearest file (a C file's,
// `-x c-header`). `headers`: header -> input (Analysis::userHeaders), known after the parse;
// nullptr (before it) keeps the headers the database at `path` lists already, each with the first
// input's command. The compatibility header the entries force-include is written beside it
// (`<path without .json>.tlc_nvcc_compat.h`) first. Each file is replaced atomically and only
// when its content changes, after checkCompileDatabaseOut; InputError if one cannot be
// written.
llvm::Error writeCompileDatabase(const std::string& path, const std::vector<std::string>& inputs,
                                 const FrontendOptions& options, const CudaToolkit& toolkit,
                                 const std::map<std::string, std::string>* headers = nullptr);

} // namespace tlc
