// The per-thread cache of encoded tensor maps (TensorMaps.cpp): a thread launching with the same
// tensors again pays no encoding, two tensors per parameter stay cached, the least recently used
// gives way, and a failed encoding leaves nothing behind. On tma_params.cubin's two_maps(a, n, b).
#include "FakeDriver.h"
#include "internal/TestModules.h"

#include <thread>

using namespace tlc_test;

namespace {

TensorMapInfo tiled(const char* parameter, int argument, int group) {
  TensorMapInfo info = {};
  info.parameter = parameter;
  info.argument = argument;
  info.mode = tlc::runtime::TensorMapMode::Tiled;
  info.dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  info.rank = 2;
  info.box[0] = 32;
  info.box[1] = 8;
  info.elementStrides[0] = info.elementStrides[1] = 1;
  info.interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  info.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  info.l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
  info.oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  info.addressAlignment = 16;
  info.strideMultiple = 16;
  info.dim0Multiple = 1;
  info.group = group;
  return info;
}

// two_maps with its maps `a` and `b` in groups of their own, or in one group.
struct TwoMaps : TestModule {
  explicit TwoMaps(bool oneGroup = false)
      : TestModule("maps", "../tma_params.cubin", {kSm90a},
                   {{"two_maps", "two_maps", {0, 0, 0}, ~0u, 0, 2}}, false,
                   {tiled("a", 0, 0), tiled("b", 2, oneGroup ? 0 : 1)}) {}

  tlc_status launch(const tlc_tensor& a, const tlc_tensor& b) {
    tlc_config config = makeConfig<tlc_config>(1, 32);
    int n = 1;
    void* args[] = {nullptr, &n, nullptr};
    const tlc_tensor* tensors[] = {&a, &b};
    return tlc::runtime::launchWithTensors(get(), 0, &config, args, tensors);
  }
};

// A 64 x 16 float tensor at a fake device address.
tlc_tensor tensorAt(uintptr_t address) {
  tlc_tensor tensor = {};
  tensor.data = reinterpret_cast<void*>(address);
  tensor.dims[0] = 64;
  tensor.dims[1] = 16;
  tensor.strides[0] = 64 * sizeof(float);
  return tensor;
}

int encodes() {
  return countCalls("cuTensorMapEncodeTiled");
}

// The encode calls the last launch's maps came from.
std::pair<long, long> lastSources() {
  fake_cuda_call launch = loggedCalls("cuLaunchKernel").back();
  return {launch.param_tensor_map[0], launch.param_tensor_map[2]};
}

const tlc_tensor kA = tensorAt(0x10000), kB = tensorAt(0x20000), kC = tensorAt(0x30000),
                 kD = tensorAt(0x40000);

} // namespace

TEST_CASE("a thread launching with the same tensors again reuses its descriptors") {
  useDevices("9.0");
  TwoMaps maps;
  REQUIRE(maps.launch(kA, kB) == TLC_SUCCESS);
  CHECK(encodes() == 2);
  auto first = lastSources();
  CHECK(first.first >= 0);
  CHECK(first.second >= 0);
  CHECK(first.first != first.second);
  for (int i = 0; i < 3; ++i)
    REQUIRE(maps.launch(kA, kB) == TLC_SUCCESS);
  CHECK(encodes() == 2);
  CHECK(lastSources() == first);
}

TEST_CASE("only the dims and strides of the map's rank decide whether a tensor is the same") {
  useDevices("9.0");
  TwoMaps maps;
  REQUIRE(maps.launch(kA, kB) == TLC_SUCCESS);
  tlc_tensor beyondRank = kA;
  beyondRank.dims[3] = 7;
  beyondRank.strides[2] = 4096;
  REQUIRE(maps.launch(beyondRank, kB) == TLC_SUCCESS);
  CHECK(encodes() == 2);
  tlc_tensor wider = kA;
  wider.strides[0] = 512;
  REQUIRE(maps.launch(wider, kB) == TLC_SUCCESS);
  tlc_tensor taller = kA;
  taller.dims[1] = 32;
  REQUIRE(maps.launch(taller, kB) == TLC_SUCCESS);
  CHECK(encodes() == 4);
}

TEST_CASE("two tensors per parameter stay cached and a third replaces the least recently used") {
  useDevices("9.0");
  TwoMaps maps;
  REQUIRE(maps.launch(kA, kD) == TLC_SUCCESS); // a: A, b: D
  REQUIRE(maps.launch(kB, kD) == TLC_SUCCESS); // a: A, B
  REQUIRE(maps.launch(kA, kD) == TLC_SUCCESS);
  REQUIRE(maps.launch(kB, kD) == TLC_SUCCESS);
  CHECK(encodes() == 3);
  REQUIRE(maps.launch(kC, kD) == TLC_SUCCESS); // replaces A, used before B
  CHECK(encodes() == 4);
  REQUIRE(maps.launch(kB, kD) == TLC_SUCCESS); // still cached
  CHECK(encodes() == 4);
  REQUIRE(maps.launch(kA, kD) == TLC_SUCCESS); // encoded again, replacing C
  CHECK(encodes() == 5);
  REQUIRE(maps.launch(kB, kD) == TLC_SUCCESS);
  CHECK(encodes() == 5);
}

TEST_CASE("one tensor for two maps with the same settings is encoded once") {
  useDevices("9.0");
  TwoMaps maps(true);
  REQUIRE(maps.launch(kA, kA) == TLC_SUCCESS);
  CHECK(encodes() == 1);
  auto sources = lastSources();
  CHECK(sources.first >= 0);
  CHECK(sources.first == sources.second);
  REQUIRE(maps.launch(kA, kB) == TLC_SUCCESS);
  CHECK(encodes() == 2);
}

TEST_CASE("each thread keeps descriptors of its own") {
  useDevices("9.0");
  TwoMaps maps;
  REQUIRE(maps.launch(kA, kB) == TLC_SUCCESS);
  tlc_status other = TLC_ERROR_DRIVER;
  std::thread([&] { other = maps.launch(kA, kB); }).join();
  REQUIRE(other == TLC_SUCCESS);
  CHECK(encodes() == 4);
  REQUIRE(maps.launch(kA, kB) == TLC_SUCCESS);
  CHECK(encodes() == 4);
}

TEST_CASE("a failed encoding leaves nothing cached") {
  useDevices("9.0");
  TwoMaps maps;
  fake_cuda_fail("cuTensorMapEncodeTiled", CUDA_ERROR_INVALID_VALUE, 1);
  REQUIRE(maps.launch(kA, kB) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc::runtime::lastError(),
             Catch::Contains("tensor 'a': cuTensorMapEncodeTiled rejected it"));
  CHECK(countCalls("cuLaunchKernel") == 0);
  REQUIRE(maps.launch(kA, kB) == TLC_SUCCESS);
  CHECK(encodes() == 3); // the failed one, then both
  REQUIRE(maps.launch(kA, kB) == TLC_SUCCESS);
  CHECK(encodes() == 3);
}
