// Running a build plan: a task starts once every task it waits for has succeeded, on a thread of
// its own, and holds one of the `-j` job slots while it runs (the parse takes one per input
// instead). After a failure nothing new starts but the tasks that keep going (Task::keepsGoing:
// the parse and each input's nvcc compile, whose errors the build reports together), and those
// only while every failure is one of theirs; after an interrupt (support/Interrupts.h) nothing
// starts. The tasks already running finish (an interrupt stops their tools), and every failure
// is handed back for the caller to choose what to report.
#pragma once

#include "builder/BuildPlan.h"
#include "support/Jobs.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <vector>

namespace tlc {

// What a task does; the build supplies one, tests a fake.
class TaskHandler {
public:
  virtual ~TaskHandler() = default;
  virtual llvm::Error run(const Task& task) = 0;
};

struct TaskFailure {
  size_t task; // index into the plan
  llvm::Error error;
};

// Called with each counted task as it starts (the build prints its [n/N] progress line), never
// from two threads at once.
using TaskAnnouncer = std::function<void(const Task&)>;

// Runs `plan`; returns the failures in the order they happened (none: everything succeeded).
std::vector<TaskFailure> executePlan(const BuildPlan& plan, TaskHandler& handler, JobSlots& slots,
                                     const TaskAnnouncer& announce);

} // namespace tlc
