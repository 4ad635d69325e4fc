// bench/launch: the host cost of tlc's generated launchers, and how long a module of 2000
// kernels takes to become ready to launch, against the CUDA driver and runtime doing the same.
//
// Part 1, per launch: bursts of 1000 launches of an empty kernel (4 and 19 parameters) on one
// stream, timed on the host; the stream is synchronised between bursts, outside the timing.
// Variants: the generated launcher; cuLaunchKernel on the CUfunction the launcher library hands
// out (tlc_launch_bench_get_function) with an argument array prepared once; the same again, as a
// control whose ratio to the first shows the noise; cuLaunchKernel on a CUkernel from
// cuLibraryLoadData of the same image (what the launcher launches in a context of the caller's
// own); and <<<>>> on the same
// kernels compiled into this program. Two more take the raw CUfunction launch and add one thing
// the launcher does around it, to show what that costs: the in-flight count (an atomic
// increment and decrement around the launch, with a load between, as tlc_NAME_unload needs) and
// the cuCtxGetCurrent that picks the context. Variants take turns burst by burst, after a
// warm-up; each
// gets the median of its bursts, and ratios are also given as the median of same-round ratios.
// (On the H100 machine this was written on, a launch cost the host about 4 us whether bursts
// were of 1 or 3000, and the device kept pace: the bursts measure the host.)
//
// Part 2, ready to launch: the 2000-kernel module of gen_many.py. The launcher: time
// tlc_many_load(0), then tlc_many_unload(). Against: cuLibraryLoadData + cuLibraryGetKernel for each kernel (the
// floor: what the launcher must do at the least), the floor plus cuLibraryGetModule in the
// primary context (what the launcher first did to fail early on a device the image cannot
// serve; it now resolves one kernel instead), cuModuleLoadData + cuModuleGetFunction for each,
// and cuModuleLoadData + a lookup that
// enumerates every function and matches names by substring, once per kernel (O(N^2)). Every
// variant loads afresh each time and unloads after its timing; variants take turns in a fresh
// order each round; medians.
//
// usage: launch_bench LAUNCH_BENCH-IMAGE MANY-IMAGE [SECONDS-TO-BUILD-MANY]
#include "launch_bench.h"
#include "many.h"

#include "kernels.cu" // the same kernels again, for <<<>>>
#include "../common/order.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// ---- checks: any failure ends the benchmark ---------------------------------------------------

[[noreturn]] void die(const char* call, const char* what, const char* detail) {
  std::printf("FAIL: %s -> %s: %s\n", call, what, detail);
  std::exit(1);
}

void checkCu(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS)
    return;
  const char* name = "?";
  cuGetErrorName(result, &name);
  die(call, name, "driver call failed");
}

void checkRt(cudaError_t error, const char* call) {
  if (error != cudaSuccess)
    die(call, cudaGetErrorName(error), cudaGetErrorString(error));
}

#define CHECK_CU(call) checkCu((call), #call)
#define CHECK_RT(call) checkRt((call), #call)
#define CHECK_TLC(module, call)                                                                    \
  do {                                                                                             \
    tlc_status status_ = (call);                                                                   \
    if (status_ != TLC_SUCCESS)                                                                    \
      die(#call, tlc_##module##_status_string(status_), tlc_##module##_last_error());                          \
  } while (0)

// ---- statistics -------------------------------------------------------------------------------

// The q-quantile (0..1) of `samples`, by nearest rank.
double quantile(std::vector<double> samples, double q) {
  std::sort(samples.begin(), samples.end());
  size_t rank = static_cast<size_t>(std::lround(q * (samples.size() - 1)));
  return samples[rank];
}

double median(const std::vector<double>& samples) {
  return quantile(samples, 0.5);
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<char> readFile(const char* path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    die("open", path, "cannot read the image");
  return std::vector<char>(std::istreambuf_iterator<char>(file), {});
}

// ---- part 1: per-launch host cost -------------------------------------------------------------

constexpr int kBurst = 1000;
constexpr int kWarmupBursts = 20;
constexpr int kBursts = 300;

// Everything a launch needs, prepared before timing: the argument values and, for
// cuLaunchKernel, the arrays of pointers to them.
struct Launches {
  cudaStream_t stream = nullptr;
  tlc_config config = {};
  float* in = nullptr;
  float* out = nullptr;
  int* ints = nullptr;
  double* doubles = nullptr;
  int n = 1 << 20;
  float scale = 1.5f;
  CUfunction function4 = nullptr, function19 = nullptr; // from tlc_launch_bench_get_function
  CUkernel kernel4 = nullptr, kernel19 = nullptr;       // from cuLibraryLoadData
  void* args4[4] = {};
  void* args19[19] = {};
  // empty19's scalars
  int n0 = 1, n1 = 2, n2 = 3;
  unsigned u0 = 4, u1 = 5;
  float f0 = 6, f1 = 7, f2 = 8;
  double d0 = 9, d1 = 10;
  long long l0 = 11, l1 = 12;
  short s0 = 13;
  char c0 = 14;
};

void launcher4(const Launches& l) {
  for (int i = 0; i < kBurst; ++i)
    CHECK_TLC(launch_bench, launch_bench_empty4(&l.config, l.in, l.out, l.n, l.scale));
}

void launcher19(const Launches& l) {
  for (int i = 0; i < kBurst; ++i)
    CHECK_TLC(launch_bench, launch_bench_empty19(&l.config, l.in, l.out, l.ints, l.ints, l.doubles,
                                                 l.n0, l.n1, l.n2, l.u0, l.u1, l.f0, l.f1, l.f2,
                                                 l.d0, l.d1, l.l0, l.l1, l.s0, l.c0));
}

void raw(CUfunction function, void** args, CUstream stream) {
  for (int i = 0; i < kBurst; ++i)
    CHECK_CU(cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr));
}

void rawFunction4(const Launches& l) {
  raw(l.function4, const_cast<void**>(l.args4), l.stream);
}
void rawFunction19(const Launches& l) {
  raw(l.function19, const_cast<void**>(l.args19), l.stream);
}
// The launcher's in-flight count around a raw launch (runtime/src/State.cpp, ActiveDevice).
std::atomic<int> gInFlight{0};
std::atomic<bool> gClosing{false};

void counted(CUfunction function, void** args, CUstream stream) {
  for (int i = 0; i < kBurst; ++i) {
    gInFlight.fetch_add(1, std::memory_order_seq_cst);
    if (gClosing.load(std::memory_order_seq_cst))
      std::abort();
    CHECK_CU(cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr));
    gInFlight.fetch_sub(1, std::memory_order_release);
  }
}

// The launcher's context query before a raw launch (runtime/src/Launch.cpp, DeviceContext).
void contextQueried(CUfunction function, void** args, CUstream stream) {
  for (int i = 0; i < kBurst; ++i) {
    CUcontext current = nullptr;
    CHECK_CU(cuCtxGetCurrent(&current));
    if (!current)
      std::abort();
    CHECK_CU(cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr));
  }
}

void countedFunction4(const Launches& l) {
  counted(l.function4, const_cast<void**>(l.args4), l.stream);
}
void countedFunction19(const Launches& l) {
  counted(l.function19, const_cast<void**>(l.args19), l.stream);
}
void contextFunction4(const Launches& l) {
  contextQueried(l.function4, const_cast<void**>(l.args4), l.stream);
}
void contextFunction19(const Launches& l) {
  contextQueried(l.function19, const_cast<void**>(l.args19), l.stream);
}

void rawKernel4(const Launches& l) {
  raw(reinterpret_cast<CUfunction>(l.kernel4), const_cast<void**>(l.args4), l.stream);
}
void rawKernel19(const Launches& l) {
  raw(reinterpret_cast<CUfunction>(l.kernel19), const_cast<void**>(l.args19), l.stream);
}

// <<<>>> reports errors through cudaGetLastError, read once per burst (errors stay there).
void chevrons4(const Launches& l) {
  for (int i = 0; i < kBurst; ++i)
    empty4<<<1, 32, 0, l.stream>>>(l.in, l.out, l.n, l.scale);
}

void chevrons19(const Launches& l) {
  for (int i = 0; i < kBurst; ++i)
    empty19<<<1, 32, 0, l.stream>>>(l.in, l.out, l.ints, l.ints, l.doubles, l.n0, l.n1, l.n2, l.u0,
                                    l.u1, l.f0, l.f1, l.f2, l.d0, l.d1, l.l0, l.l1, l.s0, l.c0);
}

// The ways to launch that part 1 compares, in the order of its table.
enum Way {
  kLauncher,
  kRawFunction,
  kRawFunctionAgain,
  kRawKernel,
  kChevrons,
  kCounted,
  kContextQueried,
  kWays
};
constexpr const char* kWayNames[kWays] = {"generated launcher",
                                          "cuLaunchKernel on a CUfunction",
                                          "cuLaunchKernel on a CUfunction, again",
                                          "cuLaunchKernel on a CUkernel",
                                          "<<<>>>",
                                          "cuLaunchKernel, counted in flight",
                                          "cuLaunchKernel after cuCtxGetCurrent"};

struct LaunchVariant {
  const char* kernel;
  Way way;
  void (*burst)(const Launches&);
  std::vector<double> seconds; // per burst
};

void prepareArguments(Launches& l) {
  void* args4[] = {&l.in, &l.out, &l.n, &l.scale};
  void* args19[] = {&l.in, &l.out, &l.ints, &l.ints, &l.doubles, &l.n0, &l.n1, &l.n2, &l.u0, &l.u1,
                    &l.f0, &l.f1,  &l.f2,   &l.d0,   &l.d1,      &l.l0, &l.l1, &l.s0, &l.c0};
  std::copy(std::begin(args4), std::end(args4), l.args4);
  std::copy(std::begin(args19), std::end(args19), l.args19);
}

void setUpLaunches(Launches& l, const std::vector<char>& image, CUlibrary& library) {
  CHECK_RT(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
  CHECK_RT(cudaMalloc(&l.in, l.n * sizeof(float)));
  CHECK_RT(cudaMalloc(&l.out, l.n * sizeof(float)));
  CHECK_RT(cudaMalloc(&l.ints, 64 * sizeof(int)));
  CHECK_RT(cudaMalloc(&l.doubles, 64 * sizeof(double)));
  l.config.grid[0] = 1;
  l.config.block[0] = 32;
  l.config.stream = l.stream;
  prepareArguments(l);
  CHECK_TLC(launch_bench, tlc_launch_bench_get_function(TLC_LAUNCH_BENCH_KERNEL_empty4, 0, &l.function4));
  CHECK_TLC(launch_bench, tlc_launch_bench_get_function(TLC_LAUNCH_BENCH_KERNEL_empty19, 0, &l.function19));
  CHECK_CU(cuLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CHECK_CU(cuLibraryGetKernel(&l.kernel4, library,
                              tlc_launch_bench_kernel_name(TLC_LAUNCH_BENCH_KERNEL_empty4)));
  CHECK_CU(cuLibraryGetKernel(&l.kernel19, library,
                              tlc_launch_bench_kernel_name(TLC_LAUNCH_BENCH_KERNEL_empty19)));
}

double timeBurst(const LaunchVariant& variant, const Launches& l) {
  Clock::time_point start = Clock::now();
  variant.burst(l);
  double seconds = secondsSince(start);
  CHECK_RT(cudaGetLastError());
  CHECK_RT(cudaStreamSynchronize(l.stream));
  return seconds;
}

void measureLaunches(std::vector<LaunchVariant>& variants, const Launches& l) {
  for (const LaunchVariant& variant : variants)
    for (int i = 0; i < kWarmupBursts; ++i)
      timeBurst(variant, l);
  RoundOrder order(variants.size());
  for (int round = 0; round < kBursts; ++round)
    for (size_t index : order.next()) {
      LaunchVariant& variant = variants[index];
      variant.seconds.push_back(timeBurst(variant, l));
    }
}

double microsPerLaunch(const LaunchVariant& v, double q) {
  return quantile(v.seconds, q) * 1e6 / kBurst;
}

// ---- part 2: ready to launch, 2000 kernels ----------------------------------------------------

struct ManyModule {
  std::vector<char> image;
  std::vector<std::string> symbols;  // exact device symbols, from tlc_many_kernel_name
  std::vector<std::string> patterns; // what a name-based lookup searches for: "kernel_0042"
};

// Unloads right after, as the other variants do: a library left loaded while the others run and
// unloaded just before the timed load made that load 1.6 times slower (measured on the H100),
// which is the driver catching up on the unload, not the launcher getting ready.
double readyLauncher(const ManyModule&) {
  Clock::time_point start = Clock::now();
  CHECK_TLC(many, tlc_many_load(0));
  double seconds = secondsSince(start);
  CHECK_TLC(many, tlc_many_unload());
  return seconds;
}

// cuLibraryLoadData and every kernel looked up; with `makeModule`, then the library's module
// in the current (primary) context, as the launcher first did.
double readyLibraryThen(const ManyModule& m, bool makeModule) {
  std::vector<CUkernel> kernels(m.symbols.size());
  Clock::time_point start = Clock::now();
  CUlibrary library = nullptr;
  CHECK_CU(cuLibraryLoadData(&library, m.image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  for (size_t i = 0; i < m.symbols.size(); ++i)
    CHECK_CU(cuLibraryGetKernel(&kernels[i], library, m.symbols[i].c_str()));
  CUmodule module = nullptr;
  if (makeModule)
    CHECK_CU(cuLibraryGetModule(&module, library));
  double seconds = secondsSince(start);
  CHECK_CU(cuLibraryUnload(library));
  return seconds;
}

double readyLibrary(const ManyModule& m) { return readyLibraryThen(m, false); }
double readyLibraryModule(const ManyModule& m) { return readyLibraryThen(m, true); }

double readyModule(const ManyModule& m) {
  std::vector<CUfunction> functions(m.symbols.size());
  Clock::time_point start = Clock::now();
  CUmodule module = nullptr;
  CHECK_CU(cuModuleLoadData(&module, m.image.data()));
  for (size_t i = 0; i < m.symbols.size(); ++i)
    CHECK_CU(cuModuleGetFunction(&functions[i], module, m.symbols[i].c_str()));
  double seconds = secondsSince(start);
  CHECK_CU(cuModuleUnload(module));
  return seconds;
}

// A lookup by name fragment with nothing cached: enumerate the module's functions, ask each its
// name, take the one that contains `pattern`.
CUfunction enumerateAndMatch(CUmodule module, const std::string& pattern,
                             std::vector<CUfunction>& scratch) {
  unsigned count = 0;
  CHECK_CU(cuModuleGetFunctionCount(&count, module));
  scratch.resize(count);
  CHECK_CU(cuModuleEnumerateFunctions(scratch.data(), count, module));
  for (CUfunction function : scratch) {
    const char* name = nullptr;
    CHECK_CU(cuFuncGetName(&name, function));
    if (std::strstr(name, pattern.c_str()))
      return function;
  }
  die("enumerate-and-match", pattern.c_str(), "no function matches");
}

double readyEnumerate(const ManyModule& m) {
  std::vector<CUfunction> functions(m.symbols.size()), scratch;
  Clock::time_point start = Clock::now();
  CUmodule module = nullptr;
  CHECK_CU(cuModuleLoadData(&module, m.image.data()));
  for (size_t i = 0; i < m.patterns.size(); ++i)
    functions[i] = enumerateAndMatch(module, m.patterns[i], scratch);
  double seconds = secondsSince(start);
  for (size_t i = 0; i < functions.size(); ++i) { // each pattern must have found its own kernel
    const char* name = nullptr;
    CHECK_CU(cuFuncGetName(&name, functions[i]));
    if (m.symbols[i] != name)
      die("enumerate-and-match", m.patterns[i].c_str(), name);
  }
  CHECK_CU(cuModuleUnload(module));
  return seconds;
}

// The ways to get 2000 kernels ready that part 2 compares, in the order of its table.
enum Readiness {
  kReadyLauncher,
  kReadyLibrary,
  kReadyLibraryModule,
  kReadyModule,
  kReadyEnumerate,
  kReadinesses
};

struct ReadyVariant {
  const char* shortName; // for the ratios
  const char* how;
  double (*ready)(const ManyModule&);
  std::vector<double> seconds; // per load
};

constexpr int kLoads = 21;

void measureReady(std::vector<ReadyVariant>& variants, const ManyModule& m) {
  for (ReadyVariant& variant : variants) // warm-up: first-use costs in the driver
    variant.ready(m);
  RoundOrder order(variants.size());
  for (int round = 0; round < kLoads; ++round)
    for (size_t index : order.next()) {
      ReadyVariant& variant = variants[index];
      variant.seconds.push_back(variant.ready(m));
    }
}

ManyModule describeMany(const char* imagePath) {
  ManyModule m;
  m.image = readFile(imagePath);
  for (int i = 0; i < tlc_many_kernel_count(); ++i) {
    m.symbols.push_back(tlc_many_kernel_name(i));
    char pattern[32];
    std::snprintf(pattern, sizeof pattern, "kernel_%04d", i); // gen_many.py's names
    m.patterns.push_back(pattern);
  }
  return m;
}

// The module is really ready: its last kernel runs and computes what gen_many.py wrote for it:
// in * (1 + i / 1000) + i, with i = 1999 (no blockIdx term, as 1999 % 3 != 0).
void checkLastKernelRuns(const Launches& l) {
  int count = 4096;
  int last = tlc_many_kernel_count() - 1;
  if (last != 1999)
    die("checkLastKernelRuns", "the module", "does not have 2000 kernels");
  std::mt19937 random(static_cast<unsigned>(std::time(nullptr)));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> in(count), out(count);
  for (float& value : in)
    value = uniform(random);
  CHECK_RT(cudaMemcpy(l.in, in.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_RT(cudaMemset(l.out, 0xff, count * sizeof(float))); // NaN
  tlc_config config = {};
  config.grid[0] = count / 256;
  config.block[0] = 256;
  float* target = l.out;
  float* source = l.in;
  void* args[] = {&target, &source, &count};
  CHECK_TLC(many, tlc_many_launch_kernel(&config, last, args));
  CHECK_RT(cudaDeviceSynchronize());
  CHECK_RT(cudaMemcpy(out.data(), l.out, count * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < count; ++i) // the device may fuse the multiply-add: allow an ulp or two
    wrong += !(std::fabs(out[i] - (in[i] * 2.999f + 1999.0f)) <= 1e-3f);
  std::printf("%s: kernel %s of the 2000-kernel module ran (%d of %d outputs wrong)\n",
              wrong ? "FAIL" : "PASS", tlc_many_kernel_name(last), wrong, count);
  if (wrong)
    std::exit(1);
}

// ---- report -----------------------------------------------------------------------------------

void printLaunchTable(const std::vector<LaunchVariant>& variants) {
  std::printf("\n== host time per launch: median of %d bursts of %d launches (p25 .. p75), us\n",
              kBursts, kBurst);
  for (const LaunchVariant& v : variants)
    std::printf("  %-8s %-38s %7.3f  (%.3f .. %.3f)\n", v.kernel, kWayNames[v.way],
                microsPerLaunch(v, 0.5), microsPerLaunch(v, 0.25), microsPerLaunch(v, 0.75));
}

void printReadyTable(const std::vector<ReadyVariant>& variants, int kernels) {
  std::printf("\n== ready to launch, %d kernels: median of %d fresh loads (min .. max), ms\n",
              kernels, kLoads);
  for (const ReadyVariant& v : variants)
    std::printf("  %-58s %9.2f  (%.2f .. %.2f)\n", v.how, median(v.seconds) * 1e3,
                quantile(v.seconds, 0.0) * 1e3, quantile(v.seconds, 1.0) * 1e3);
}

// The median over rounds of a / b, each pair timed in the same round: drift between rounds
// cancels out.
template <typename Variant> double pairedRatio(const Variant& a, const Variant& b) {
  std::vector<double> ratios;
  for (size_t i = 0; i < a.seconds.size() && i < b.seconds.size(); ++i)
    ratios.push_back(a.seconds[i] / b.seconds[i]);
  return median(ratios);
}

void printRatio(const std::string& what, double ratio, double paired, double target) {
  std::printf("  %-80s %6.3f  [%.3f]", what.c_str(), ratio, paired);
  if (target > 0)
    std::printf("  target <= %.2f: %s", target, ratio <= target ? "met" : "MISSED");
  std::printf("\n");
}

void printLaunchRatio(const LaunchVariant& a, const LaunchVariant& b, double target) {
  printRatio(std::string(a.kernel) + ": " + kWayNames[a.way] + " / " + kWayNames[b.way],
             median(a.seconds) / median(b.seconds), pairedRatio(a, b), target);
}

void printReadyRatio(const ReadyVariant& a, const ReadyVariant& b, double target) {
  printRatio(std::string("2000 kernels ready: ") + a.shortName + " / " + b.shortName,
             median(a.seconds) / median(b.seconds), pairedRatio(a, b), target);
}

const char* loadingMode() {
  CUmoduleLoadingMode mode;
  CHECK_CU(cuModuleGetLoadingMode(&mode));
  return mode == CU_MODULE_LAZY_LOADING ? "lazy" : "eager";
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s LAUNCH_BENCH-IMAGE MANY-IMAGE [SECONDS-TO-BUILD-MANY]\n",
                 argv[0]);
    return 2;
  }
  CHECK_RT(cudaSetDevice(0));
  CHECK_RT(cudaFree(nullptr)); // the primary context, current from here on
  cudaDeviceProp properties;
  CHECK_RT(cudaGetDeviceProperties(&properties, 0));
  std::printf("device: %s; module loading: %s\n", properties.name, loadingMode());

  Launches l;
  CUlibrary benchLibrary = nullptr;
  setUpLaunches(l, readFile(argv[1]), benchLibrary);
  // Indexed [kernel * kWays + way].
  std::vector<LaunchVariant> launches = {
      {"empty4", kLauncher, launcher4, {}},
      {"empty4", kRawFunction, rawFunction4, {}},
      {"empty4", kRawFunctionAgain, rawFunction4, {}},
      {"empty4", kRawKernel, rawKernel4, {}},
      {"empty4", kChevrons, chevrons4, {}},
      {"empty4", kCounted, countedFunction4, {}},
      {"empty4", kContextQueried, contextFunction4, {}},
      {"empty19", kLauncher, launcher19, {}},
      {"empty19", kRawFunction, rawFunction19, {}},
      {"empty19", kRawFunctionAgain, rawFunction19, {}},
      {"empty19", kRawKernel, rawKernel19, {}},
      {"empty19", kChevrons, chevrons19, {}},
      {"empty19", kCounted, countedFunction19, {}},
      {"empty19", kContextQueried, contextFunction19, {}},
  };
  measureLaunches(launches, l);

  ManyModule many = describeMany(argv[2]);
  std::vector<ReadyVariant> ready(kReadinesses);
  ready[kReadyLauncher] = {
      "launcher", "launcher: tlc_many_load(0), unloaded after", readyLauncher, {}};
  ready[kReadyLibrary] = {
      "cuLibrary floor", "cuLibraryLoadData + cuLibraryGetKernel each (floor)", readyLibrary, {}};
  ready[kReadyLibraryModule] = {"floor + cuLibraryGetModule",
                                "the floor + cuLibraryGetModule (the launcher's first design)",
                                readyLibraryModule,
                                {}};
  ready[kReadyModule] = {
      "cuModule + GetFunction", "cuModuleLoadData + cuModuleGetFunction each", readyModule, {}};
  ready[kReadyEnumerate] = {"enumerate-and-match",
                            "cuModuleLoadData + enumerate-and-match each (O(N^2))",
                            readyEnumerate,
                            {}};
  measureReady(ready, many);
  checkLastKernelRuns(l);

  printLaunchTable(launches);
  printReadyTable(ready, tlc_many_kernel_count());
  if (argc == 4)
    std::printf("  (tlc build of the %d-kernel module took %s s in the prepare phase)\n",
                tlc_many_kernel_count(), argv[3]);

  std::printf("\n== ratios: of the medians  [median of the same-round ratios]\n");
  for (int kernel = 0; kernel < 2; ++kernel) {
    const LaunchVariant* row = &launches[kernel * kWays];
    for (Way way : {kRawFunction, kRawKernel, kChevrons})
      printLaunchRatio(row[kLauncher], row[way], way == kRawFunction ? 1.03 : 0);
    printLaunchRatio(row[kRawFunctionAgain], row[kRawFunction], 0); // the noise
    for (Way part : {kCounted, kContextQueried})                      // the launcher's parts
      printLaunchRatio(row[part], row[kRawFunction], 0);
  }
  printReadyRatio(ready[kReadyLauncher], ready[kReadyLibrary], 1.2);
  printReadyRatio(ready[kReadyLauncher], ready[kReadyLibraryModule], 0);
  printReadyRatio(ready[kReadyModule], ready[kReadyLibrary], 0);
  printReadyRatio(ready[kReadyEnumerate], ready[kReadyLibrary], 0);
  printReadyRatio(ready[kReadyEnumerate], ready[kReadyLauncher], 0);

  CHECK_CU(cuLibraryUnload(benchLibrary));
  CHECK_RT(cudaStreamDestroy(l.stream));
  return 0;
}
