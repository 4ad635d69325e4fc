/* Links the EXTERNAL_IMAGE library (written to a custom OUTPUT_DIRECTORY): only the kernel chosen
   with ENTRIES has a launcher, and the library loads its image from its own folder. */
#include "options.h"

#include <stdio.h>

int main(void) {
  int kernel = -1;
  tlc_status status;
  if (tlc_options_kernel_count() != 1 || tlc_options_find_kernel("keep", &kernel) != TLC_SUCCESS) {
    fprintf(stderr, "expected exactly the kernel `keep`: %s\n", tlc_options_last_error());
    return 1;
  }
  if (tlc_options_find_kernel("drop", &kernel) != TLC_ERROR_NOT_FOUND) {
    fprintf(stderr, "`drop` should have been left out by ENTRIES\n");
    return 1;
  }
  status = tlc_options_load(0);
  printf("tlc_options_load(0): %s\n", tlc_options_status_string(status));
  if (status != TLC_SUCCESS && status != TLC_ERROR_NO_DRIVER && status != TLC_ERROR_NO_DEVICE) {
    fprintf(stderr, "%s\n", tlc_options_last_error());
    return 1;
  }
  return 0;
}
