/* NAME.h from C99 (compiled with -Werror -pedantic -Wall -Wextra -Wshadow -Wconversion,
   test/runtime/CMakeLists.txt): a struct of the kernel's as its mirror and 16-bit floats through
   tlc's conversions. CxxTypesTests.cpp calls it. */
#include "cxx.h"

#include <string.h>

tlc_status launchWithParamsFromC(const void* params, const void* many, void* out);

tlc_status launchWithParamsFromC(const void* params, const void* many, void* out) {
  tlc_config config = {0};
  cxx_mylib_Params mirror;
  tlc_status (*launcher)(const tlc_config*, cxx_mylib_Params, const cxx_mylib_Params*,
                         cxx_mylib_Params*, tlc_half, tlc_bfloat16, int) = cxx_with_params;
  config.grid[0] = 1;
  config.block[0] = 1;
  memcpy(&mirror, params, sizeof mirror);
  return launcher(&config, mirror, (const cxx_mylib_Params*)many, (cxx_mylib_Params*)out,
                  tlc_half_from_float(1.0f), tlc_bfloat16_from_float(0.5f), 2);
}
