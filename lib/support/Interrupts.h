// Ending on an interrupt (SIGINT, SIGTERM, SIGHUP, SIGQUIT): what tlc must undo first (its
// staging folder, the jobserver tokens it holds) runs from one set of handlers, which then end
// the process as the signal says, so that make and shells report the signal as they would
// without tlc's handlers.
//
// Not llvm::sys::SetInterruptFunction: LLVM's handler returns after calling that function, so the
// process goes on after an interrupt (and fails on its removed staging folder, exit status 1).
#pragma once

#include <csignal>

namespace tlc {

using InterruptCleanup = void (*)();

// Adds `cleanup` (called from a signal handler: it must be async-signal-safe as far as it can
// be) and installs the handlers at the first call, for each signal that was neither ignored (nohup,
// a background job) nor handled by someone else at that time. At most a few cleanups; each is
// added once.
void onInterrupt(InterruptCleanup cleanup);

// The interrupt signals, for code that must block them around a step a handler must not cut.
sigset_t interruptSignals();

} // namespace tlc
