// How the model's enums are spelled: one table per enum, one row per enumerator in the enum's
// order. `name` is the spelling of annotations and `inspect --json` ("128B", "bf16", "tiled");
// `driverName`, where there is one, the CUDA driver's enumerator that generated code passes to
// cuTensorMapEncode* ("CU_TENSOR_MAP_SWIZZLE_128B"). The model holds enums; only the JSON edge
// (ModelJson) and the annotation parser turn them into strings and back.
#pragma once

#include "model/Model.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <optional>
#include <string>

namespace tlc {

struct ParamKindRow {
  ParamKind value;
  const char* name;
};

struct CTypeBaseRow {
  CType::Base value;
  const char* name;
};

struct ScalarTypeRow {
  ScalarType value;
  const char* name;
};

struct TemplateArgumentKindRow {
  TemplateArgumentKind value;
  const char* name;
};

struct TensorMapModeRow {
  TensorMapMode value;
  const char* name;          // "tiled"
  const char* annotationKey; // the key of annotate("tlc.<key>", ...): "tma"
  const char* macro;         // what users write: "TLC_TMA"
};

struct TensorMapDataTypeRow {
  TensorMapDataType value;
  const char* name;
  const char* driverName;
  unsigned bits; // of one element (packed types: of one value)
  bool floating;
};

struct TensorMapSwizzleRow {
  TensorMapSwizzle value;
  const char* name;
  const char* driverName;
  unsigned span; // bytes a swizzled row may cover (0: not swizzled)
};

// L2 promotion, out-of-bounds fill and interleave: a name and the driver's enumerator.
template <typename Enum> struct DriverChoiceRow {
  Enum value;
  const char* name;
  const char* driverName;
};

// EnumTable<E>::rows(): the table of enum E. Only the enums above have one.
template <typename Enum> struct EnumTable {};

#define TLC_ENUM_TABLE(Enum, RowType)                                                              \
  template <> struct EnumTable<Enum> {                                                             \
    using Row = RowType;                                                                           \
    static llvm::ArrayRef<Row> rows();                                                             \
  }
TLC_ENUM_TABLE(ParamKind, ParamKindRow);
TLC_ENUM_TABLE(CType::Base, CTypeBaseRow);
TLC_ENUM_TABLE(ScalarType, ScalarTypeRow);
TLC_ENUM_TABLE(TemplateArgumentKind, TemplateArgumentKindRow);
TLC_ENUM_TABLE(TensorMapMode, TensorMapModeRow);
TLC_ENUM_TABLE(TensorMapDataType, TensorMapDataTypeRow);
TLC_ENUM_TABLE(TensorMapSwizzle, TensorMapSwizzleRow);
TLC_ENUM_TABLE(TensorMapL2Promotion, DriverChoiceRow<TensorMapL2Promotion>);
TLC_ENUM_TABLE(TensorMapOobFill, DriverChoiceRow<TensorMapOobFill>);
TLC_ENUM_TABLE(TensorMapInterleave, DriverChoiceRow<TensorMapInterleave>);
#undef TLC_ENUM_TABLE

template <typename Enum> using EnumRow = typename EnumTable<Enum>::Row;

// The row of `value`. Rows are in enum order (a unit test checks), so this is an index.
template <typename Enum> const EnumRow<Enum>& describe(Enum value) {
  const EnumRow<Enum>& row = EnumTable<Enum>::rows()[static_cast<size_t>(value)];
  assert(row.value == value && "enum table out of order");
  return row;
}

// The spelling of annotations and JSON.
template <typename Enum, typename = EnumRow<Enum>> const char* toString(Enum value) {
  return describe(value).name;
}

// The CUDA driver's enumerator.
template <typename Enum> const char* driverName(Enum value) {
  return describe(value).driverName;
}

// The row spelled `name` (any case when `ignoreCase`), or null.
template <typename Enum>
const EnumRow<Enum>* findRow(llvm::StringRef name, bool ignoreCase = false) {
  for (const EnumRow<Enum>& row : EnumTable<Enum>::rows())
    if (ignoreCase ? name.equals_insensitive(row.name) : name == row.name)
      return &row;
  return nullptr;
}

// The enumerator spelled exactly `name`.
template <typename Enum> std::optional<Enum> fromString(llvm::StringRef name) {
  if (const EnumRow<Enum>* row = findRow<Enum>(name))
    return row->value;
  return std::nullopt;
}

// Every spelling, in enum order: "none, 32B, 64B" (for messages).
template <typename Enum> std::string nameList() {
  std::string names;
  for (const EnumRow<Enum>& row : EnumTable<Enum>::rows())
    names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

} // namespace tlc
