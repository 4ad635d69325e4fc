// Stopping a build on SIGINT, SIGTERM, SIGHUP or SIGQUIT. While an InterruptScope lives, the first
// signal is recorded, every child process group tlc started is terminated (support/Process.h) and
// no new one starts; the build then unwinds through its ordinary error path, removing what it made,
// and tlc exits 128 + the signal's number (130 for SIGINT, 143 for SIGTERM). Work that cannot be
// stopped (the in-process Clang parse) gets a grace period: if the build has not unwound by then,
// or a second signal comes, the paths registered as Temporaries are removed and the process exits
// at once, with the same code.
#pragma once

#include "llvm/Support/Error.h"

#include <csignal>
#include <string>

namespace tlc {

// True once a signal arrived inside an InterruptScope.
bool interrupted();

// The ToolError for the signal that arrived (exit code 130 or 143); success if none did.
llvm::Error interruptedError();

// Installs the handlers for its lifetime; one at a time (the build's).
class InterruptScope {
public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// A path tlc made and removes itself on every ordinary way out; registered so that a forced
// exit (second signal, grace period over) removes it too. Folders are removed with their
// contents.
class Temporary {
public:
  explicit Temporary(std::string path);
  ~Temporary(); // unregisters; does not remove
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

private:
  std::string Path;
};

// What must be handed back however tlc ends (the jobserver tokens it holds): `cleanup` runs when a
// signal ends tlc without unwinding, that is at a forced exit inside an InterruptScope, and
// outside one from handlers installed at the first call, which then end the process as the
// signal says (for each signal neither ignored nor handled by someone else at that time).
// Called from a signal handler: it must be async-signal-safe. At most a few; each added once.
using InterruptCleanup = void (*)();
void onInterrupt(InterruptCleanup cleanup);

// The interrupt signals, for code that must block them around a step a handler must not cut.
sigset_t interruptSignals();

} // namespace tlc
