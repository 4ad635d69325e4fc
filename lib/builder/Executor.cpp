// The build plan's scheduler: threads per task, job slots, stop at the first failure (but for the
// tasks that read the user's sources).
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
      for (size_t i = 0; i < Plan.tasks.size(); ++i)
        if (States[i] == State::Waiting && ready(i) && mayStart(i)) {
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
      if (!stopped(index)) {
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
    if (error) {
      Failures.push_back({index, std::move(error)});
      // The parse's errors are the sources' (nvcc's would repeat them), any other failure the
      // build's: either ends the build.
      if (!(task.step && task.step->compilesSources))
        Halted = true;
    }
    --Running;
    Changed.notify_all();
  }

  // After a failure, nothing new starts but the tasks that read the user's sources, and only
  // while every failure is an nvcc compile's: one build reports every input's errors. Each of
  // those is bounded as ever (--tool-timeout; the parse's own errors stop the tools). Once tlc is
  // interrupted, nothing starts. Called with Mutex held.
  bool mayStart(size_t index) const {
    if (interrupted() || Halted)
      return false;
    return Failures.empty() || Plan.tasks[index].keepsGoing;
  }

  bool stopped(size_t index) {
    std::lock_guard<std::mutex> lock(Mutex);
    return !mayStart(index);
  }

  const BuildPlan& Plan;
  TaskHandler& Handler;
  JobSlots& Slots;
  const TaskAnnouncer& Announce;
  std::mutex Mutex;
  std::condition_variable Changed;
  std::vector<State> States;
  std::vector<TaskFailure> Failures;
  bool Halted = false; // a task other than a compile of the sources failed
  unsigned Running = 0;
};

} // namespace

std::vector<TaskFailure> executePlan(const BuildPlan& plan, TaskHandler& handler, JobSlots& slots,
                                     const TaskAnnouncer& announce) {
  return Scheduler(plan, handler, slots, announce).run();
}

} // namespace tlc
