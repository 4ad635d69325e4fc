// Asking a tool about itself once per tool: `nvcc --version`, `nvcc --list-gpu-arch` and
// `--list-gpu-code`, `c++ -print-file-name=include` answer the same for as long as the tool is the
// same file, yet every tlc run needed them (four processes, half of a cache hit's time). A
// successful answer is kept in the build cache's folder (probes/), under a name made of the
// command and the tool's identity: its real path, device, inode, size and modification time
// (ccache's compiler_check=mtime). A tool upgraded, replaced or touched is another identity and
// is asked again. The memo is used only in a folder of the user's own that no one else may write
// to, as the build cache is; TLC_DISABLE_CACHE turns it off.
#pragma once

#include "support/Process.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace tlc {

// runCommand(argv, options), or the answer remembered for it. `argv[0]` is the tool (a path).
// `alsoDependsOn` names what else the answer depends on (another tool's toolIdentity, an
// environment variable's value); an empty string among them means "cannot tell": no memo then.
// Only standard output is remembered. Failures (a non-zero exit, a signal, a probe stopped after
// its time) are returned as they are and never remembered.
llvm::Expected<CommandResult> runProbe(llvm::ArrayRef<std::string> argv,
                                       const RunOptions& options = {},
                                       llvm::ArrayRef<std::string> alsoDependsOn = {});

// How long a probe that runs may take before it is stopped and fails (a tool that never answers
// its `--version`, a hung network file system): kDefaultProbeSeconds unless a build's
// --tool-timeout is shorter (setProbeTimeout, 0 leaving the default).
constexpr unsigned kDefaultProbeSeconds = 60;
void setProbeTimeout(unsigned seconds);
unsigned probeTimeout();

// The pieces of runProbe, for a probe that needs set-up only when it really runs: the memo's
// file for the command ("" when there is none), what it remembers, and keeping an answer.
std::string probeMemoFile(llvm::ArrayRef<std::string> argv,
                          llvm::ArrayRef<std::string> alsoDependsOn = {});
std::optional<std::string> recallProbe(const std::string& memoFile);
void rememberProbe(const std::string& memoFile, const CommandResult& result);

// A tool's identity as the memo keys it: real path, device, inode, size, modification time;
// "" when the file cannot be read.
std::string toolIdentity(const std::string& tool);

// Where the answers are kept: <the build cache>/probes; "" when the memo is off.
std::string probeMemoDir();

} // namespace tlc
