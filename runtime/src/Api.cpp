// The module-level calls behind tlc_NAME_load, _unload and _image_target.
#include "Errors.h"
#include "State.h"
#include "Targets.h"

namespace tlc::runtime {

tlc_status load(Module& module, int device) {
  ActiveDevice active;
  return activate(module, device, active);
}

tlc_status unload(Module& module) { return unloadModule(module); }

tlc_status imageTarget(Module& module, int device, const char** target) {
  if (!target)
    return fail(TLC_ERROR_INVALID_VALUE, "tlc_%s_image_target: the result pointer is NULL",
                module.name);
  int major = 0, minor = 0;
  tlc_status status = deviceCapability(module, device, major, minor);
  if (status != TLC_SUCCESS)
    return status;
  int chosen = chooseTarget(module.targets, module.targetCount, major, minor);
  if (chosen < 0) {
    char holds[512];
    describeTargets(module.targets, module.targetCount, holds, sizeof holds);
    return fail(TLC_ERROR_NO_BINARY,
                "%s: no code for device %d (compute capability %d.%d): the image holds %s",
                module.name, device, major, minor, holds);
  }
  *target = module.targets[chosen].name;
  return TLC_SUCCESS;
}

} // namespace tlc::runtime
