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

#include <string>

namespace tlc {

// runCommand(argv), or the answer remembered for it. `argv[0]` is the tool (a path). Failures
// (a non-zero exit, a signal) are returned as they are and never remembered.
llvm::Expected<CommandResult> runProbe(llvm::ArrayRef<std::string> argv);

// Where the answers are kept: <the build cache>/probes; "" when the memo is off.
std::string probeMemoDir();

} // namespace tlc
