// Small helpers of the module model (enum names, locations).
#include "model/Model.h"

#include <algorithm>

namespace tlc {

bool Kernel::hasTensorMaps() const {
  return std::any_of(params.begin(), params.end(),
                     [](const Param& p) { return p.kind == ParamKind::TensorMap; });
}

const char* toString(ParamKind kind) {
  switch (kind) {
  case ParamKind::Pointer:
    return "pointer";
  case ParamKind::Scalar:
    return "scalar";
  case ParamKind::Record:
    return "record";
  case ParamKind::TensorMap:
    return "tensor_map";
  }
  return "?";
}

const char* toString(DeviceSymbol::Kind kind) {
  switch (kind) {
  case DeviceSymbol::Kind::Kernel:
    return "kernel";
  case DeviceSymbol::Kind::Variable:
    return "variable";
  case DeviceSymbol::Kind::Function:
    return "function";
  }
  return "?";
}

} // namespace tlc
