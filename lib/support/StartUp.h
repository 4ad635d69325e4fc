// What tlc's process makes sure of before a command runs, and at its end: the limits and streams
// it inherits never decide the outcome in its place.
//   - Descriptors 0, 1 and 2 are open (on /dev/null where they were closed, as daemons and git
//     do; stdout read-only, so that a command's output still fails to be written): otherwise the
//     next file tlc opens becomes one of them, and a progress line written to "stderr" lands in
//     that file (the interrupt pipe: a build that stopped itself).
//   - SIGXFSZ is ignored: past a file size limit (ulimit -f) write() fails with EFBIG, which the
//     checked writer (support/Files.h) reports, and the build unwinds and removes its folders,
//     instead of the signal killing tlc with nothing said and everything left.
//   - A stderr that is closed or full never changes the exit code: the outputs are what counts.
#pragma once

#include "llvm/Support/Error.h"

namespace tlc {

// Opens /dev/null on any of 0-2 that is closed; ignores SIGXFSZ. First thing in main().
void prepareProcess();

// The working folder still exists; InputError saying so when it was removed (Clang's file
// system cannot work without it, and relative paths would mean nothing).
llvm::Error checkWorkingFolder();

// $TMPDIR, when set, is a folder tlc and nvcc can write to: InputError naming it otherwise,
// before a tool that would fail in its own words there ("nvcc --list-gpu-code failed") runs.
llvm::Error checkTemporaryFolder();

// Forgets a failure to write to stderr, which LLVM would otherwise turn into a fatal error and
// exit code 1 when the process ends. Last thing in main().
void forgetStderrFailure();

} // namespace tlc
