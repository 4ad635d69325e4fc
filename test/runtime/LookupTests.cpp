// tlc_NAME_find_kernel: exact names first, then unique substrings, base names over _N variants.
// Lookup needs no driver, so every test also checks that the fake was never called.
#include "FakeDriver.h"

#include "lookup.h"

#include <catch2/catch.hpp>

#include <string>

using namespace tlc_test;

namespace {

constexpr int kUnset = -1;

// The kernel `pattern` finds, or the failing status's name.
std::string find(const char* pattern) {
  int kernel = kUnset;
  tlc_status status = tlc_lookup_find_kernel(pattern, &kernel);
  if (status != TLC_SUCCESS) {
    REQUIRE(kernel == kUnset); // a failed lookup leaves the result alone
    return tlc_lookup_status_string(status);
  }
  REQUIRE(kernel >= 0);
  REQUIRE(kernel < TLC_LOOKUP_KERNELS);
  return tlc_lookup_kernel_name(kernel);
}

} // namespace

TEST_CASE("find_kernel finds an exact symbol") {
  useDevices("9.0");
  CHECK(find("_Z11main_kernelPf") == "_Z11main_kernelPf");
  CHECK(find("_Z13main_kernel_1Pf") == "_Z13main_kernel_1Pf");
  CHECK(find("_Z13original_namePi") == "_Z13original_namePi");
  CHECK(fake_cuda_log_size() == 0);
}

TEST_CASE("find_kernel finds an exact launcher name") {
  useDevices("9.0");
  CHECK(find("renamed") == tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_renamed));
  CHECK(find("main_kernel_2") == tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_main_kernel_2));
  CHECK(find("scale_cols") == tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_scale_cols));
  CHECK(fake_cuda_log_size() == 0);
}

TEST_CASE("find_kernel finds a unique substring of a symbol or launcher name") {
  useDevices("9.0");
  CHECK(find("oth") == tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_other));
  CHECK(find("original") ==
        tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_renamed)); // in the symbol only
  CHECK(find("name") == tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_renamed));
  CHECK(find("rows") == tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_scale_rows));
  CHECK(fake_cuda_log_size() == 0);
}

TEST_CASE("find_kernel prefers a base name over its numbered variants") {
  useDevices("9.0");
  CHECK(find("main") == tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_main_kernel));
  CHECK(find("main_ker") == tlc_lookup_kernel_name(TLC_LOOKUP_KERNEL_main_kernel));
  CHECK(fake_cuda_log_size() == 0);
}

TEST_CASE("find_kernel keeps numbered variants apart when their base does not match") {
  useDevices("9.0");
  // "kernel_" is in main_kernel_1 and main_kernel_2 but not in main_kernel.
  REQUIRE(find("kernel_") == "TLC_ERROR_AMBIGUOUS");
  CHECK_THAT(tlc_lookup_last_error(),
             Catch::Contains("_Z13main_kernel_1Pf") && Catch::Contains("_Z13main_kernel_2Pf"));
}

TEST_CASE("find_kernel reports an ambiguous pattern with its matches") {
  useDevices("9.0");
  REQUIRE(find("scale") == "TLC_ERROR_AMBIGUOUS");
  std::string message = tlc_lookup_last_error();
  CHECK_THAT(message, Catch::Contains("'scale' matches 2 kernels") &&
                          Catch::Contains("_Z10scale_rowsPfi") &&
                          Catch::Contains("_Z10scale_colsPfi"));
  CHECK_THAT(message, !Catch::Contains("main_kernel"));
  CHECK(fake_cuda_log_size() == 0);
}

TEST_CASE("find_kernel reports a pattern nothing matches") {
  useDevices("9.0");
  REQUIRE(find("no_such_kernel") == "TLC_ERROR_NOT_FOUND");
  CHECK_THAT(tlc_lookup_last_error(), Catch::Contains("'no_such_kernel'"));
  CHECK(fake_cuda_log_size() == 0);
}

TEST_CASE("find_kernel rejects NULL arguments") {
  useDevices("9.0");
  int kernel = kUnset;
  CHECK(tlc_lookup_find_kernel(nullptr, &kernel) == TLC_ERROR_INVALID_VALUE);
  CHECK(kernel == kUnset);
  CHECK(tlc_lookup_find_kernel("main", nullptr) == TLC_ERROR_INVALID_VALUE);
  CHECK_THAT(tlc_lookup_last_error(), Catch::Contains("must not be NULL"));
  CHECK(fake_cuda_log_size() == 0);
}
