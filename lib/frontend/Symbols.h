// The exact symbol nvcc gives a device entity: the extern "C" name, or the Itanium mangling of
// the kernel itself (not of its host-side __device_stub__).
#pragma once

#include <memory>
#include <string>

namespace clang {
class ASTContext;
class MangleContext;
class NamedDecl;
} // namespace clang

namespace tlc {

class SymbolMangler {
public:
  explicit SymbolMangler(clang::ASTContext& context);
  ~SymbolMangler();

  std::string symbolOf(const clang::NamedDecl& decl);

private:
  std::unique_ptr<clang::MangleContext> Mangle;
};

} // namespace tlc
