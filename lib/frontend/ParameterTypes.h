// Classifying kernel parameters (pointer, scalar, record, tensor map) and describing their types
// as C can spell them, with C mirrors for the records they use.
#pragma once

#include "model/Model.h"

#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
class ParmVarDecl;
class QualType;
class RecordDecl;
} // namespace clang

namespace tlc {

class ParameterTypes {
public:
  // Records mirrored for parameters are appended to `records` (nested ones first).
  ParameterTypes(clang::ASTContext& context, std::vector<Record>& records)
      : Context(context), Records(records) {}

  // What classify made of a parameter.
  enum class Outcome {
    Typed,   // a C type says it
    Untyped, // passed as its bytes (ParamKind::Bytes): `why` says why tlc cannot type it
    Refused  // an error, `why` says what to do: an incomplete type, a misdeclared tensor map
  };

  // Fills `out` for parameter `index`.
  Outcome classify(const clang::ParmVarDecl& parameter, unsigned index, Param& out,
                   std::string& why);

private:
  CType toCType(clang::QualType type);
  bool setBase(clang::QualType unqualified, CType& out);
  bool mirrorsByValue(clang::QualType type, CType& out);
  std::string mirror(const clang::RecordDecl& record);
  void describeFields(const clang::RecordDecl& record, Record& out);

  clang::ASTContext& Context;
  std::vector<Record>& Records;
  llvm::DenseMap<const clang::RecordDecl*, std::string> Mirrored;
};

} // namespace tlc
