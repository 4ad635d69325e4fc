// Small helpers of the module model.
#include "model/Model.h"

#include <algorithm>

namespace tlc {

bool Kernel::hasTensorMaps() const {
  return std::any_of(params.begin(), params.end(),
                     [](const Param& p) { return p.kind == ParamKind::TensorMap; });
}

} // namespace tlc
