// test/gpu stress: 16 threads launch stress.cu's kernel 10,000 times each through the generated
// launcher, spread over 4 streams per thread, while the module is loaded by whichever launch
// comes first. Every (thread, stream) pair owns one buffer of counters; each launch adds a random
// value to it, and the totals after all launches must be exact.
//
// Half the threads make the primary context current first and half leave no context current,
// so both of the launcher's context paths run concurrently. Every tenth launch goes through
// tlc_stress_launch_kernel instead of the typed launcher.
#include "stress.h"

#include <cuda_runtime.h>

#include "gpu_test.h"

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 16;
constexpr int kLaunchesPerThread = 10000;
constexpr int kStreamsPerThread = 4;
constexpr int kElements = 256; // one block of 256 threads per launch

// One stream and the buffer only it touches.
struct Lane {
  cudaStream_t stream = nullptr;
  unsigned long long* counters = nullptr; // on the device
  std::vector<unsigned long long> start;  // the counters' random initial values
  unsigned long long added = 0;           // sum of the values launched on this lane
  unsigned long long launches = 0;
};

struct Worker {
  Lane lanes[kStreamsPerThread];
  unsigned seed = 0;
  bool makePrimaryCurrent = false;
};

std::atomic<int> gWaiting{kThreads};

// Holds every thread until all have started, so that their first launches (and the module's
// loading) overlap.
void startTogether() {
  gWaiting.fetch_sub(1);
  while (gWaiting.load() > 0)
    std::this_thread::yield();
}

void launchOnce(Lane& lane, unsigned long long value, bool generic) {
  tlc_config config = {};
  config.grid[0] = 1;
  config.block[0] = kElements;
  config.stream = lane.stream;
  int n = kElements;
  if (generic) {
    void* args[] = {&lane.counters, &n, &value};
    CHECK_TLC(stress, tlc_stress_launch_kernel(&config, TLC_STRESS_KERNEL_accumulate, args));
  } else {
    CHECK_TLC(stress, stress_accumulate(&config, lane.counters, n, value));
  }
  lane.added += value;
  lane.launches += 1;
}

void work(Worker& worker) {
  if (worker.makePrimaryCurrent)
    CHECK_RT(cudaSetDevice(0)); // makes the primary context current on this thread
  std::mt19937_64 random(worker.seed);
  std::uniform_int_distribution<unsigned long long> values(1, 1ull << 32);
  std::uniform_int_distribution<int> lanes(0, kStreamsPerThread - 1);
  startTogether();
  for (int launch = 0; launch < kLaunchesPerThread; ++launch)
    launchOnce(worker.lanes[lanes(random)], values(random), launch % 10 == 9);
}

void setUp(Worker& worker, std::mt19937_64& random) {
  worker.seed = static_cast<unsigned>(random());
  for (Lane& lane : worker.lanes) {
    CHECK_RT(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking));
    CHECK_RT(cudaMalloc(&lane.counters, kElements * sizeof(unsigned long long)));
    lane.start.resize(kElements);
    for (unsigned long long& value : lane.start)
      value = random();
    CHECK_RT(cudaMemcpy(lane.counters, lane.start.data(), kElements * sizeof(unsigned long long),
                        cudaMemcpyHostToDevice));
  }
}

// Counts the counters of `lane` that differ from start + added + launches * index.
int wrongCounters(const Lane& lane) {
  std::vector<unsigned long long> result(kElements);
  CHECK_RT(cudaMemcpy(result.data(), lane.counters, kElements * sizeof(unsigned long long),
                      cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < kElements; ++i)
    if (result[i] != lane.start[i] + lane.added + lane.launches * static_cast<unsigned>(i))
      ++wrong;
  return wrong;
}

} // namespace

int main() {
  std::mt19937_64 random(gpu_seed());
  CHECK_RT(cudaSetDevice(0));
  std::vector<Worker> workers(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    setUp(workers[t], random);
    workers[t].makePrimaryCurrent = t % 2 == 0;
  }
  CHECK_RT(cudaDeviceSynchronize());

  auto begin = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (Worker& worker : workers)
    threads.emplace_back(work, std::ref(worker));
  for (std::thread& thread : threads)
    thread.join();
  double launchSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  CHECK_RT(cudaDeviceSynchronize());

  int wrong = 0;
  unsigned long long launches = 0;
  for (Worker& worker : workers) {
    for (Lane& lane : worker.lanes) {
      wrong += wrongCounters(lane);
      launches += lane.launches;
    }
  }
  // Every launch adds each element's index to it, so exact counters prove each launch ran once.
  gpu_expect(wrong == 0,
             "%d threads x %d streams x %d counters exact after all launches (%d wrong)", kThreads,
             kStreamsPerThread, kElements, wrong);
  std::printf("info: %llu launches, %.0f/s over %d threads (host time to enqueue)\n", launches,
              launches / launchSeconds, kThreads);

  for (Worker& worker : workers) {
    for (Lane& lane : worker.lanes) {
      CHECK_RT(cudaFree(lane.counters));
      CHECK_RT(cudaStreamDestroy(lane.stream));
    }
  }
  return gpu_finish("stress");
}
