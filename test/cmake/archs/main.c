/* Links three libraries of the same kernel built for different targets; on a GPU each says which
   target the device runs, and runs the kernel where it can. */
#include "archs_cmake.h"
#include "archs_default.h"
#include "archs_nvcc.h"

#include <stdio.h>

static int report(const char* name, tlc_status (*target)(int, const char**),
                  const char* (*message)(void)) {
  const char* chosen = NULL;
  tlc_status status = target(0, &chosen);
  printf("%s image_target(0): %s\n", name, status == TLC_SUCCESS ? chosen : message());
  return status == TLC_SUCCESS || status == TLC_ERROR_NO_DRIVER || status == TLC_ERROR_NO_DEVICE ||
                 status == TLC_ERROR_NO_BINARY
             ? 0
             : 1;
}

int main(void) {
  int failed = 0;
  failed |= report("archs_default", tlc_archs_default_image_target, tlc_archs_default_last_error);
  failed |= report("archs_cmake", tlc_archs_cmake_image_target, tlc_archs_cmake_last_error);
  failed |= report("archs_nvcc", tlc_archs_nvcc_image_target, tlc_archs_nvcc_last_error);
  printf("archs_default load(0): %s\n", tlc_archs_default_status_string(tlc_archs_default_load(0)));
  return failed;
}
