// Bounding parallel work (`-j`): Clang parses and external tool runs draw from one pool of slots,
// so `-j N` means at most N of them at once, whichever kind they are.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tlc {

class JobSlots {
public:
  explicit JobSlots(unsigned count) : Free(count ? count : 1) {}

  void acquire() {
    std::unique_lock<std::mutex> lock(Mutex);
    Available.wait(lock, [&] { return Free > 0; });
    --Free;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(Mutex);
      ++Free;
    }
    Available.notify_one();
  }

private:
  std::mutex Mutex;
  std::condition_variable Available;
  unsigned Free;
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
