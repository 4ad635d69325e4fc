// Integer values written in annotations: `64`, `-1`, `TILE`, `(BLOCK_M * 2)`, `(cfg::kTile)`.
// Names are object-like macros (expanded with the translation unit's definitions), constexpr
// variables or enumerators visible from the kernel, or the kernel's own non-type template
// parameters (bound to the instantiation's arguments).
#pragma once

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace clang {
class ASTContext;
class DeclContext;
class Preprocessor;
} // namespace clang

namespace tlc {

class ConstantEvaluator {
public:
  ConstantEvaluator(clang::Preprocessor& preprocessor, clang::ASTContext& context)
      : Preprocessor(preprocessor), Context(context) {}

  // Evaluates `text` with + - * / % << >> & | ^ ~ and parentheses in 64-bit signed arithmetic.
  // `scope` is where names are looked up; `bound` holds template parameters of the instance.
  bool evaluate(llvm::StringRef text, const clang::DeclContext* scope,
                const llvm::StringMap<int64_t>& bound, int64_t& value, std::string& error);

private:
  clang::Preprocessor& Preprocessor;
  clang::ASTContext& Context;
};

} // namespace tlc
