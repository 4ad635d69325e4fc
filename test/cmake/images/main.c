/* Links the launcher libraries of two device images (an nvcc-built cubin, hand-written PTX); on a
   GPU each says which target the device runs. The launchers' prototypes are the declarations'. */
#include "images_cubin.h"
#include "images_ptx.h"

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
  /* Typed from the declarations: taking their addresses checks the prototypes. */
  tlc_status (*vadd)(const tlc_config*, const float*, const float*, float*, int) =
      images_cubin_vadd;
  tlc_status (*scale)(const tlc_config*, float*, float, unsigned int) = images_ptx_scale_f32;
  int failed = vadd == NULL || scale == NULL;
  failed |= report("images_cubin", tlc_images_cubin_image_target, tlc_images_cubin_last_error);
  failed |= report("images_ptx", tlc_images_ptx_image_target, tlc_images_ptx_last_error);
  printf("images_cubin load(0): %s\n", tlc_images_cubin_status_string(tlc_images_cubin_load(0)));
  return failed;
}
