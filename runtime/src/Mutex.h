// A mutex straight over pthread's. std::mutex::lock reports a failure by throwing from inside
// libstdc++, and that one reference was most of what tied every libNAME.so to libstdc++: with
// the runtime free of it, the link of a library needs only libc and takes half the time.
#pragma once

#include <pthread.h>

namespace tlc::runtime {

class Mutex {
public:
  // Constant-initialised, so a global one is ready before any constructor runs.
  constexpr Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  // A default mutex fails to lock only when misused (EDEADLK does not apply to the default
  // kind), which the runtime never does; std::lock_guard takes these.
  void lock() { pthread_mutex_lock(&Native); }
  void unlock() { pthread_mutex_unlock(&Native); }
  bool try_lock() { return pthread_mutex_trylock(&Native) == 0; }

private:
  pthread_mutex_t Native = PTHREAD_MUTEX_INITIALIZER;
};

} // namespace tlc::runtime
