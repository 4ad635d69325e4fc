// builder/Executor: running a plan with a fake task handler: order, overlap, job slots, progress
// and what happens after a failure.
#include "builder/Executor.h"
#include "support/Error.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace {

tlc::Task task(tlc::TaskKind kind, std::string name, std::vector<size_t> after = {}) {
  tlc::Task t;
  t.kind = kind;
  t.description = std::move(name);
  t.after = std::move(after);
  return t;
}

// Records when each task starts and ends (one counter for both), how many ran at once, and can
// hold a task until another has started, or fail it.
class RecordingHandler : public tlc::TaskHandler {
public:
  llvm::Error run(const tlc::Task& task) override {
    {
      std::unique_lock<std::mutex> lock(Mutex);
      Started[task.description] = ++Clock;
      ++Running;
      MostAtOnce = std::max(MostAtOnce, Running);
      Changed.notify_all();
      auto waitFor = WaitFor.find(task.description);
      if (waitFor != WaitFor.end())
        Overlapped[task.description] = Changed.wait_for(
            lock, std::chrono::seconds(10), [&] { return Started.count(waitFor->second) > 0; });
      auto waitEnded = WaitEnded.find(task.description);
      if (waitEnded != WaitEnded.end())
        Changed.wait_for(lock, std::chrono::seconds(10),
                         [&] { return Ended.count(waitEnded->second) > 0; });
      auto linger = Linger.find(task.description);
      if (linger != Linger.end()) { // the handler is not the executor: let it see what ended
        lock.unlock();
        std::this_thread::sleep_for(linger->second);
      }
    }
    std::lock_guard<std::mutex> lock(Mutex);
    Ended[task.description] = ++Clock;
    --Running;
    Changed.notify_all();
    if (Failing.count(task.description))
      return tlc::toolchainError(task.description + " failed");
    return llvm::Error::success();
  }

  std::mutex Mutex;
  std::condition_variable Changed;
  std::map<std::string, int> Started, Ended;
  std::map<std::string, std::string> WaitFor;   // task -> task that must start while it runs
  std::map<std::string, std::string> WaitEnded; // task -> task that must end while it runs
  // task -> how long it runs on after its waits: a task that ended here has yet to be recorded
  // by the executor, in another thread, when this one returns.
  std::map<std::string, std::chrono::milliseconds> Linger;
  std::map<std::string, bool> Overlapped;
  std::set<std::string> Failing;
  int Clock = 0, Running = 0, MostAtOnce = 0;
};

tlc::BuildPlan diamond() {
  tlc::BuildPlan plan;
  plan.tasks.push_back(task(tlc::TaskKind::Parse, "parse"));
  plan.tasks[0].selfScheduled = true;
  plan.tasks.push_back(task(tlc::TaskKind::Tool, "nvcc"));
  plan.tasks.push_back(task(tlc::TaskKind::CheckImage, "check", {0, 1}));
  plan.tasks[2].counted = false;
  plan.tasks.push_back(task(tlc::TaskKind::Tool, "link", {2}));
  return plan;
}

} // namespace

TEST_CASE("independent tasks overlap and dependent ones wait", "[executor]") {
  tlc::BuildPlan plan = diamond();
  RecordingHandler handler;
  handler.WaitFor["parse"] = "nvcc"; // the parse is still running when nvcc starts
  tlc::JobSlots slots(1);            // the parse holds no slot, so nvcc gets the one
  std::vector<std::string> announced;
  std::vector<tlc::TaskFailure> failures = tlc::executePlan(
      plan, handler, slots, [&](const tlc::Task& t) { announced.push_back(t.description); });
  CHECK(failures.empty());
  CHECK(handler.Overlapped["parse"]);
  CHECK(handler.Started["check"] > handler.Ended["parse"]);
  CHECK(handler.Started["check"] > handler.Ended["nvcc"]);
  CHECK(handler.Started["link"] > handler.Ended["check"]);
  // Progress: the counted tasks only, as each starts.
  CHECK(announced.size() == plan.progressTotal());
  CHECK(std::find(announced.begin(), announced.end(), "check") == announced.end());
}

TEST_CASE("job slots bound how many tasks run at once", "[executor]") {
  tlc::BuildPlan plan;
  for (int i = 0; i < 8; ++i)
    plan.tasks.push_back(task(tlc::TaskKind::Tool, "tool " + std::to_string(i)));
  RecordingHandler handler;
  tlc::JobSlots slots(2);
  CHECK(tlc::executePlan(plan, handler, slots, nullptr).empty());
  CHECK(handler.Ended.size() == 8);
  CHECK(handler.MostAtOnce <= 2);
}

namespace {

// An nvcc compile of one input: it keeps going after another input's compile failed.
tlc::Task compile(std::string name) {
  tlc::Task t = task(tlc::TaskKind::Tool, std::move(name));
  t.step = tlc::Step();
  t.step->compilesSources = true;
  t.keepsGoing = true;
  return t;
}

// parse, nvcc a, nvcc b, nvcc c, check (after all), link.
tlc::BuildPlan threeInputs() {
  tlc::BuildPlan plan;
  plan.tasks.push_back(task(tlc::TaskKind::Parse, "parse"));
  plan.tasks[0].selfScheduled = true;
  plan.tasks[0].keepsGoing = true;
  for (const char* name : {"nvcc a", "nvcc b", "nvcc c"})
    plan.tasks.push_back(compile(name));
  plan.tasks.push_back(task(tlc::TaskKind::CheckImage, "check", {0, 1, 2, 3}));
  plan.tasks.push_back(task(tlc::TaskKind::Tool, "link", {4}));
  return plan;
}

std::vector<size_t> failedTasks(std::vector<tlc::TaskFailure>& failures) {
  std::vector<size_t> tasks;
  for (tlc::TaskFailure& failure : failures) {
    tasks.push_back(failure.task);
    llvm::consumeError(std::move(failure.error));
  }
  std::sort(tasks.begin(), tasks.end());
  return tasks;
}

} // namespace

TEST_CASE("after a compile fails, every other input's compile still runs, and nothing else",
          "[executor]") {
  // Issue 36: one slot, so the other compiles wait for it while the first fails; they used to
  // be skipped, and which input's errors a build showed depended on which ran first.
  tlc::BuildPlan plan = threeInputs();
  RecordingHandler handler;
  handler.Failing = {"nvcc a", "nvcc b", "nvcc c"};
  tlc::JobSlots slots(1);
  std::vector<tlc::TaskFailure> failures = tlc::executePlan(plan, handler, slots, nullptr);
  CHECK(failedTasks(failures) == std::vector<size_t>{1, 2, 3});
  CHECK(handler.Started.count("parse") == 1);
  CHECK(handler.Started.count("check") == 0);
  CHECK(handler.Started.count("link") == 0);
}

// x and nvcc a side by side, then nvcc b once a has succeeded: with x failing while a runs, b
// becomes ready only after x failed.
tlc::BuildPlan afterAFailure(bool xCompiles) {
  tlc::BuildPlan plan;
  plan.tasks.push_back(xCompiles ? compile("x") : task(tlc::TaskKind::Tool, "x"));
  plan.tasks.push_back(compile("nvcc a"));
  plan.tasks.push_back(compile("nvcc b"));
  plan.tasks[2].after = {1};
  return plan;
}

TEST_CASE("after another task fails, no compile starts", "[executor]") {
  // The parse's errors are the sources' (nvcc's would repeat them); any other failure is the
  // build's. Either ends it: only a compile's failure lets the other compiles go on.
  for (bool xCompiles : {false, true}) {
    tlc::BuildPlan plan = afterAFailure(xCompiles);
    RecordingHandler handler;
    handler.Failing = {"x"};
    handler.WaitFor["x"] = "nvcc a"; // x fails once nvcc a runs
    handler.WaitEnded["nvcc a"] = "x";
    handler.Linger["nvcc a"] = std::chrono::milliseconds(200); // x's failure recorded first
    tlc::JobSlots slots(2);
    std::vector<tlc::TaskFailure> failures = tlc::executePlan(plan, handler, slots, nullptr);
    CHECK(failedTasks(failures) == std::vector<size_t>{0});
    CHECK(handler.Started.count("nvcc a") == 1);
    INFO("x compiles the sources: " << xCompiles);
    CHECK(handler.Started.count("nvcc b") == (xCompiles ? 1u : 0u));
  }
}

TEST_CASE("after a failure nothing new starts and the failure is returned", "[executor]") {
  tlc::BuildPlan plan = diamond();
  RecordingHandler handler;
  handler.Failing.insert("nvcc");
  tlc::JobSlots slots(2);
  std::vector<tlc::TaskFailure> failures = tlc::executePlan(plan, handler, slots, nullptr);
  REQUIRE(failures.size() == 1);
  CHECK(failures[0].task == 1);
  CHECK(llvm::toString(std::move(failures[0].error)) == "nvcc failed");
  CHECK(handler.Started.count("check") == 0);
  CHECK(handler.Started.count("link") == 0);
}

namespace {

// make's jobserver as the executor meets it: a pool of tokens, counted as they come and go.
class CountingTokens : public tlc::TokenSource {
public:
  explicit CountingTokens(int tokens) : Free(tokens) {}
  Taken take() override {
    std::unique_lock<std::mutex> lock(Mutex);
    Changed.wait(lock, [&] { return Free > 0 || Woken; });
    if (Woken) {
      Woken = false;
      return {Taken::Woken};
    }
    --Free;
    ++Out;
    MostOut = std::max(MostOut, Out);
    return {Taken::Token, '+'};
  }
  void give(unsigned char) override {
    std::lock_guard<std::mutex> lock(Mutex);
    ++Free;
    --Out;
    Changed.notify_all();
  }
  void wake() override {
    std::lock_guard<std::mutex> lock(Mutex);
    Woken = true;
    Changed.notify_all();
  }
  std::mutex Mutex;
  std::condition_variable Changed;
  int Free, Out = 0, MostOut = 0;
  bool Woken = false;
};

} // namespace

TEST_CASE("under a jobserver the tasks beyond the first hold its tokens", "[executor][jobs]") {
  tlc::BuildPlan plan;
  for (int i = 0; i < 12; ++i)
    plan.tasks.push_back(task(tlc::TaskKind::Tool, "tool " + std::to_string(i)));
  RecordingHandler handler;
  CountingTokens tokens(2);
  tlc::JobSlots slots(8, &tokens); // -j 8, but make's -j3: the own slot and two tokens
  CHECK(tlc::executePlan(plan, handler, slots, nullptr).empty());
  CHECK(handler.Ended.size() == 12);
  CHECK(handler.MostAtOnce <= 3);
  CHECK(tokens.MostOut <= 2);
  CHECK(tokens.Out == 0);
  CHECK(tokens.Free == 2);
}

TEST_CASE("a failed build gives every token back", "[executor][jobs]") {
  tlc::BuildPlan plan;
  for (int i = 0; i < 6; ++i)
    plan.tasks.push_back(task(tlc::TaskKind::Tool, "tool " + std::to_string(i)));
  plan.tasks.push_back(task(tlc::TaskKind::Tool, "after", {0, 1, 2, 3, 4, 5}));
  RecordingHandler handler;
  handler.Failing = {"tool 1", "tool 4"};
  CountingTokens tokens(3);
  tlc::JobSlots slots(4, &tokens);
  std::vector<tlc::TaskFailure> failures = tlc::executePlan(plan, handler, slots, nullptr);
  CHECK(!failures.empty());
  for (tlc::TaskFailure& failure : failures)
    llvm::consumeError(std::move(failure.error));
  CHECK(handler.Started.count("after") == 0);
  CHECK(slots.running() == 0);
  CHECK(tokens.Out == 0);
  CHECK(tokens.Free == 3);
}
