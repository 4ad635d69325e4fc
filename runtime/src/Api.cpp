// The module-level calls behind tlc_NAME_load, _unload and _image_target.
#include "Errors.h"
#include "State.h"

namespace tlc::runtime {

tlc_status load(Module& module, int device) {
  ActiveDevice active;
  return activate(module, device, active);
}

tlc_status unload(Module& module) {
  return unloadModule(module);
}

tlc_status imageTarget(Module& module, int device, const char** target) {
  if (!target)
    return fail(TLC_ERROR_INVALID_VALUE, "tlc_%s_image_target: the result pointer is NULL",
                module.name);
  int chosen = -1;
  tlc_status status = deviceTarget(module, device, chosen);
  if (status == TLC_SUCCESS)
    *target = module.targets[chosen].name;
  return status;
}

} // namespace tlc::runtime
