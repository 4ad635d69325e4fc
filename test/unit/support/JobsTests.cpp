// support/Jobs: the job slot pool, alone and over a token source (a fake one here; make's pipe in
// JobserverTests.cpp): how many jobs run, which need a token, and that every token comes back.
#include "support/Jobs.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <future>

namespace {

// A token source with a fixed pool, as make's pipe holds one; take() waits like the pipe does.
class FakeTokens : public tlc::TokenSource {
public:
  explicit FakeTokens(std::string tokens) : Pool(tokens.begin(), tokens.end()) {}

  Taken take() override {
    std::unique_lock<std::mutex> lock(Mutex);
    ++Waits;
    Changed.wait(lock, [&] { return !Pool.empty() || Woken || Closed; });
    if (Closed)
      return {Taken::Closed};
    if (Woken) {
      Woken = false;
      return {Taken::Woken};
    }
    unsigned char token = Pool.front();
    Pool.pop_front();
    return {Taken::Token, token};
  }
  void give(unsigned char token) override {
    std::lock_guard<std::mutex> lock(Mutex);
    Pool.push_back(token);
    Given.push_back(token);
    Changed.notify_all();
  }
  void wake() override {
    std::lock_guard<std::mutex> lock(Mutex);
    Woken = true;
    Changed.notify_all();
  }
  void close() {
    std::lock_guard<std::mutex> lock(Mutex);
    Closed = true;
    Changed.notify_all();
  }
  size_t inPool() {
    std::lock_guard<std::mutex> lock(Mutex);
    return Pool.size();
  }
  int waits() {
    std::lock_guard<std::mutex> lock(Mutex);
    return Waits;
  }

  std::vector<unsigned char> Given;

private:
  std::mutex Mutex;
  std::condition_variable Changed;
  std::deque<unsigned char> Pool;
  bool Woken = false, Closed = false;
  int Waits = 0;
};

// Waits until `condition` holds or a generous deadline passes (a hung test fails, never hangs).
template <typename Condition> bool eventually(Condition condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

} // namespace

TEST_CASE("without a token source the limit alone bounds the jobs", "[jobs]") {
  tlc::JobSlots slots(2);
  slots.acquire();
  slots.acquire();
  CHECK(slots.running() == 2);
  auto third = std::async(std::launch::async, [&] { slots.acquire(); });
  CHECK(third.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  slots.release();
  REQUIRE(third.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(slots.running() == 2);
  slots.release();
  slots.release();
  CHECK(slots.running() == 0);
}

TEST_CASE("the first job needs no token, each further one holds one", "[jobs]") {
  FakeTokens tokens("ab");
  tlc::JobSlots slots(8, &tokens);
  slots.acquire(); // the slot the process was started with
  CHECK(tokens.inPool() == 2);
  CHECK(tokens.waits() == 0);
  slots.acquire();
  slots.acquire();
  CHECK(slots.running() == 3);
  CHECK(slots.tokensHeld() == 2);
  CHECK(tokens.inPool() == 0);
  // A fourth job waits for a token: none is left.
  auto fourth = std::async(std::launch::async, [&] { slots.acquire(); });
  CHECK(fourth.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  slots.release(); // gives a token back, which the fourth job takes
  REQUIRE(fourth.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(slots.running() == 3);
  for (int i = 0; i < 3; ++i)
    slots.release();
  // Exactly the tokens taken came back, each byte as it was.
  CHECK(slots.tokensHeld() == 0);
  CHECK(tokens.inPool() == 2);
  std::string given(tokens.Given.begin(), tokens.Given.end());
  std::sort(given.begin(), given.end());
  CHECK((given == "aab" || given == "abb"));
}

TEST_CASE("the local limit holds under a jobserver with more tokens", "[jobs]") {
  FakeTokens tokens("+++++");
  tlc::JobSlots slots(2, &tokens);
  slots.acquire();
  slots.acquire();
  auto third = std::async(std::launch::async, [&] { slots.acquire(); });
  CHECK(third.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  CHECK(tokens.inPool() == 4);
  slots.release();
  REQUIRE(third.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  slots.release();
  slots.release();
  CHECK(tokens.inPool() == 5);
}

TEST_CASE("a job waiting for a token takes the process's own slot when it comes free", "[jobs]") {
  FakeTokens tokens(""); // every token is held elsewhere in the build
  tlc::JobSlots slots(4, &tokens);
  slots.acquire();
  auto second = std::async(std::launch::async, [&] { slots.acquire(); });
  REQUIRE(eventually([&] { return tokens.waits() == 1; }));
  CHECK(second.wait_for(std::chrono::milliseconds(20)) == std::future_status::timeout);
  slots.release(); // the first job ends: its slot needs no token
  REQUIRE(second.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(slots.running() == 1);
  CHECK(slots.tokensHeld() == 0);
  slots.release();
  CHECK(tokens.Given.empty());
}

TEST_CASE("a jobserver that goes away leaves the local limit", "[jobs]") {
  FakeTokens tokens("");
  tlc::JobSlots slots(2, &tokens);
  slots.acquire();
  auto second = std::async(std::launch::async, [&] { slots.acquire(); });
  REQUIRE(eventually([&] { return tokens.waits() == 1; }));
  tokens.close();
  REQUIRE(second.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(slots.running() == 2);
  slots.release();
  slots.release();
}

TEST_CASE("many jobs on many threads: never over the limit, every token back", "[jobs]") {
  FakeTokens tokens("xyz");
  tlc::JobSlots slots(16, &tokens);
  std::atomic<int> running{0}, most{0};
  std::vector<std::function<void()>> jobs;
  for (int i = 0; i < 40; ++i)
    jobs.push_back([&] {
      tlc::SlotGuard slot(slots);
      int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      --running;
    });
  tlc::runConcurrently(std::move(jobs));
  CHECK(most.load() <= 4); // the own slot and three tokens
  CHECK(slots.running() == 0);
  CHECK(slots.tokensHeld() == 0);
  CHECK(tokens.inPool() == 3);
}
