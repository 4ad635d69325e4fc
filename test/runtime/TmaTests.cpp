// Tensor-map parameters: the launcher encodes each descriptor from the caller's tlc_tensor and
// the parameter's annotation, once for identical ones, and passes it to the kernel.
#include "FakeDriver.h"

#include "tma.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

using namespace tlc_test;

namespace {

// A device address as the launcher sees it: only its value matters to the fake.
void* deviceAddress(std::uintptr_t address) {
  return reinterpret_cast<void*>(address);
}

// A row-major 32 x 64 float matrix (innermost dimension first).
tlc_tensor matrix(std::uintptr_t address) {
  tlc_tensor tensor = {};
  tensor.data = deviceAddress(address);
  tensor.dims[0] = 64;
  tensor.dims[1] = 32;
  tensor.strides[0] = 64 * sizeof(float);
  return tensor;
}

} // namespace

TEST_CASE("a tiled tensor map is encoded from the tensor and the parameter's annotation") {
  useDevices("9.0");
  tlc_tensor tensor = matrix(0x100000);
  tlc_config config = makeConfig<tlc_config>(2, 128);
  REQUIRE(tma_same_spec(&config, &tensor, 7, &tensor) == TLC_SUCCESS);

  auto encodes = loggedCalls("cuTensorMapEncodeTiled");
  REQUIRE(encodes.size() == 1); // one tensor, one annotation: encoded once for both
  const fake_cuda_tensor_map_call& map = encodes[0].tensor_map;
  CHECK(map.data_type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  CHECK(map.rank == 2);
  CHECK(map.address == tensor.data);
  CHECK(map.dims[0] == 64);
  CHECK(map.dims[1] == 32);
  CHECK(map.strides[0] == 256);
  CHECK(map.box[0] == 32);
  CHECK(map.box[1] == 8);
  CHECK(map.element_strides[0] == 1);
  CHECK(map.element_strides[1] == 1);
  CHECK(map.interleave == CU_TENSOR_MAP_INTERLEAVE_NONE);
  CHECK(map.swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
  CHECK(map.l2_promotion == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  CHECK(map.oob_fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);

  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  REQUIRE(launch.param_count == 3);
  CHECK(launch.params[0] == launch.params[2]);
  CHECK(launch.param_tensor_map[0] == encodes[0].index);
  CHECK(launch.param_tensor_map[2] == encodes[0].index);
  CHECK(launch.param_values[1] == 7);
}

TEST_CASE("different tensors or annotations get tensor maps of their own") {
  useDevices("9.0");
  tlc_tensor first = matrix(0x100000), second = matrix(0x200000);
  tlc_config config = makeConfig<tlc_config>(2, 128);
  REQUIRE(tma_same_spec(&config, &first, 1, &second) == TLC_SUCCESS);
  auto encodes = loggedCalls("cuTensorMapEncodeTiled");
  REQUIRE(encodes.size() == 2);
  CHECK(encodes[0].tensor_map.address == first.data);
  CHECK(encodes[1].tensor_map.address == second.data);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  CHECK(launch.param_tensor_map[0] == encodes[0].index);
  CHECK(launch.param_tensor_map[2] == encodes[1].index);

  fake_cuda_clear_log();
  REQUIRE(tma_two_specs(&config, &first, &first, nullptr) == TLC_SUCCESS);
  encodes = loggedCalls("cuTensorMapEncodeTiled");
  REQUIRE(encodes.size() == 2); // one tensor, two boxes
  CHECK(encodes[0].tensor_map.box[0] == 32);
  CHECK(encodes[1].tensor_map.box[0] == 8);
  launch = onlyCall("cuLaunchKernel");
  CHECK(launch.param_tensor_map[0] == encodes[0].index);
  CHECK(launch.param_tensor_map[1] == encodes[1].index);
}

TEST_CASE("an im2col tensor map gets the annotation's corners, channels and pixels") {
  useDevices("9.0");
  tlc_tensor images = {}; // NHWC half-precision images, channels innermost
  images.data = deviceAddress(0x300000);
  const std::uint64_t dims[] = {64, 16, 16, 2};
  for (int i = 0; i < 4; ++i)
    images.dims[i] = dims[i];
  images.strides[0] = 64 * 2;
  images.strides[1] = 64 * 2 * 16;
  images.strides[2] = 64 * 2 * 16 * 16;
  tlc_config config = makeConfig<tlc_config>(4, 128);
  REQUIRE(tma_convolve(&config, &images, nullptr) == TLC_SUCCESS);

  auto encodes = loggedCalls("cuTensorMapEncodeIm2col");
  REQUIRE(encodes.size() == 1);
  const fake_cuda_tensor_map_call& map = encodes[0].tensor_map;
  CHECK(map.data_type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  CHECK(map.rank == 4);
  CHECK(map.dims[3] == 2);
  CHECK(map.strides[2] == 32768);
  CHECK(map.lower_corner[0] == -1);
  CHECK(map.lower_corner[1] == -1);
  CHECK(map.upper_corner[0] == 1);
  CHECK(map.upper_corner[1] == 1);
  CHECK(map.channels_per_pixel == 64);
  CHECK(map.pixels_per_column == 128);
  CHECK(onlyCall("cuLaunchKernel").param_tensor_map[0] == encodes[0].index);
}

TEST_CASE("a tensor against the driver's rules fails with TLC_ERROR_INVALID_VALUE naming it") {
  useDevices("9.0");
  tlc_config config = makeConfig<tlc_config>(2, 128);
  tlc_tensor good = matrix(0x100000), misaligned = matrix(0x100008);
  CHECK(tma_same_spec(&config, &good, 1, &misaligned) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_tma_last_error(),
             Catch::Contains("tma_same_spec: tensor 'b'") && Catch::Contains("16-byte aligned"));
  CHECK(tma_same_spec(&config, nullptr, 1, &good) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_tma_last_error(), Catch::Contains("tensor 'a' is NULL"));
  tlc_tensor oddStride = matrix(0x100000);
  oddStride.strides[0] = 250;
  CHECK(tma_same_spec(&config, &oddStride, 1, &good) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_tma_last_error(), Catch::Contains("multiples of 16 bytes"));
  // The driver's limits: dims in 1..2^32, strides under 2^40 bytes.
  for (uint64_t rows : {uint64_t(0), (uint64_t(1) << 32) + 1}) {
    tlc_tensor outside = matrix(0x100000);
    outside.dims[1] = rows;
    CHECK(tma_same_spec(&config, &outside, 1, &good) == TLC_ERROR_INVALID_VALUE);
    CHECK_THAT(tlc_tma_last_error(), Catch::Contains("dims must be in 1..2^32"));
  }
  tlc_tensor farStride = matrix(0x100000);
  farStride.strides[0] = uint64_t(1) << 40;
  CHECK(tma_same_spec(&config, &farStride, 1, &good) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_tma_last_error(), Catch::Contains("strides must be under 2^40 bytes"));
  CHECK(countCalls("cuLaunchKernel") == 0);
}

TEST_CASE("a tensor map the driver refuses to encode fails with TLC_ERROR_INVALID_VALUE") {
  useDevices("9.0");
  fake_cuda_fail("cuTensorMapEncodeTiled", CUDA_ERROR_INVALID_VALUE, 1);
  tlc_tensor tensor = matrix(0x100000);
  tlc_config config = makeConfig<tlc_config>(2, 128);
  REQUIRE(tma_same_spec(&config, &tensor, 1, &tensor) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_tma_last_error(),
             Catch::Contains("tensor 'a'") &&
                 Catch::Contains("cuTensorMapEncodeTiled rejected it: CUDA_ERROR_INVALID_VALUE"));
  CHECK(countCalls("cuLaunchKernel") == 0);
}

TEST_CASE("the _encoded entry point passes the caller's own descriptors") {
  useDevices("9.0");
  CUtensorMap first = {}, second = {};
  tlc_config config = makeConfig<tlc_config>(2, 128);
  REQUIRE(tma_same_spec_encoded(&config, &first, 3, &second) == TLC_SUCCESS);
  fake_cuda_call launch = onlyCall("cuLaunchKernel");
  CHECK(launch.params[0] == &first);
  CHECK(launch.params[2] == &second);
  CHECK(launch.param_values[1] == 3);
  CHECK(countCalls("cuTensorMapEncodeTiled") == 0);

  CHECK(tma_same_spec_encoded(&config, &first, 3, nullptr) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_tma_last_error(), Catch::Contains("tma_same_spec: tensor map 'b' is NULL"));
}
