// The tables of the model's enums: their JSON and annotation spellings, the driver's enumerators.
#include "model/EnumTables.h"

namespace tlc {

using Base = CType::Base;

llvm::ArrayRef<ParamKindRow> EnumTable<ParamKind>::rows() {
  static const ParamKindRow rows[] = {
      {ParamKind::Pointer, "pointer"}, {ParamKind::Scalar, "scalar"},
      {ParamKind::Record, "record"},   {ParamKind::TensorMap, "tensor_map"},
      {ParamKind::Empty, "empty"},     {ParamKind::Bytes, "bytes"},
  };
  return rows;
}

llvm::ArrayRef<CTypeBaseRow> EnumTable<Base>::rows() {
  static const CTypeBaseRow rows[] = {
      {Base::Void, "void"},         {Base::Builtin, "builtin"},     {Base::Half, "half"},
      {Base::BFloat16, "bfloat16"}, {Base::Record, "record"},       {Base::TensorMap, "tensor_map"},
      {Base::Half2, "half2"},       {Base::BFloat162, "bfloat162"}, {Base::Toolkit, "toolkit"},
      {Base::Bytes, "bytes"},
  };
  return rows;
}

llvm::ArrayRef<ScalarTypeRow> EnumTable<ScalarType>::rows() {
  static const ScalarTypeRow rows[] = {
      {ScalarType::Bool, "bool"}, {ScalarType::I8, "i8"},       {ScalarType::U8, "u8"},
      {ScalarType::I16, "i16"},   {ScalarType::U16, "u16"},     {ScalarType::I32, "i32"},
      {ScalarType::U32, "u32"},   {ScalarType::I64, "i64"},     {ScalarType::U64, "u64"},
      {ScalarType::F16, "f16"},   {ScalarType::BF16, "bf16"},   {ScalarType::F32, "f32"},
      {ScalarType::F64, "f64"},   {ScalarType::F16x2, "f16x2"}, {ScalarType::BF16x2, "bf16x2"},
  };
  return rows;
}

llvm::ArrayRef<TemplateArgumentKindRow> EnumTable<TemplateArgumentKind>::rows() {
  static const TemplateArgumentKindRow rows[] = {
      {TemplateArgumentKind::Type, "type"},
      {TemplateArgumentKind::Value, "value"},
  };
  return rows;
}

llvm::ArrayRef<TensorMapModeRow> EnumTable<TensorMapMode>::rows() {
  static const TensorMapModeRow rows[] = {
      {TensorMapMode::Tiled, "tiled", "tma", "TLC_TMA"},
      {TensorMapMode::Im2col, "im2col", "tma_im2col", "TLC_TMA_IM2COL"},
  };
  return rows;
}

// Every CUtensorMapDataType of the CUDA 13 headers.
llvm::ArrayRef<TensorMapDataTypeRow> EnumTable<TensorMapDataType>::rows() {
  using T = TensorMapDataType;
  static const TensorMapDataTypeRow rows[] = {
      {T::UInt8, "u8", "CU_TENSOR_MAP_DATA_TYPE_UINT8", 8, false},
      {T::UInt16, "u16", "CU_TENSOR_MAP_DATA_TYPE_UINT16", 16, false},
      {T::UInt32, "u32", "CU_TENSOR_MAP_DATA_TYPE_UINT32", 32, false},
      {T::Int32, "s32", "CU_TENSOR_MAP_DATA_TYPE_INT32", 32, false},
      {T::UInt64, "u64", "CU_TENSOR_MAP_DATA_TYPE_UINT64", 64, false},
      {T::Int64, "s64", "CU_TENSOR_MAP_DATA_TYPE_INT64", 64, false},
      {T::Float16, "f16", "CU_TENSOR_MAP_DATA_TYPE_FLOAT16", 16, true},
      {T::Float32, "f32", "CU_TENSOR_MAP_DATA_TYPE_FLOAT32", 32, true},
      {T::Float64, "f64", "CU_TENSOR_MAP_DATA_TYPE_FLOAT64", 64, true},
      {T::BFloat16, "bf16", "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", 16, true},
      {T::Float32Ftz, "f32ftz", "CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ", 32, true},
      {T::TFloat32, "tf32", "CU_TENSOR_MAP_DATA_TYPE_TFLOAT32", 32, true},
      {T::TFloat32Ftz, "tf32ftz", "CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ", 32, true},
      {T::Packed16U4Align8B, "16u4_align8b", "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B", 4, false},
      {T::Packed16U4Align16B, "16u4_align16b", "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B", 4, false},
      {T::Packed16U6Align16B, "16u6_align16b", "CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B", 6, false},
  };
  return rows;
}

llvm::ArrayRef<TensorMapSwizzleRow> EnumTable<TensorMapSwizzle>::rows() {
  using S = TensorMapSwizzle;
  static const TensorMapSwizzleRow rows[] = {
      {S::None, "none", "CU_TENSOR_MAP_SWIZZLE_NONE", 0},
      {S::B32, "32B", "CU_TENSOR_MAP_SWIZZLE_32B", 32},
      {S::B64, "64B", "CU_TENSOR_MAP_SWIZZLE_64B", 64},
      {S::B128, "128B", "CU_TENSOR_MAP_SWIZZLE_128B", 128},
      {S::B128Atom32B, "128B_atom_32B", "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B", 128},
      {S::B128Atom32BFlip8B, "128B_atom_32B_flip_8B", "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B",
       128},
      {S::B128Atom64B, "128B_atom_64B", "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B", 128},
  };
  return rows;
}

llvm::ArrayRef<DriverChoiceRow<TensorMapL2Promotion>> EnumTable<TensorMapL2Promotion>::rows() {
  using L = TensorMapL2Promotion;
  static const DriverChoiceRow<L> rows[] = {
      {L::None, "none", "CU_TENSOR_MAP_L2_PROMOTION_NONE"},
      {L::B64, "64B", "CU_TENSOR_MAP_L2_PROMOTION_L2_64B"},
      {L::B128, "128B", "CU_TENSOR_MAP_L2_PROMOTION_L2_128B"},
      {L::B256, "256B", "CU_TENSOR_MAP_L2_PROMOTION_L2_256B"},
  };
  return rows;
}

llvm::ArrayRef<DriverChoiceRow<TensorMapOobFill>> EnumTable<TensorMapOobFill>::rows() {
  using O = TensorMapOobFill;
  static const DriverChoiceRow<O> rows[] = {
      {O::None, "none", "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"},
      {O::NanRequestZeroFma, "nan", "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA"},
  };
  return rows;
}

llvm::ArrayRef<DriverChoiceRow<TensorMapInterleave>> EnumTable<TensorMapInterleave>::rows() {
  using I = TensorMapInterleave;
  static const DriverChoiceRow<I> rows[] = {
      {I::None, "none", "CU_TENSOR_MAP_INTERLEAVE_NONE"},
      {I::B16, "16B", "CU_TENSOR_MAP_INTERLEAVE_16B"},
      {I::B32, "32B", "CU_TENSOR_MAP_INTERLEAVE_32B"},
  };
  return rows;
}

} // namespace tlc
