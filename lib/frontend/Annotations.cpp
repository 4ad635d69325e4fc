// Reading tlc's annotations (TLC_NAME, TLC_TMA) from the AST.
#include "frontend/Annotations.h"

#include "frontend/ClangDiagnostics.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace tlc {

static bool isKnownKey(llvm::StringRef key) {
  return key == "name" || key == "tma" || key == "tma_im2col";
}

std::vector<Annotation> readAnnotations(const clang::Decl& decl, ClangDiagnostics& diagnostics) {
  std::vector<Annotation> found;
  for (const auto* attr : decl.specific_attrs<clang::AnnotateAttr>()) {
    llvm::StringRef annotation = attr->getAnnotation();
    if (!annotation.consume_front("tlc."))
      continue; // someone else's annotation
    if (!isKnownKey(annotation)) {
      diagnostics.error(attr->getLocation(), "unknown tlc annotation 'tlc." + annotation.str() +
                                                 "' (tlc/annotations.h may be newer than tlc)");
      continue;
    }
    const clang::StringLiteral* literal = nullptr;
    if (attr->args_size() == 1)
      literal = llvm::dyn_cast<clang::StringLiteral>((*attr->args_begin())->IgnoreParenImpCasts());
    if (!literal || !literal->isOrdinary()) {
      diagnostics.error(attr->getLocation(),
                        "the argument of this tlc annotation must be a string literal");
      continue;
    }
    found.push_back({annotation.str(), literal->getString().str(), attr->getLocation()});
  }
  return found;
}

} // namespace tlc
