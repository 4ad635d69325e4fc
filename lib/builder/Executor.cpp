// The build plan's scheduler: threads per task, job slots, stop at the first failure.
#include "builder/Executor.h"

#include "support/Interrupts.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace tlc {

namespace {

enum class State { Waiting, Running, Succeeded, Failed, Skipped };

class Scheduler {
public:
  Scheduler(const BuildPlan& plan, TaskHandler& handler, JobSlots& slots,
            const TaskAnnouncer& announce)
      : Plan(plan), Handler(handler), Slots(slots), Announce(announce),
        States(plan.tasks.size(), State::Waiting) {}

  std::vector<TaskFailure> run() {
    std::vector<std::thread> threads;
    std::unique_lock<std::mutex> lock(Mutex);
    while (true) {
      if (Failures.empty() && !interrupted())
        for (size_t i = 0; i < Plan.tasks.size(); ++i)
          if (States[i] == State::Waiting && ready(i)) {
            States[i] = State::Running;
            ++Running;
            threads.emplace_back([this, i] { execute(i); });
          }
      if (Running == 0)
        break;
      Changed.wait(lock);
    }
    lock.unlock();
    for (std::thread& thread : threads)
      thread.join();
    return std::move(Failures);
  }

private:
  bool ready(size_t index) const {
    for (size_t before : Plan.tasks[index].after)
      if (States[before] != State::Succeeded)
        return false;
    return true;
  }

  void execute(size_t index) {
    const Task& task = Plan.tasks[index];
    llvm::Error error = llvm::Error::success();
    {
      std::optional<SlotGuard> slot;
      if (!task.selfScheduled)
        slot.emplace(Slots);
      if (!stopped()) {
        if (task.counted && Announce) {
          std::lock_guard<std::mutex> lock(Mutex); // announcements come one at a time
          Announce(task);
        }
        error = Handler.run(task);
      } else {
        std::lock_guard<std::mutex> lock(Mutex);
        States[index] = State::Skipped; // a failure elsewhere came first
      }
    }
    std::lock_guard<std::mutex> lock(Mutex);
    if (States[index] == State::Running)
      States[index] = error ? State::Failed : State::Succeeded;
    if (error)
      Failures.push_back({index, std::move(error)});
    --Running;
    Changed.notify_all();
  }

  // After a failure, or once tlc is interrupted, nothing new starts.
  bool stopped() {
    std::lock_guard<std::mutex> lock(Mutex);
    return !Failures.empty() || interrupted();
  }

  const BuildPlan& Plan;
  TaskHandler& Handler;
  JobSlots& Slots;
  const TaskAnnouncer& Announce;
  std::mutex Mutex;
  std::condition_variable Changed;
  std::vector<State> States;
  std::vector<TaskFailure> Failures;
  unsigned Running = 0;
};

} // namespace

std::vector<TaskFailure> executePlan(const BuildPlan& plan, TaskHandler& handler, JobSlots& slots,
                                     const TaskAnnouncer& announce) {
  return Scheduler(plan, handler, slots, announce).run();
}

} // namespace tlc
