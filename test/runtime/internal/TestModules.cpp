// The tests' module descriptors over images/ and the helpers that launch and query them.
#include "internal/TestModules.h"

#include "FakeDriver.h"

namespace tlc_test {

KernelInfo kernel(const char* symbol, const char* launcher) {
  return {symbol, launcher, {0, 0, 0}, ~0u, 0, 0};
}

TestModule::TestModule(const char* name, const std::string& image, std::vector<ImageTarget> targets,
                       std::vector<KernelInfo> kernels, bool relocatable,
                       std::vector<TensorMapInfo> tensorMaps)
    : Image(readFile(imagePath(image))), Targets(std::move(targets)), Kernels(std::move(kernels)),
      TensorMaps(std::move(tensorMaps)),
      Module{
          name,    Targets.data(), static_cast<int>(Targets.size()), relocatable,      Image.data(),
          nullptr, Kernels.data(), static_cast<int>(Kernels.size()), TensorMaps.data()} {
}

std::vector<KernelInfo> jitKernels() {
  return {kernel("jit_fill", "fill"), kernel("jit_sum", "sum")};
}

std::string imagePath(const std::string& name) {
  return moduleFile("images/" + name);
}

tlc_status launchOn(tlc::runtime::Module& module, int device, int kernel) {
  tlc_config config = makeConfig<tlc_config>(1, 32, device);
  void* out = nullptr;
  int value = 7, n = 32;
  void* args[] = {&out, &value, &n};
  return tlc::runtime::launch(module, kernel, &config, args);
}

std::string targetOf(tlc::runtime::Module& module, int device) {
  const char* target = nullptr;
  tlc_status status = tlc::runtime::imageTarget(module, device, &target);
  return status == TLC_SUCCESS ? target : tlc::runtime::statusString(status);
}

} // namespace tlc_test
