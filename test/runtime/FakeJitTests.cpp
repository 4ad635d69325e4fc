// The fake driver's model of PTX: fatbin PTX entries chosen per device as the driver chooses
// them, "JIT-compiled" by reading their declarations, JIT failures and their log, and the
// cuLink* linker over relocatable PTX. Images from nvcc and fatbinary (test/runtime/images).
#include "FakeDriver.h"

#include <cstring>
#include <string>

using namespace tlc_test;

namespace {

std::string image(const std::string& name) {
  return readFile(moduleFile("images/" + name));
}

// cuLibraryLoadData with an error log buffer, which must succeed.
CUlibrary loadWithLog(const std::string& code, char (&log)[1024]) {
  log[0] = '\0';
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(sizeof log)};
  CUlibrary library = nullptr;
  auto load = entryPoint<PFN_cuLibraryLoadData_v12000>("cuLibraryLoadData", 12000);
  REQUIRE(load(&library, code.data(), options, values, 2, nullptr, nullptr, 0) == CUDA_SUCCESS);
  return library;
}

CUresult getKernel(CUlibrary library, const char* symbol) {
  CUkernel kernel = nullptr;
  return entryPoint<PFN_cuLibraryGetKernel_v12000>("cuLibraryGetKernel", 12000)(&kernel, library,
                                                                                symbol);
}

CUresult getModule(CUlibrary library) {
  CUmodule module = nullptr;
  return entryPoint<PFN_cuLibraryGetModule_v12000>("cuLibraryGetModule", 12000)(&module, library);
}

CUresult launch(CUkernel kernel, unsigned grid, void** params) {
  auto launchKernel = entryPoint<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 4000);
  return launchKernel(reinterpret_cast<CUfunction>(kernel), grid, 1, 1, 32, 1, 1, 0, nullptr,
                      params, nullptr);
}

// A link in the current context, with an error log.
struct Link {
  CUlinkState state = nullptr;
  char log[1024] = {};

  Link() {
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(sizeof log)};
    REQUIRE(entryPoint<PFN_cuLinkCreate_v6050>("cuLinkCreate", 6050)(2, options, values, &state) ==
            CUDA_SUCCESS);
  }
  CUresult add(const std::string& text, const char* name, CUjitInputType type = CU_JIT_INPUT_PTX) {
    return entryPoint<PFN_cuLinkAddData_v6050>("cuLinkAddData", 6050)(
        state, type, const_cast<char*>(text.c_str()), text.size() + 1, name, 0, nullptr, nullptr);
  }
  CUresult complete(void*& cubin, size_t& size) {
    return entryPoint<PFN_cuLinkComplete_v5050>("cuLinkComplete", 5050)(state, &cubin, &size);
  }
  CUresult destroy() { return entryPoint<PFN_cuLinkDestroy_v5050>("cuLinkDestroy", 5050)(state); }
};

} // namespace

TEST_CASE("fake driver: a device without matching SASS runs a fatbin's PTX") {
  useDevices("9.0,8.6,10.0,7.5");
  initialise();
  CUlibrary library = loadLibrary(image("jit_sm_90a_ptx.fatbin"));
  fake_cuda_call load = onlyCall("cuLibraryLoadData");
  REQUIRE(load.image_count == 2);
  CHECK(load.image_codes[0] == FAKE_CUDA_CODE_SASS);
  CHECK(load.image_sms[0] == 90);
  CHECK(load.image_codes[1] == FAKE_CUDA_CODE_PTX);
  CHECK(load.image_sms[1] == 80);

  const CUresult expected[] = {CUDA_SUCCESS, CUDA_SUCCESS, CUDA_SUCCESS,
                               CUDA_ERROR_NO_BINARY_FOR_GPU};
  const int sms[] = {90, 80, 80, -1};
  const int codes[] = {FAKE_CUDA_CODE_SASS, FAKE_CUDA_CODE_PTX, FAKE_CUDA_CODE_PTX,
                       FAKE_CUDA_CODE_NONE};
  for (int device = 0; device < 4; ++device) {
    INFO("device " << device);
    usePrimaryContext(device);
    CHECK(getModule(library) == expected[device]);
    CHECK(fake_cuda_chosen_sm(device) == sms[device]);
    CHECK(fake_cuda_chosen_code(device) == codes[device]);
  }
  auto modules = loggedCalls("cuLibraryGetModule");
  REQUIRE(modules.size() == 4);
  CHECK(modules[1].code == FAKE_CUDA_CODE_PTX);
  CHECK(modules[1].sm == 80);
  CHECK(modules[3].code == FAKE_CUDA_CODE_NONE);
  CHECK(fake_cuda_jit_count() == 2); // once per device that runs the PTX
}

TEST_CASE("fake driver: SASS that runs on the device is preferred to PTX") {
  useDevices("8.6,9.0");
  initialise();
  CUlibrary library = loadLibrary(image("jit_sm_80_ptx.fatbin"));
  usePrimaryContext(0);
  CHECK(getModule(library) == CUDA_SUCCESS);
  CHECK(fake_cuda_chosen_code(0) == FAKE_CUDA_CODE_SASS);
  CHECK(fake_cuda_chosen_sm(0) == 80);
  usePrimaryContext(1);
  CHECK(getModule(library) == CUDA_SUCCESS);
  CHECK(fake_cuda_chosen_code(1) == FAKE_CUDA_CODE_PTX);
  CHECK(fake_cuda_jit_count() == 1);
}

TEST_CASE("fake driver: arch-specific PTX runs on its arch only, family PTX on its family") {
  // compute_80, compute_90a and compute_100f.
  useDevices("9.0,8.9,10.3,12.0,8.0,7.5");
  initialise();
  CUlibrary library = loadLibrary(image("jit_variants.fatbin"));
  const int sms[] = {90, 80, 100, 80, 80, -1};
  for (int device = 0; device < 6; ++device) {
    INFO("device " << device);
    usePrimaryContext(device);
    CHECK(getModule(library) == (sms[device] < 0 ? CUDA_ERROR_NO_BINARY_FOR_GPU : CUDA_SUCCESS));
    CHECK(fake_cuda_chosen_sm(device) == sms[device]);
  }
}

TEST_CASE("fake driver: launches of JIT-compiled kernels check their PTX parameters") {
  useDevices("9.0");
  initialise();
  usePrimaryContext(0);
  CUlibrary library = loadLibrary(image("jit_ptx.fatbin"));
  CUkernel sum = kernelIn(library, "jit_sum");
  double pair[2] = {1.5, 2.5};
  void* out = nullptr;
  void* params[] = {pair, &out};
  REQUIRE(launch(sum, 1, params) == CUDA_SUCCESS);
  CHECK(launch(sum, 1, nullptr) == CUDA_ERROR_INVALID_VALUE);
  auto launches = loggedCalls("cuLaunchKernel");
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].code == FAKE_CUDA_CODE_PTX);
  CHECK(launches[0].sm == 80);
  REQUIRE(launches[0].param_count == 2); // a 16-byte struct by value, then a pointer
  double first = 0;
  std::memcpy(&first, &launches[0].param_values[0], sizeof first);
  CHECK(first == 1.5);
  CHECK(getKernel(library, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);
}

TEST_CASE("fake driver: .entry, .weak .entry and cluster shapes are read from PTX") {
  useDevices("9.0");
  initialise();
  usePrimaryContext(0);
  std::string ptx = image("entries_compute_90.ptx");
  // A static kernel's name carries a hash of its file: take it from the PTX.
  size_t start = ptx.find("__nv_static_");
  REQUIRE(start != std::string::npos);
  std::string staticKernel = ptx.substr(start, ptx.find('(', start) - start);
  CUlibrary library = loadLibrary(image("entries.fatbin"));
  CHECK(getKernel(library, staticKernel.c_str()) == CUDA_SUCCESS);
  CUkernel weak = kernelIn(library, "_Z16entries_templateIdEvPT_S0_");
  CUkernel cluster = kernelIn(library, "entries_cluster");

  double value = 2.0;
  void* out = nullptr;
  void* params[] = {&out, &value};
  REQUIRE(launch(weak, 1, params) == CUDA_SUCCESS);
  CHECK(loggedCalls("cuLaunchKernel").back().param_count == 2);
  CHECK(launch(cluster, 3, params) == CUDA_ERROR_INVALID_CLUSTER_SIZE); // 3 blocks, clusters of 2
  CHECK(launch(cluster, 4, params) == CUDA_SUCCESS);
}

TEST_CASE("fake driver: an injected JIT failure fills the error log and is kept") {
  useDevices("9.0");
  initialise();
  usePrimaryContext(0);
  fake_cuda_fail("jit", CUDA_ERROR_INVALID_PTX, 1);
  char log[1024];
  // As on an H100: the load compiles for the current device and succeeds; the lookup fails.
  CUlibrary library = loadWithLog(image("jit_ptx.fatbin"), log);
  CHECK_THAT(log, Catch::Contains(FAKE_CUDA_JIT_INJECTED));
  CHECK(getKernel(library, "jit_fill") == CUDA_ERROR_INVALID_PTX);
  CHECK(getKernel(library, "jit_fill") == CUDA_ERROR_INVALID_PTX);
  CHECK(getModule(library) == CUDA_ERROR_INVALID_PTX);
  CHECK(fake_cuda_jit_count() == 1);
  CHECK(fake_cuda_chosen_code(0) == FAKE_CUDA_CODE_NONE);

  CUlibrary again = loadWithLog(image("jit_ptx.fatbin"), log); // the injection is spent
  CHECK(getKernel(again, "jit_fill") == CUDA_SUCCESS);
  CHECK(std::string(log).empty());
  CHECK(fake_cuda_jit_count() == 2);
}

TEST_CASE("fake driver: a JIT failure waits for the first call that needs the code") {
  useDevices("8.6");
  initialise();
  fake_cuda_fail("jit", CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 1);
  char log[1024];
  CUlibrary library = loadWithLog(image("jit_ptx.fatbin"), log); // no context: nothing compiled
  CHECK(fake_cuda_jit_count() == 0);
  CUkernel fill = kernelIn(library, "jit_fill");
  usePrimaryContext(0);
  int value = 1, n = 1;
  void* out = nullptr;
  void* params[] = {&out, &value, &n};
  CHECK(launch(fill, 1, params) == CUDA_ERROR_JIT_COMPILER_NOT_FOUND);
  CHECK_THAT(log, Catch::Contains(FAKE_CUDA_JIT_INJECTED));
  CHECK(fake_cuda_jit_count() == 1);
}

TEST_CASE("fake driver: relocatable PTX entries do not load as they are, as on an H100") {
  useDevices("8.6,9.0");
  initialise();
  usePrimaryContext(0);
  char log[1024];
  // The driver compiles the first of link_main's and link_helper's entries, which calls twice().
  CUlibrary library = loadWithLog(image("link.fatbin"), log);
  CHECK_THAT(log, Catch::Equals("ptxas fatal   : Unresolved extern function '_Z5twicei'"));
  CHECK(getKernel(library, "link_main") == CUDA_ERROR_INVALID_PTX);
  usePrimaryContext(1); // the device-linked SASS serves this one
  CHECK(getKernel(library, "link_main") == CUDA_SUCCESS);

  // The other way round, the first entry compiles, and holds only its own kernels.
  usePrimaryContext(0);
  CUlibrary reversed = loadWithLog(image("link_reversed.fatbin"), log);
  CHECK(std::string(log).empty());
  CHECK(getKernel(reversed, "link_side") == CUDA_SUCCESS);
  CHECK(getKernel(reversed, "link_main") == CUDA_ERROR_NOT_FOUND);
}

TEST_CASE("fake driver: cuLink* links relocatable PTX into a cubin cuLibraryLoadData runs") {
  useDevices("8.6");
  initialise();
  usePrimaryContext(0);
  Link link;
  REQUIRE(link.add(image("link_main_compute_80.ptx"), "main.ptx") == CUDA_SUCCESS);
  REQUIRE(link.add(image("link_helper_compute_80.ptx"), "helper.ptx") == CUDA_SUCCESS);
  void* cubin = nullptr;
  size_t size = 0;
  REQUIRE(link.complete(cubin, size) == CUDA_SUCCESS);
  CHECK(std::string(link.log).empty());
  std::string linked(static_cast<const char*>(cubin), size);
  CHECK(onlyCall("cuLinkComplete").value == 2);
  auto added = loggedCalls("cuLinkAddData");
  REQUIRE(added.size() == 2);
  CHECK(std::string(added[0].symbol) == "main.ptx");
  CHECK(added[0].value == CU_JIT_INPUT_PTX);
  REQUIRE(link.destroy() == CUDA_SUCCESS);

  CUlibrary library = loadLibrary(linked);
  fake_cuda_call load = loggedCalls("cuLibraryLoadData").back();
  REQUIRE(load.image_count == 1);
  CHECK(load.image_codes[0] == FAKE_CUDA_CODE_LINKED);
  CHECK(load.image_sms[0] == 86); // for the device it was linked on
  CUkernel main = kernelIn(library, "link_main");
  CHECK(getKernel(library, "link_side") == CUDA_SUCCESS);
  int x = 3;
  void* out = nullptr;
  void* params[] = {&out, &x};
  REQUIRE(launch(main, 1, params) == CUDA_SUCCESS);
  fake_cuda_call launched = loggedCalls("cuLaunchKernel").back();
  CHECK(launched.code == FAKE_CUDA_CODE_LINKED);
  CHECK(launched.param_count == 2);
  CHECK(fake_cuda_jit_count() == 2); // the inputs; the linked cubin needs none
}

TEST_CASE("fake driver: a linked cubin dies with its link state") {
  useDevices("8.6");
  initialise();
  usePrimaryContext(0);
  Link link;
  REQUIRE(link.add(image("jit_compute_80.ptx"), "jit.ptx") == CUDA_SUCCESS);
  void* cubin = nullptr;
  size_t size = 0;
  REQUIRE(link.complete(cubin, size) == CUDA_SUCCESS);
  REQUIRE(link.destroy() == CUDA_SUCCESS);
  CUlibrary library = nullptr;
  auto load = entryPoint<PFN_cuLibraryLoadData_v12000>("cuLibraryLoadData", 12000);
  CHECK(load(&library, cubin, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
        CUDA_ERROR_INVALID_IMAGE);
  CHECK(link.destroy() == CUDA_ERROR_INVALID_HANDLE);
}

TEST_CASE("fake driver: an unresolved or twice defined function fails cuLinkComplete") {
  useDevices("8.6");
  initialise();
  usePrimaryContext(0);
  void* cubin = nullptr;
  size_t size = 0;
  {
    Link link;
    REQUIRE(link.add(image("link_main_compute_80.ptx"), "main.ptx") == CUDA_SUCCESS);
    CHECK(link.complete(cubin, size) == CUDA_ERROR_UNKNOWN); // what the real driver returns
    CHECK_THAT(link.log,
               Catch::Equals("error   : Undefined reference to '_Z5twicei' in 'main.ptx'"));
    link.destroy();
  }
  {
    Link link;
    REQUIRE(link.add(image("link_helper_compute_80.ptx"), "one.ptx") == CUDA_SUCCESS);
    REQUIRE(link.add(image("link_helper_compute_80.ptx"), "two.ptx") == CUDA_SUCCESS);
    CHECK(link.complete(cubin, size) == CUDA_ERROR_UNKNOWN);
    CHECK_THAT(link.log, Catch::Contains("Multiple definition of '_Z5twicei' in 'two.ptx', first "
                                         "defined in 'one.ptx'") &&
                             Catch::Contains("Multiple definition of 'link_side'"));
    link.destroy();
  }
  {
    Link link;
    REQUIRE(link.add(image("dynamic_compute_80.ptx"), "dynamic.ptx") == CUDA_SUCCESS);
    CHECK(link.complete(cubin, size) == CUDA_ERROR_UNKNOWN);
    CHECK_THAT(link.log, Catch::Contains("Undefined reference to '__cudaCDP2LaunchDeviceV2'"));
    link.destroy();
  }
}

TEST_CASE("fake driver: cuLinkAddData refuses what it cannot compile") {
  useDevices("8.6");
  initialise();
  CUlinkState state = nullptr;
  CHECK(entryPoint<PFN_cuLinkCreate_v6050>("cuLinkCreate", 6050)(0, nullptr, nullptr, &state) ==
        CUDA_ERROR_INVALID_CONTEXT);
  usePrimaryContext(0);
  Link link;
  CHECK(link.add(image("link_sm_90a.cubin"), "x.cubin", CU_JIT_INPUT_CUBIN) ==
        CUDA_ERROR_NOT_SUPPORTED);
  CHECK(link.add("this is not PTX", "bad.ptx") == CUDA_ERROR_INVALID_PTX);
  CHECK_THAT(link.log, Catch::Contains("Missing .version directive"));
  CHECK(link.add(image("jit_compute_90a.ptx"), "sm_90a.ptx") == CUDA_ERROR_INVALID_PTX);
  CHECK_THAT(link.log, Catch::Contains("SM version"));
  fake_cuda_fail("jit", CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 1);
  CHECK(link.add(image("jit_compute_80.ptx"), "jit.ptx") == CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  CHECK_THAT(link.log, Catch::Contains(FAKE_CUDA_JIT_INJECTED));
  CHECK(link.add(image("jit_compute_80.ptx"), "jit.ptx") == CUDA_SUCCESS);
}

TEST_CASE("fake driver: a fatbin of compressed entries only is no image it can load") {
  useDevices("9.0");
  initialise();
  CUlibrary library = nullptr;
  std::string compressed = image("jit_compressed.fatbin");
  auto load = entryPoint<PFN_cuLibraryLoadData_v12000>("cuLibraryLoadData", 12000);
  CHECK(load(&library, compressed.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) ==
        CUDA_ERROR_INVALID_IMAGE);
  CHECK(onlyCall("cuLibraryLoadData").image_count == 0);
}
