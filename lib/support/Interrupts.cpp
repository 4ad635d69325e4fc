// The interrupt handlers: the registered cleanups, then the signal's default action.
#include "support/Interrupts.h"

#include <atomic>
#include <cstring>
#include <mutex>

namespace tlc {

namespace {

const int Signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

std::atomic<InterruptCleanup> Cleanups[4];

void endOnInterrupt(int signal) {
  for (std::atomic<InterruptCleanup>& slot : Cleanups)
    if (InterruptCleanup cleanup = slot.exchange(nullptr))
      cleanup();
  ::signal(signal, SIG_DFL);
  ::raise(signal); // delivered when the handler returns: the signal is blocked while it runs
}

void installHandlers() {
  for (int signal : Signals) {
    struct sigaction current;
    if (sigaction(signal, nullptr, &current) != 0)
      continue;
    if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL)
      continue;
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = endOnInterrupt;
    sigemptyset(&action.sa_mask);
    for (int other : Signals) // one handler at a time: the cleanups run once
      sigaddset(&action.sa_mask, other);
    sigaction(signal, &action, nullptr);
  }
}

} // namespace

void onInterrupt(InterruptCleanup cleanup) {
  static std::once_flag installed;
  std::call_once(installed, installHandlers);
  for (std::atomic<InterruptCleanup>& slot : Cleanups) {
    InterruptCleanup expected = nullptr;
    if (slot.load() == cleanup || slot.compare_exchange_strong(expected, cleanup))
      return;
  }
}

sigset_t interruptSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : Signals)
    sigaddset(&set, signal);
  return set;
}

} // namespace tlc
