// Classifying kernel parameter types and describing them as C types.
#include "frontend/ParameterTypes.h"
#include "support/Identifiers.h"

#include "frontend/SourceFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/Type.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

namespace tlc {

static clang::PrintingPolicy typePolicy(const clang::ASTContext& context) {
  clang::PrintingPolicy policy(context.getLangOpts());
  policy.SuppressTagKeyword = true;
  policy.SuppressScope = false;
  policy.FullyQualifiedName = true;
  policy.PrintAsCanonical = false;
  return policy;
}

static const clang::RecordDecl* recordOf(clang::QualType type) {
  if (const auto* record = type->getAsRecordDecl())
    return record;
  return nullptr;
}

static bool isGlobalRecordNamed(const clang::RecordDecl* record, llvm::StringRef name) {
  return record && record->getName() == name &&
         record->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

static bool isHalf(const clang::RecordDecl* r) {
  return isGlobalRecordNamed(r, "__half");
}
static bool isBFloat16(const clang::RecordDecl* r) {
  return isGlobalRecordNamed(r, "__nv_bfloat16");
}
static bool isHalf2(const clang::RecordDecl* r) {
  return isGlobalRecordNamed(r, "__half2");
}
static bool isBFloat162(const clang::RecordDecl* r) {
  return isGlobalRecordNamed(r, "__nv_bfloat162");
}

// The toolkit's C headers NAME.h may include, by file name: a type one of them declares (float4
// from vector_types.h, cudaTextureObject_t from driver_types.h, CUdeviceptr from cuda.h) is
// spelled in the generated header as the toolkit spells it, so callers pass their own values.
static const char* toolkitHeaderOf(const clang::ASTContext& context, clang::SourceLocation at) {
  static const char* const headers[] = {"vector_types.h", "driver_types.h", "surface_types.h",
                                        "texture_types.h", "cuda.h"};
  if (!isInSystemHeader(context, at))
    return nullptr;
  llvm::StringRef file =
      context.getSourceManager().getFilename(context.getSourceManager().getFileLoc(at));
  for (const char* header : headers)
    if (file.ends_with(std::string("/") + header))
      return header;
  return nullptr;
}
static bool isTensorMap(const clang::RecordDecl* r) {
  return isGlobalRecordNamed(r, "CUtensorMap_st");
}

// Typedef names C callers know from <stddef.h>/<stdint.h>; kept as spelled ("typed as declared").
static bool isStandardTypedef(llvm::StringRef name) {
  static const char* const names[] = {"size_t",  "ptrdiff_t", "intptr_t", "uintptr_t",
                                      "int8_t",  "int16_t",   "int32_t",  "int64_t",
                                      "uint8_t", "uint16_t",  "uint32_t", "uint64_t"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// bool i8 u8 ... f64 for builtin scalar types; "" for builtins a kernel cannot take by value.
// The scalar type of a builtin type, if it is one a launcher can pass.
static std::optional<ScalarType> scalarType(const clang::ASTContext& context,
                                            clang::QualType type) {
  const auto* builtin = type->getAs<clang::BuiltinType>();
  if (!builtin)
    return std::nullopt;
  if (builtin->isBooleanType())
    return ScalarType::Bool;
  if (builtin->isInteger()) {
    bool isSigned = builtin->isSignedInteger();
    switch (context.getTypeSize(type)) {
    case 8:
      return isSigned ? ScalarType::I8 : ScalarType::U8;
    case 16:
      return isSigned ? ScalarType::I16 : ScalarType::U16;
    case 32:
      return isSigned ? ScalarType::I32 : ScalarType::U32;
    case 64:
      return isSigned ? ScalarType::I64 : ScalarType::U64;
    default:
      return std::nullopt;
    }
  }
  switch (builtin->getKind()) {
  case clang::BuiltinType::Float:
    return ScalarType::F32;
  case clang::BuiltinType::Double:
    return ScalarType::F64;
  case clang::BuiltinType::Float16:
  case clang::BuiltinType::Half:
    return ScalarType::F16;
  case clang::BuiltinType::BFloat16:
    return ScalarType::BF16;
  default:
    return std::nullopt;
  }
}

bool ParameterTypes::setBase(clang::QualType type, CType& out) {
  type = type.getUnqualifiedType();
  // Standard typedefs and the toolkit's keep their names; user typedefs resolve to what they
  // name.
  for (clang::QualType t = type; const auto* typedefType = t->getAs<clang::TypedefType>();
       t = typedefType->desugar()) {
    const clang::TypedefNameDecl* decl = typedefType->getDecl();
    if (isStandardTypedef(decl->getName())) {
      out.baseKind = CType::Base::Builtin;
      out.base = decl->getName().str();
      return true;
    }
    if (const char* header = toolkitHeaderOf(Context, decl->getLocation())) {
      out.baseKind = CType::Base::Toolkit;
      out.base = decl->getName().str();
      out.header = header;
      return true;
    }
  }
  clang::QualType canonical = type.getCanonicalType();
  if (canonical->isVoidType()) {
    out.baseKind = CType::Base::Void;
    out.base = "void";
    return true;
  }
  if (const auto* enumType = canonical->getAs<clang::EnumType>()) {
    canonical = enumType->getDecl()->getIntegerType().getCanonicalType();
  }
  if (const auto* builtin = canonical->getAs<clang::BuiltinType>()) {
    if (builtin->getKind() == clang::BuiltinType::Float16 ||
        builtin->getKind() == clang::BuiltinType::Half) {
      out.baseKind = CType::Base::Half;
      out.base = "tlc_half";
      return true;
    }
    if (builtin->getKind() == clang::BuiltinType::BFloat16) {
      out.baseKind = CType::Base::BFloat16;
      out.base = "tlc_bfloat16";
      return true;
    }
    out.baseKind = CType::Base::Builtin;
    clang::PrintingPolicy policy(Context.getLangOpts());
    policy.Bool = true;
    out.base = builtin->getName(policy).str();
    return true;
  }
  if (const clang::RecordDecl* record = recordOf(canonical)) {
    if (isHalf(record)) {
      out.baseKind = CType::Base::Half;
      out.base = "tlc_half";
    } else if (isBFloat16(record)) {
      out.baseKind = CType::Base::BFloat16;
      out.base = "tlc_bfloat16";
    } else if (isHalf2(record)) {
      out.baseKind = CType::Base::Half2;
      out.base = "tlc_half2";
    } else if (isBFloat162(record)) {
      out.baseKind = CType::Base::BFloat162;
      out.base = "tlc_bfloat162";
    } else if (isTensorMap(record)) {
      out.baseKind = CType::Base::TensorMap;
      out.base = "CUtensorMap";
    } else if (const char* header = toolkitHeaderOf(Context, record->getLocation());
               header && !record->getName().empty()) {
      out.baseKind = CType::Base::Toolkit; // float4, dim3: a C struct in the toolkit's header
      out.base = record->getName().str();
      out.header = header;
    } else if (record->getDefinition()) {
      out.baseKind = CType::Base::Record;
      out.base = mirror(*record->getDefinition());
    } else {
      return false; // incomplete: only usable behind a pointer, as void
    }
    return true;
  }
  return false;
}

// Whether a chain of pointers ends in an array (`float (*)[M]`, `float (**)[M]`).
static bool endsInArray(clang::QualType type) {
  while (type->isPointerType())
    type = type->getPointeeType();
  return type->isArrayType();
}

CType ParameterTypes::toCType(clang::QualType type) {
  CType out;
  if (endsInArray(type)) {
    // `float a[N][M]` decays to `float (*)[M]`: a pointer to an array, no pointer to a pointer,
    // and CType has no array declarator. The address travels as (const) void*, which C and C++
    // callers convert to from any object pointer implicitly.
    clang::QualType pointee = type->getPointeeType();
    out.baseKind = CType::Base::Void;
    out.base = "void";
    out.baseConst = Context.getBaseElementType(pointee).isConstQualified();
    out.pointers = {{type.isConstQualified(), type.isRestrictQualified()}};
    return out;
  }
  std::vector<CType::Pointer> levels; // outermost first while walking
  clang::QualType t = type;
  while (t->isPointerType()) {
    levels.push_back({t.isConstQualified(), t.isRestrictQualified()});
    t = t->getPointeeType();
  }
  out.baseConst = t.isConstQualified();
  if (!setBase(t, out) || (t->isFunctionType())) {
    // Behind a pointer anything can travel as void: the device only sees an address.
    out.baseKind = CType::Base::Void;
    out.base = "void";
    out.baseConst = false;
  }
  std::reverse(levels.begin(), levels.end());
  out.pointers = std::move(levels);
  return out;
}

// Whether a field of this (non-pointer) type can be spelled in C with the same layout.
bool ParameterTypes::mirrorsByValue(clang::QualType type, CType& out) {
  if (!setBase(type, out))
    return false;
  if (out.baseKind != CType::Base::Builtin)
    return out.baseKind != CType::Base::Void;
  clang::QualType canonical = type.getCanonicalType();
  if (const auto* enumType = canonical->getAs<clang::EnumType>())
    canonical = enumType->getDecl()->getIntegerType().getCanonicalType();
  return scalarType(Context, canonical).has_value();
}

void ParameterTypes::describeFields(const clang::RecordDecl& record, Record& out) {
  const clang::ASTRecordLayout& layout = Context.getASTRecordLayout(&record);
  const auto* cxx = llvm::dyn_cast<clang::CXXRecordDecl>(&record);
  if (record.isUnion() || (cxx && cxx->getNumBases() > 0) || record.field_empty()) {
    out.opaque = true;
    return;
  }
  uint64_t natural = 0; // where a C compiler would place the next field
  for (const clang::FieldDecl* field : record.fields()) {
    clang::QualType type = field->getType();
    if (field->isBitField() || field->getName().empty() || field->isZeroSize(Context) ||
        type->isIncompleteArrayType() || type->isMemberPointerType() || type->isReferenceType()) {
      out.opaque = true;
      return;
    }
    RecordField mirrored;
    mirrored.name = field->getName().str();
    mirrored.offset = layout.getFieldOffset(field->getFieldIndex()) / 8;
    clang::QualType element = type;
    while (const auto* array = Context.getAsConstantArrayType(element)) {
      mirrored.arrayDims.push_back(array->getZExtSize());
      element = array->getElementType();
    }
    if (element->isPointerType())
      mirrored.ctype = toCType(element);
    else if (!mirrorsByValue(element, mirrored.ctype)) {
      out.opaque = true;
      return;
    }
    uint64_t align = Context.getTypeAlignInChars(element).getQuantity();
    if (mirrored.offset != llvm::alignTo(natural, align)) {
      out.opaque = true; // alignas on a member or #pragma pack: C would lay it out differently
      return;
    }
    natural = mirrored.offset + Context.getTypeSizeInChars(type).getQuantity();
    out.fields.push_back(std::move(mirrored));
  }
}

std::string ParameterTypes::mirror(const clang::RecordDecl& record) {
  const auto* key = llvm::cast<clang::RecordDecl>(record.getCanonicalDecl());
  if (auto it = Mirrored.find(key); it != Mirrored.end())
    return it->second;

  Record out;
  clang::QualType type = Context.getCanonicalTagType(&record);
  out.name = clang::TypeName::getFullyQualifiedName(type, Context, typePolicy(Context));
  if (record.getName().empty())
    if (const auto* alias = record.getTypedefNameForAnonDecl())
      out.name = alias->getQualifiedNameAsString();
  out.cName = identifierFrom(out.name);
  // Distinct records whose names sanitize alike ("a::b" and "a_b") must not share a mirror.
  for (const Record& existing : Records)
    if (existing.cName == out.cName && existing.name != out.name)
      out.cName += "_" + llvm::utohexstr(llvm::xxh3_64bits(out.name) & 0xffff, true);
  Mirrored[key] = out.cName; // before the fields, so self-referencing pointers terminate

  out.location = presumedLocation(Context, record.getLocation());
  out.header = out.location.file;
  out.size = Context.getTypeSizeInChars(type).getQuantity();
  out.align = Context.getTypeAlignInChars(type).getQuantity();
  describeFields(record, out);
  if (out.opaque)
    out.fields.clear();
  Records.push_back(std::move(out));
  return Mirrored[key];
}

ParameterTypes::Outcome ParameterTypes::classify(const clang::ParmVarDecl& parameter,
                                                 unsigned index, Param& out, std::string& why) {
  clang::QualType type = parameter.getType();
  clang::QualType canonical = type.getCanonicalType();
  out.index = index;
  out.name =
      parameter.getName().empty() ? "arg" + std::to_string(index) : parameter.getName().str();
  clang::PrintingPolicy policy = typePolicy(Context);
  out.type = type.getAsString(policy);
  out.canonicalType = canonical.getAsString(policy);
  out.location = presumedLocation(Context, parameter.getLocation());

  if (canonical->isIncompleteType()) {
    why = "the type is incomplete";
    return Outcome::Refused;
  }
  out.size = Context.getTypeSizeInChars(type).getQuantity();
  out.align = Context.getTypeAlignInChars(type).getQuantity();
  // What C cannot spell, nvcc still compiles: the launcher passes its bytes.
  auto untyped = [&](std::string reason) {
    out.kind = ParamKind::Bytes;
    why = std::move(reason);
    return Outcome::Untyped;
  };

  if (canonical->isReferenceType())
    return untyped("a reference");
  if (canonical->isMemberPointerType() || canonical->isBlockPointerType())
    return untyped("a member or block pointer");

  if (canonical->isPointerType()) {
    out.kind = ParamKind::Pointer;
    clang::QualType pointee = canonical->getPointeeType();
    out.pointer.pointee = type->getPointeeType().getUnqualifiedType().getAsString(policy);
    out.pointer.pointeeConst = pointee.isConstQualified();
    out.pointer.isRestrict = type.isRestrictQualified();
    out.ctype = toCType(type);
    out.ctype.pointers.back().isConst = false; // top-level const means nothing in a prototype
    return Outcome::Typed;
  }

  const clang::RecordDecl* record = recordOf(canonical);
  if (isTensorMap(record)) {
    if (!parameter.hasAttr<clang::CUDAGridConstantAttr>() || !canonical.isConstQualified()) {
      why = "a CUtensorMap parameter must be declared 'const __grid_constant__ CUtensorMap' "
            "so TMA instructions can read it from parameter space";
      return Outcome::Refused;
    }
    out.kind = ParamKind::TensorMap;
    setBase(canonical, out.ctype);
    return Outcome::Typed;
  }
  if (isHalf(record) || isBFloat16(record) || isHalf2(record) || isBFloat162(record)) {
    // Their copy constructors make them not trivially copyable, but a kernel argument is its
    // bytes: passed as tlc_half(2)/tlc_bfloat16(2), bit for bit.
    out.kind = ParamKind::Scalar;
    out.scalar.type = isHalf(record)       ? ScalarType::F16
                      : isBFloat16(record) ? ScalarType::BF16
                      : isHalf2(record)    ? ScalarType::F16x2
                                           : ScalarType::BF16x2;
    setBase(canonical, out.ctype);
    return Outcome::Typed;
  }
  if (const auto* enumType = canonical->getAs<clang::EnumType>()) {
    const clang::EnumDecl* decl = enumType->getDecl();
    std::optional<ScalarType> underlying =
        scalarType(Context, decl->getIntegerType().getCanonicalType());
    if (!underlying)
      return untyped("an enum of '" +
                     decl->getIntegerType().getCanonicalType().getAsString(policy) +
                     "', which is not a supported scalar");
    out.kind = ParamKind::Scalar;
    out.scalar.type = *underlying;
    out.scalar.enumName = decl->getQualifiedNameAsString();
    setBase(canonical, out.ctype);
    return Outcome::Typed;
  }
  if (canonical->isBuiltinType()) {
    std::optional<ScalarType> scalar = scalarType(Context, canonical);
    if (!scalar)
      return untyped("not a supported scalar (bool, 8-64-bit integers, float, double, __half, "
                     "__nv_bfloat16)");
    out.kind = ParamKind::Scalar;
    out.scalar.type = *scalar;
    setBase(type, out.ctype);
    return Outcome::Typed;
  }
  if (record) {
    const auto* cxx = llvm::dyn_cast<clang::CXXRecordDecl>(record);
    if (cxx && cxx->isLambda())
      return untyped("a lambda's closure type, which C cannot name");
    // CUDA passes such a class by its bytes too (nvcc copies them); C cannot construct one.
    if (!canonical.isTriviallyCopyableType(Context))
      return untyped("not trivially copyable");
    // A tag (std::integral_constant, an empty struct) carries nothing: no C parameter.
    if (cxx && cxx->isEmpty()) {
      out.kind = ParamKind::Empty;
      return Outcome::Typed;
    }
    out.kind = ParamKind::Record;
    setBase(type, out.ctype);
    if (out.ctype.baseKind == CType::Base::Toolkit) {
      out.record.name = out.record.cName = out.ctype.base;
      out.record.header = out.ctype.header;
      return Outcome::Typed;
    }
    out.record.cName = out.ctype.base;
    for (const Record& mirrored : Records)
      if (mirrored.cName == out.record.cName) {
        out.record.name = mirrored.name;
        out.record.header = mirrored.header;
      }
    return Outcome::Typed;
  }
  return untyped("not a pointer, scalar, trivially copyable struct or tensor map");
}

} // namespace tlc
