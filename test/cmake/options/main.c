/* Links the EXTERNAL_IMAGE library (written to a custom OUTPUT_DIRECTORY): only the kernel chosen
   with ENTRIES has a launcher, and the library loads its image from its own folder. */
#include "options.h"

#include <stdio.h>

int main(void) {
  int kernel = -1;
  tlc_status status;
  if (options_kernel_count() != 1 || options_find_kernel("keep", &kernel) != TLC_SUCCESS) {
    fprintf(stderr, "expected exactly the kernel `keep`: %s\n", options_last_error());
    return 1;
  }
  if (options_find_kernel("drop", &kernel) != TLC_ERROR_NOT_FOUND) {
    fprintf(stderr, "`drop` should have been left out by ENTRIES\n");
    return 1;
  }
  status = options_load(0);
  printf("options_load(0): %s\n", options_status_string(status));
  if (status != TLC_SUCCESS && status != TLC_ERROR_NO_DRIVER && status != TLC_ERROR_NO_DEVICE) {
    fprintf(stderr, "%s\n", options_last_error());
    return 1;
  }
  return 0;
}
