// The model's derived facts: kernel indices, tensor-map slices and groups, C parameter names, the
// byte structs of untyped parameters.
#include "model/DerivedFacts.h"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace tlc {

std::string cParameterName(const std::string& name) {
  // C keywords that are not C++ keywords, and the names a launcher's body uses unqualified: its
  // own parameters and locals (the C++ overloads' grid_dims and block_dims included), and the
  // runtime functions and module tables of launcher.cpp, which a parameter would hide.
  static const char* const reserved[] = {"restrict",       "_Bool",         "_Complex",
                                         "_Imaginary",     "_Alignas",      "_Alignof",
                                         "_Atomic",        "_Generic",      "_Noreturn",
                                         "_Static_assert", "_Thread_local", "config",
                                         "args",           "tensors",       "grid_dims",
                                         "block_dims",     "launch",        "launchWithTensors",
                                         "launchEncoded",  "gModule",       "kEmpty"};
  bool clash = std::find(std::begin(reserved), std::end(reserved), name) != std::end(reserved);
  return clash ? name + "_" : name;
}

// Every field that reaches the driver's encode call or the launcher's checks on the tensor.
static auto descriptorSettings(const TensorMapSpec& spec) {
  return std::tie(spec.mode, spec.dtype, spec.rank, spec.box, spec.elemStrides, spec.swizzle,
                  spec.l2, spec.oob, spec.interleave, spec.lower, spec.upper, spec.channels,
                  spec.pixels, spec.addressAlignment, spec.strideMultiple, spec.dim0Multiple);
}

bool sameDescriptorSettings(const TensorMapSpec& a, const TensorMapSpec& b) {
  return descriptorSettings(a) == descriptorSettings(b);
}

// Each map's group is the kernel's first map with the same settings (itself if none): maps of
// one group may share one encoding at run time, and the launcher compares group numbers.
static void assignGroups(Kernel& kernel) {
  std::vector<TensorMapSpec*> maps;
  for (Param& param : kernel.params)
    if (param.tensorMap)
      maps.push_back(&*param.tensorMap);
  for (size_t slot = 0; slot < maps.size(); ++slot) {
    size_t first = 0;
    while (!sameDescriptorSettings(*maps[first], *maps[slot]))
      ++first; // stops at `slot` at the latest
    maps[slot]->group = static_cast<unsigned>(first);
  }
}

CType bytesCType(uint64_t size, uint64_t align) {
  CType type;
  type.baseKind = CType::Base::Bytes;
  type.base = "bytes" + std::to_string(size) + "_align" + std::to_string(align);
  return type;
}

void deriveFacts(Module& module) {
  unsigned tensorMaps = 0; // the module's table so far
  for (size_t i = 0; i < module.kernels.size(); ++i) {
    Kernel& kernel = module.kernels[i];
    kernel.index = static_cast<unsigned>(i);
    kernel.firstTensorMap = tensorMaps;
    kernel.tensorMapCount = 0;
    for (Param& param : kernel.params) {
      param.cName = cParameterName(param.name);
      if (param.kind == ParamKind::Bytes)
        param.ctype = bytesCType(param.size, param.align);
      if (param.tensorMap)
        ++kernel.tensorMapCount;
    }
    tensorMaps += kernel.tensorMapCount;
    assignGroups(kernel);
  }
}

} // namespace tlc
