// The job slot pool: a local limit, and a token for every job beyond the process's first.
#include "support/Jobs.h"

namespace tlc {

JobSlots::JobSlots(unsigned limit, TokenSource* tokens) : Limit(limit ? limit : 1), Tokens(tokens) {
}

JobSlots::~JobSlots() {
  // Every SlotGuard is gone by now; a token still held would be lost to the whole build.
  std::lock_guard<std::mutex> lock(Mutex);
  for (unsigned char token : Held)
    Tokens->give(token);
}

void JobSlots::acquire() {
  std::unique_lock<std::mutex> lock(Mutex);
  while (true) {
    if (Running < Limit) {
      // The slot the process was started with needs no token.
      if (Running == 0 || !Tokens) {
        ++Running;
        return;
      }
      // One thread waits on the token source; the others wait for it here.
      if (!Waiting) {
        Waiting = true;
        lock.unlock();
        TokenSource::Taken taken = Tokens->take();
        lock.lock();
        Waiting = false;
        Changed.notify_all();
        if (taken.kind == TokenSource::Taken::Closed) {
          // The jobserver went away (make died): the local limit is all there is now.
          Tokens = nullptr;
          Held.clear();
          continue;
        }
        if (taken.kind == TokenSource::Taken::Token) {
          if (Running == 0 || Running >= Limit) {
            // The own slot came free while this thread waited: the token is not needed.
            Tokens->give(taken.token);
            continue;
          }
          Held.push_back(taken.token);
          ++Running;
          return;
        }
        continue; // woken: look again
      }
    }
    Changed.wait(lock);
  }
}

void JobSlots::release() {
  std::lock_guard<std::mutex> lock(Mutex);
  --Running;
  if (!Held.empty()) {
    Tokens->give(Held.back());
    Held.pop_back();
  } else if (Waiting && Tokens) {
    Tokens->wake(); // the own slot is free: the waiting thread takes it instead of a token
  }
  Changed.notify_all();
}

unsigned JobSlots::running() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Running;
}

size_t JobSlots::tokensHeld() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Held.size();
}

} // namespace tlc
