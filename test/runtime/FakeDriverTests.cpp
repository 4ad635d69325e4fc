// The fake driver's own behaviour, called directly through cuGetProcAddress: what the runtime
// tests rely on it to model and record.
#include "FakeDriver.h"

#include <catch2/catch.hpp>

#include <string>
#include <thread>

using namespace tlc_test;

TEST_CASE("fake driver: cuGetProcAddress answers by name and version") {
  useDevices("9.0");
  void* function = nullptr;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
  CHECK(cuGetProcAddress("cuLaunchKernelEx", &function, 11060, 0, &found) == CUDA_SUCCESS);
  CHECK(found == CU_GET_PROC_ADDRESS_SUCCESS);
  CHECK(function != nullptr);

  CHECK(cuGetProcAddress("cuLaunchKernelEx", &function, 11000, 0, &found) == CUDA_ERROR_NOT_FOUND);
  CHECK(found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  CHECK(function == nullptr);
  CHECK(cuGetProcAddress("cuNoSuchCall", &function, 13000, 0, &found) == CUDA_ERROR_NOT_FOUND);
  CHECK(found == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

  fake_cuda_hide("cuInit");
  CHECK(cuGetProcAddress("cuInit", &function, 13000, 0, &found) == CUDA_ERROR_NOT_FOUND);
  CHECK(found == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

  auto calls = loggedCalls("cuGetProcAddress");
  REQUIRE(calls.size() == 4);
  CHECK(std::string(calls[1].symbol) == "cuLaunchKernelEx");
  CHECK(calls[1].version == 11000);
}

TEST_CASE("fake driver: calls need cuInit, and failures can be injected") {
  useDevices("9.0,9.0");
  auto count = entryPoint<PFN_cuDeviceGetCount_v2000>("cuDeviceGetCount", 2000);
  int devices = 0;
  CHECK(count(&devices) == CUDA_ERROR_NOT_INITIALIZED);
  initialise();
  REQUIRE(count(&devices) == CUDA_SUCCESS);
  CHECK(devices == 2);

  fake_cuda_fail("cuDeviceGetCount", CUDA_ERROR_OUT_OF_MEMORY, 2);
  CHECK(count(&devices) == CUDA_ERROR_OUT_OF_MEMORY);
  CHECK(count(&devices) == CUDA_ERROR_OUT_OF_MEMORY);
  CHECK(count(&devices) == CUDA_SUCCESS);
  fake_cuda_fail("cuDeviceGetCount", CUDA_ERROR_UNKNOWN, FAKE_CUDA_ALWAYS);
  for (int i = 0; i < 3; ++i)
    CHECK(count(&devices) == CUDA_ERROR_UNKNOWN);
  fake_cuda_fail("cuDeviceGetCount", CUDA_ERROR_UNKNOWN, 0);
  CHECK(count(&devices) == CUDA_SUCCESS);

  auto calls = loggedCalls("cuDeviceGetCount");
  REQUIRE(calls.size() == 9);
  CHECK(calls[0].result == CUDA_ERROR_NOT_INITIALIZED);
  CHECK(calls[2].result == CUDA_ERROR_OUT_OF_MEMORY);
  CHECK(calls[8].value == 2);
}

TEST_CASE("fake driver: finds the images of a fatbin and picks one per device as the driver") {
  useDevices("9.0,8.6,8.9,10.0,7.5");
  initialise();
  std::string fatbin = readFile(moduleFile("multi/multi.fatbin"));
  CUlibrary library = loadLibrary(fatbin);
  auto load = loggedCalls("cuLibraryLoadData");
  REQUIRE(load.size() == 1);
  REQUIRE(load[0].image_count == 2);

  auto getModule = entryPoint<PFN_cuLibraryGetModule_v12000>("cuLibraryGetModule", 12000);
  const CUresult expected[] = {CUDA_SUCCESS, CUDA_SUCCESS, CUDA_SUCCESS,
                               CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU};
  const int chosen[] = {90, 80, 80, -1, -1};
  for (int device = 0; device < 5; ++device) {
    usePrimaryContext(device);
    CUmodule module = nullptr;
    CHECK(getModule(&module, library) == expected[device]);
    CHECK(fake_cuda_chosen_sm(device) == chosen[device]);
  }
}

TEST_CASE("fake driver: finds a kernel by its exact symbol only") {
  useDevices("9.0");
  initialise();
  CUlibrary library = loadLibrary(readFile(moduleFile("basic/basic.cubin")));
  auto get = entryPoint<PFN_cuLibraryGetKernel_v12000>("cuLibraryGetKernel", 12000);
  CUkernel kernel = nullptr, again = nullptr;
  CHECK(get(&kernel, library, "_Z5scalePffi") == CUDA_SUCCESS);
  CHECK(get(&again, library, "_Z5scalePffi") == CUDA_SUCCESS);
  CHECK(again == kernel);
  CHECK(get(&kernel, library, "_Z5scale") == CUDA_ERROR_NOT_FOUND);
  CHECK(get(&kernel, library, "scale") == CUDA_ERROR_NOT_FOUND);

  auto unload = entryPoint<PFN_cuLibraryUnload_v12000>("cuLibraryUnload", 12000);
  CHECK(unload(library) == CUDA_SUCCESS);
  CHECK(unload(library) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(get(&kernel, library, "_Z5scalePffi") == CUDA_ERROR_INVALID_HANDLE);
}

TEST_CASE("fake driver: context stacks belong to their thread") {
  useDevices("9.0");
  initialise();
  auto push = entryPoint<PFN_cuCtxPushCurrent_v4000>("cuCtxPushCurrent", 4000);
  CUcontext own = fake_cuda_create_context(0);
  REQUIRE(push(own) == CUDA_SUCCESS);
  CHECK(fake_cuda_current_context() == own);
  CUcontext elsewhere = own;
  std::thread([&] { elsewhere = fake_cuda_current_context(); }).join();
  CHECK(elsewhere == nullptr);

  REQUIRE(fake_cuda_destroy_context(own) == 0); // pops it
  CHECK(fake_cuda_current_context() == nullptr);
  CHECK(push(own) == CUDA_ERROR_INVALID_CONTEXT);
}

TEST_CASE("fake driver: launches are checked as the driver checks them") {
  useDevices("9.0");
  initialise();
  CUlibrary library = loadLibrary(readFile(moduleFile("basic/basic.cubin")));
  CUkernel stage = kernelIn(library, "_Z5stagePKfPfi");
  auto launch = entryPoint<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 4000);
  auto launchEx = entryPoint<PFN_cuLaunchKernelEx_v11060>("cuLaunchKernelEx", 11060);
  auto setAttribute = entryPoint<PFN_cuKernelSetAttribute_v12000>("cuKernelSetAttribute", 12000);
  auto function = reinterpret_cast<CUfunction>(stage);
  const float* in = nullptr;
  float* out = nullptr;
  int n = 0;
  void* params[] = {&in, &out, &n};

  CHECK(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) ==
        CUDA_ERROR_INVALID_CONTEXT);
  usePrimaryContext(0);
  CHECK(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS);
  CHECK(launch(function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) ==
        CUDA_ERROR_INVALID_VALUE);
  CHECK(launch(function, 1, 1, 1, 32, 1, 1, 64 * 1024, nullptr, params, nullptr) ==
        CUDA_ERROR_INVALID_VALUE);
  REQUIRE(setAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024, stage, 0) ==
          CUDA_SUCCESS);
  CHECK(launch(function, 1, 1, 1, 32, 1, 1, 64 * 1024, nullptr, params, nullptr) == CUDA_SUCCESS);

  CUlaunchAttribute cluster = {};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = 16;
  cluster.value.clusterDim.y = 1;
  cluster.value.clusterDim.z = 1;
  CUlaunchConfig config = {};
  config.gridDimX = 32;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 32;
  config.blockDimY = config.blockDimZ = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  CHECK(launchEx(&config, function, params, nullptr) == CUDA_ERROR_INVALID_CLUSTER_SIZE);
  REQUIRE(setAttribute(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1, stage, 0) ==
          CUDA_SUCCESS);
  CHECK(launchEx(&config, function, params, nullptr) == CUDA_SUCCESS);
  config.gridDimX = 24;
  CHECK(launchEx(&config, function, params, nullptr) == CUDA_ERROR_INVALID_CLUSTER_SIZE);
}

TEST_CASE("fake driver: tensor map encodes are recorded and leave a pattern") {
  useDevices("9.0");
  initialise();
  auto tiled = entryPoint<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled", 12000);
  alignas(16) static float data[64 * 32];
  const cuuint64_t dims[] = {64, 32};
  const cuuint64_t strides[] = {64 * sizeof(float)};
  const cuuint32_t box[] = {16, 8};
  const cuuint32_t elementStrides[] = {1, 1};
  CUtensorMap map = {};
  REQUIRE(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, data, dims, strides, box, elementStrides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_64B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) == CUDA_SUCCESS);
  auto calls = loggedCalls("cuTensorMapEncodeTiled");
  REQUIRE(calls.size() == 1);
  const fake_cuda_tensor_map_call& encoded = calls[0].tensor_map;
  CHECK(fake_cuda_tensor_map_source(&map) == calls[0].index);
  CHECK(encoded.map == &map);
  CHECK(encoded.data_type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  CHECK(encoded.rank == 2);
  CHECK(encoded.address == data);
  CHECK(encoded.dims[0] == 64);
  CHECK(encoded.dims[1] == 32);
  CHECK(encoded.strides[0] == 256);
  CHECK(encoded.box[0] == 16);
  CHECK(encoded.box[1] == 8);
  CHECK(encoded.element_strides[1] == 1);
  CHECK(encoded.swizzle == CU_TENSOR_MAP_SWIZZLE_64B);
  CHECK(encoded.l2_promotion == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  CHECK(encoded.oob_fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);

  CUtensorMap misaligned = {};
  CHECK(tiled(&misaligned, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, data + 1, dims, strides, box,
              elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_L2_PROMOTION_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);
  CHECK(fake_cuda_tensor_map_source(&misaligned) == -1);

  auto im2col = entryPoint<PFN_cuTensorMapEncodeIm2col_v12000>("cuTensorMapEncodeIm2col", 12000);
  const cuuint64_t nhwc[] = {16, 8, 8, 2};
  const cuuint64_t nhwcStrides[] = {16 * 4, 16 * 4 * 8, 16 * 4 * 64};
  const int lower[] = {-1, -1};
  const int upper[] = {1, 1};
  const cuuint32_t ones[] = {1, 1, 1, 1};
  CUtensorMap im2colMap = {};
  REQUIRE(im2col(&im2colMap, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, data, nhwc, nhwcStrides, lower,
                 upper, 16, 32, ones, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                 CU_TENSOR_MAP_L2_PROMOTION_NONE,
                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  calls = loggedCalls("cuTensorMapEncodeIm2col");
  REQUIRE(calls.size() == 1);
  CHECK(fake_cuda_tensor_map_source(&im2colMap) == calls[0].index);
  CHECK(calls[0].tensor_map.lower_corner[1] == -1);
  CHECK(calls[0].tensor_map.upper_corner[0] == 1);
  CHECK(calls[0].tensor_map.channels_per_pixel == 16);
  CHECK(calls[0].tensor_map.pixels_per_column == 32);
  CHECK(calls[0].tensor_map.strides[2] == 16 * 4 * 64);
}

TEST_CASE("fake driver: a launch records which parameters point at an encoded map") {
  useDevices("9.0");
  initialise();
  CUlibrary library = loadLibrary(readFile(moduleFile("tma_params.cubin")));
  CUkernel kernel = kernelIn(library, "two_maps");
  auto tiled = entryPoint<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled", 12000);
  alignas(16) static float data[256];
  const cuuint64_t dims[] = {256};
  const cuuint32_t box[] = {32};
  const cuuint32_t elementStrides[] = {1};
  CUtensorMap map = {};
  REQUIRE(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, data, dims, nullptr, box, elementStrides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  long encodedAt = fake_cuda_tensor_map_source(&map);
  REQUIRE(encodedAt >= 0);

  usePrimaryContext(0);
  int n = 42;
  void* params[] = {&map, &n, &map};
  auto launch = entryPoint<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 4000);
  REQUIRE(launch(reinterpret_cast<CUfunction>(kernel), 1, 1, 1, 32, 1, 1, 0, nullptr, params,
                 nullptr) == CUDA_SUCCESS);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 1);
  REQUIRE(launches[0].param_count == 3);
  CHECK(launches[0].params[0] == &map);
  CHECK(launches[0].params[2] == &map);
  CHECK(launches[0].param_tensor_map[0] == encodedAt);
  CHECK(launches[0].param_tensor_map[1] == -1);
  CHECK(launches[0].param_tensor_map[2] == encodedAt);
  CHECK(launches[0].param_values[1] == 42);
}
