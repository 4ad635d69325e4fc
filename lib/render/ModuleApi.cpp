// The table of module-level API functions every generated library exports.
#include "render/ModuleApi.h"

namespace tlc {

const std::vector<ModuleApiFunction>& moduleApi() {
  static const std::vector<ModuleApiFunction> functions = {
      {"load", "tlc_status", "int device", "load(gModule, device)",
       "Loads the image on `device` now instead of at its first launch."},
      {"unload", "tlc_status", "void", "unload(gModule)",
       "Unloads the image from every device after the launches in flight; the next launch "
       "loads it again."},
      {"last_error", "const char*", "void", "lastError()",
       "This thread's message for its last failed call (\"\" if none failed)."},
      {"status_string", "const char*", "tlc_status status", "statusString(status)",
       "The name of a status code, e.g. \"TLC_ERROR_NO_DRIVER\"."},
      {"set_image_path", "tlc_status", "const char* path", "setImagePath(gModule, path)",
       "Loads the device image from `path` at the next load (after unload); NULL resets."},
      {"image_target", "tlc_status", "int device, const char** target",
       "imageTarget(gModule, device, target)",
       "The image target `device` runs: SASS for its arch (\"sm_90a\") or PTX to JIT "
       "(\"compute_80\")."},
      {"kernel_count", "int", "void", "kernelCount(gModule)", "How many kernels there are."},
      {"kernel_name", "const char*", "int kernel", "kernelName(gModule, kernel)",
       "Kernel `kernel`'s exact device symbol, or NULL."},
      {"find_kernel", "tlc_status", "const char* pattern, int* kernel",
       "findKernel(gModule, pattern, kernel)",
       "The kernel whose symbol or launcher name is `pattern`, else the one containing it."},
      {"launch_kernel", "tlc_status", "const tlc_config* config, int kernel, void** args",
       "launchKernel(gModule, config, kernel, args)",
       "Launches kernel `kernel` with one pointer per parameter in `args`, as cuLaunchKernel."},
      {"get_function", "tlc_status", "int kernel, int device, CUfunction* function",
       "getFunction(gModule, kernel, device, function)",
       "The CUfunction of `kernel` in the context a launch on `device` would use."},
  };
  return functions;
}

nlohmann::json moduleApiView() {
  nlohmann::json list = nlohmann::json::array();
  for (const ModuleApiFunction& function : moduleApi())
    list.push_back({{"name", function.name},
                    {"returns", function.returns},
                    {"params", function.params},
                    {"call", function.call},
                    {"doc", function.doc}});
  return list;
}

} // namespace tlc
