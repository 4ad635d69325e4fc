// The exact device symbol of a kernel: extern "C" name or Itanium mangling.
#include "frontend/Symbols.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"

namespace tlc {

SymbolMangler::SymbolMangler(clang::ASTContext& context) : Mangle(context.createMangleContext()) {
}
SymbolMangler::~SymbolMangler() = default;

std::string SymbolMangler::symbolOf(const clang::NamedDecl& decl) {
  if (!Mangle->shouldMangleDeclName(&decl))
    return decl.getName().str();
  clang::GlobalDecl global;
  if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(&decl))
    global = function->hasAttr<clang::CUDAGlobalAttr>()
                 ? clang::GlobalDecl(function, clang::KernelReferenceKind::Kernel)
                 : clang::GlobalDecl(function);
  else
    global = clang::GlobalDecl(llvm::cast<clang::VarDecl>(&decl));
  std::string symbol;
  llvm::raw_string_ostream os(symbol);
  Mangle->mangleName(global, os);
  return symbol;
}

} // namespace tlc
