// test/gpu graph: launcher calls recorded by stream capture on a non-blocking stream (passed in
// the config), instantiated as a CUDA graph and replayed; the state is checked after every
// replay. Three launches are captured: add_scaled twice (typed launcher, then
// tlc_graph_launch_kernel) and mix, which depends on them through the stream's order.
//
// Two rounds: one with the module loaded before capture (tlc_graph_load), one after
// tlc_graph_unload, where the first captured launch loads the module while the stream is capturing.
#include "graph.h"

#include <cuda_runtime.h>

#include "gpu_test.h"

#include <random>
#include <vector>

namespace {

constexpr int kCount = 100003; // not a multiple of the block
constexpr int kReplays = 5;

struct State {
  std::vector<unsigned> x, acc, out;
  unsigned *dx = nullptr, *dacc = nullptr, *dout = nullptr;
  unsigned factor1 = 0, factor2 = 0, key = 0;
};

tlc_config configOn(cudaStream_t stream) {
  tlc_config config = {};
  config.grid[0] = (kCount + 255) / 256;
  config.block[0] = 256;
  config.stream = stream;
  return config;
}

// A copy from pageable memory may return before its DMA lands, and the non-blocking stream the
// graph runs on does not wait for the legacy stream: wait for the device before going on.
void upload(const std::vector<unsigned>& host, unsigned* device) {
  CHECK_RT(cudaMemcpy(device, host.data(), host.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK_RT(cudaDeviceSynchronize());
}

std::vector<unsigned> download(const unsigned* device) {
  std::vector<unsigned> host(kCount);
  CHECK_RT(cudaMemcpy(host.data(), device, kCount * sizeof(unsigned), cudaMemcpyDeviceToHost));
  return host;
}

// Fresh inputs and factors; the output poisoned with the complement of its first expected value.
void freshState(State& s, std::mt19937& random) {
  for (int i = 0; i < kCount; ++i) {
    s.x[i] = random();
    s.acc[i] = random();
  }
  s.factor1 = random();
  s.factor2 = random();
  s.key = random();
  upload(s.x, s.dx);
  upload(s.acc, s.dacc);
}

unsigned expectedAcc(const State& s, int i, unsigned replays) {
  return s.acc[i] + replays * (s.factor1 + s.factor2) * s.x[i];
}

// Records the three launches on `stream`; returns the instantiated graph.
cudaGraphExec_t capture(State& s, cudaStream_t stream) {
  tlc_config config = configOn(stream);
  CHECK_RT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_TLC(graph, graph_add_scaled(&config, s.dacc, s.dx, s.factor1, kCount));
  int n = kCount;
  void* args[] = {&s.dacc, &s.dx, &s.factor2, &n};
  CHECK_TLC(graph, tlc_graph_launch_kernel(&config, TLC_GRAPH_KERNEL_add_scaled, args));
  CHECK_TLC(graph, graph_mix(&config, s.dacc, s.dout, s.key, kCount));
  cudaGraph_t graph = nullptr;
  CHECK_RT(cudaStreamEndCapture(stream, &graph));

  size_t nodes = 0;
  CHECK_RT(cudaGraphGetNodes(graph, nullptr, &nodes));
  gpu_expect(nodes == 3, "the captured graph has 3 kernel nodes (%zu)", nodes);
  std::vector<unsigned> acc = download(s.dacc);
  gpu_expect(acc == s.acc, "capturing ran nothing: the accumulator is unchanged");

  cudaGraphExec_t exec = nullptr;
  CHECK_RT(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_RT(cudaGraphDestroy(graph));
  return exec;
}

// Replays `exec` kReplays times; after replay r, acc and out must reflect exactly r runs.
void replayAndCheck(State& s, cudaGraphExec_t exec, cudaStream_t stream, const char* round) {
  int wrongReplays = 0;
  for (unsigned r = 1; r <= kReplays; ++r) {
    for (int i = 0; i < kCount; ++i)
      s.out[i] = ~((expectedAcc(s, i, r) * 3u) ^ s.key);
    upload(s.out, s.dout);
    CHECK_RT(cudaGraphLaunch(exec, stream));
    CHECK_RT(cudaStreamSynchronize(stream));
    std::vector<unsigned> acc = download(s.dacc), out = download(s.dout);
    int wrong = 0;
    for (int i = 0; i < kCount; ++i) {
      unsigned want = expectedAcc(s, i, r);
      wrong += acc[i] != want || out[i] != ((want * 3u) ^ s.key);
    }
    if (wrong) {
      std::printf("  %s, replay %u: %d of %d elements wrong\n", round, r, wrong, kCount);
      ++wrongReplays;
    }
  }
  gpu_expect(wrongReplays == 0, "%s: %d replays, every element exact after each", round, kReplays);
}

void runRound(State& s, cudaStream_t stream, std::mt19937& random, const char* name) {
  freshState(s, random);
  cudaGraphExec_t exec = capture(s, stream);
  replayAndCheck(s, exec, stream, name);
  CHECK_RT(cudaGraphExecDestroy(exec));
}

} // namespace

int main() {
  std::mt19937 random(gpu_seed());
  CHECK_RT(cudaSetDevice(0));
  cudaStream_t stream = nullptr;
  CHECK_RT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  State s;
  s.x.resize(kCount);
  s.acc.resize(kCount);
  s.out.resize(kCount);
  CHECK_RT(cudaMalloc(&s.dx, kCount * sizeof(unsigned)));
  CHECK_RT(cudaMalloc(&s.dacc, kCount * sizeof(unsigned)));
  CHECK_RT(cudaMalloc(&s.dout, kCount * sizeof(unsigned)));

  CHECK_TLC(graph, tlc_graph_load(0));
  runRound(s, stream, random, "loaded before capture");
  CHECK_TLC(graph, tlc_graph_unload());
  runRound(s, stream, random, "loaded by the first captured launch");

  CHECK_RT(cudaFree(s.dx));
  CHECK_RT(cudaFree(s.dacc));
  CHECK_RT(cudaFree(s.dout));
  CHECK_RT(cudaStreamDestroy(stream));
  return gpu_finish("graph");
}
