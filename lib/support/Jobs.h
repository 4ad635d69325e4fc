// Bounding parallel work (`-j`): Clang parses and external tool runs draw from one pool of slots,
// so `-j N` means at most N of them at once, whichever kind they are. Under a make jobserver
// (support/Jobserver.h) the pool also holds one of make's tokens for each job beyond the
// process's first, so that all the processes of one build together keep to make's `-j`.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tlc {

// Where the jobs beyond a process's first get their tokens: make's jobserver, or a fake in tests.
// take() waits until a token comes, until wake() (called from another thread) says to stop
// waiting, or until the source is gone; give() hands a token back.
class TokenSource {
public:
  struct Taken {
    enum Kind { Token, Woken, Closed } kind;
    unsigned char token = 0;
  };
  virtual ~TokenSource() = default;
  virtual Taken take() = 0;
  virtual void give(unsigned char token) = 0;
  virtual void wake() = 0;
};

// At most `limit` jobs at once. With a token source, the first job runs on the slot the process
// was started with and every further one holds a token while it runs; a token is given back as
// soon as its job ends, so the process holds exactly (jobs running - 1) tokens at any time.
class JobSlots {
public:
  explicit JobSlots(unsigned limit, TokenSource* tokens = nullptr);
  ~JobSlots();
  JobSlots(const JobSlots&) = delete;
  JobSlots& operator=(const JobSlots&) = delete;

  void acquire();
  void release();

  unsigned running() const;
  size_t tokensHeld() const;

private:
  mutable std::mutex Mutex;
  std::condition_variable Changed;
  const unsigned Limit;
  TokenSource* Tokens;
  unsigned Running = 0;
  std::vector<unsigned char> Held; // tokens taken for the jobs running beyond the first
  bool Waiting = false;            // a thread waits in Tokens->take() (one at a time)
};

// Holds a slot for the lifetime of the object.
class SlotGuard {
public:
  explicit SlotGuard(JobSlots& slots) : Slots(slots) { Slots.acquire(); }
  ~SlotGuard() { Slots.release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

private:
  JobSlots& Slots;
};

// Runs each task on its own thread (tasks are coarse: a parse, an nvcc run) and waits for all.
// Tasks take slots themselves where they do bounded work.
inline void runConcurrently(std::vector<std::function<void()>> tasks) {
  std::vector<std::thread> threads;
  threads.reserve(tasks.size());
  for (auto& task : tasks)
    threads.emplace_back(std::move(task));
  for (std::thread& thread : threads)
    thread.join();
}

} // namespace tlc
