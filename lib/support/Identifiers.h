// C identifiers made from C++ spellings (launcher names, record mirrors, module names).
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tlc {

// "nn::Vec<float, 4>" -> "nn_Vec_float_4", "const float *" -> "const_float_ptr", "-1" -> "m1".
std::string identifierFrom(const std::string& spelling);

bool isCIdentifier(llvm::StringRef name);

} // namespace tlc
