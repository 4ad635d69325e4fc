// The module model: everything tlc knows about a set of .cu files after parsing and checking.
// Data flows one way: parse (Frontend) -> extract (Extractor) -> merge and check (ModuleChecks)
// -> render (Render) -> build (Build). `inspect --json` prints this model; the launcher templates
// are filled from the same JSON plus build facts (docs/model-schema.md documents it).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

struct SourceLocation {
  std::string file; // as Clang names it: the path given on the command line or found via -I
  unsigned line = 0;
  unsigned column = 0;

  bool valid() const { return line != 0; }
  std::string str() const; // "file:line:col"
};

// A C type as the generated header spells it. `const float* __restrict__` is
// {base "float", baseConst, pointers [{restrict}]}. Pointers are listed innermost first.
struct CType {
  // Toolkit: a type one of the toolkit's C headers declares (float4, dim3, cudaTextureObject_t),
  // spelled as it does; `header` names the header NAME.h then includes. Bytes: the sized byte
  // struct of a parameter tlc cannot type (ParamKind::Bytes), `base` "bytes<size>_align<align>"
  // (NAME.h spells it tlc_NAME_bytes...; model/DerivedFacts.h sets it).
  enum class Base {
    Void,
    Builtin,
    Half,
    BFloat16,
    Record,
    TensorMap,
    Half2,
    BFloat162,
    Toolkit,
    Bytes
  };
  struct Pointer {
    bool isConst = false;
    bool isRestrict = false;
  };

  Base baseKind = Base::Void;
  std::string base; // "float", "unsigned int", "size_t"; for Record the mirror's name (unprefixed)
  std::string header; // Toolkit: the toolkit header declaring `base`, e.g. "vector_types.h"
  bool baseConst = false;
  std::vector<Pointer> pointers;
};

// The model's enums are spelled only at the JSON edge; model/EnumTables.h has one table per enum
// with its names (annotation and JSON spelling, the CUDA driver's enumerator).

// Empty: an empty class by value (a tag such as std::integral_constant): it carries nothing, so
// it has no C parameter and the launcher passes a value-initialised object.
// Bytes: a parameter tlc cannot type (a class that is not trivially copyable, a reference, a
// closure, a scalar C cannot spell; a parameter of a kernel known only from the image whose
// symbol does not say a plain pointer or builtin scalar): the launcher takes its bytes, as many
// as nvcc's image gives it (`size` is the image's once a build has read it).
enum class ParamKind { Pointer, Scalar, Record, TensorMap, Empty, Bytes };

// A scalar parameter's type; spelled bool i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64, and
// f16x2 bf16x2 for __half2 and __nv_bfloat162.
enum class ScalarType {
  Bool,
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  F16,
  BF16,
  F32,
  F64,
  F16x2,
  BF16x2
};

struct ScalarInfo {
  ScalarType type = ScalarType::I32;
  std::string enumName; // set when the parameter is an enum; `type` is then its underlying type
};

struct PointerInfo {
  std::string pointee; // spelled pointee type without qualifiers, e.g. "float", "nn::Params"
  bool pointeeConst = false;
  bool isRestrict = false;
};

struct RecordRef {
  std::string name;   // qualified C++ name
  std::string cName;  // name of its C mirror in the header (after the module prefix)
  std::string header; // file that declares it
};

// The tensor-map choices of docs/tma.md. Apart from the mode, each mirrors one of the CUDA
// driver's enums (CUtensorMapDataType, CUtensorMapSwizzle, ...) enumerator for enumerator, in
// its order (test/unit/ModelTests.cpp compares them with cuda.h).
enum class TensorMapMode { Tiled, Im2col }; // TLC_TMA, TLC_TMA_IM2COL
enum class TensorMapDataType {
  UInt8,
  UInt16,
  UInt32,
  Int32,
  UInt64,
  Int64,
  Float16,
  Float32,
  Float64,
  BFloat16,
  Float32Ftz,
  TFloat32,
  TFloat32Ftz,
  Packed16U4Align8B,  // 16 4-bit values in 8 bytes
  Packed16U4Align16B, // 16 4-bit values in 16 bytes
  Packed16U6Align16B, // 16 6-bit values in 16 bytes
};
enum class TensorMapSwizzle { None, B32, B64, B128, B128Atom32B, B128Atom32BFlip8B, B128Atom64B };
enum class TensorMapL2Promotion { None, B64, B128, B256 };
enum class TensorMapOobFill { None, NanRequestZeroFma };
enum class TensorMapInterleave { None, B16, B32 };

// What TLC_TMA / TLC_TMA_IM2COL said about a tensor-map parameter (filled by the annotation
// parser, frontend/TensorMapSpecs.h; the raw text is kept so diagnostics can quote it).
struct TensorMapSpec {
  TensorMapMode mode = TensorMapMode::Tiled;
  std::string text;                                   // the annotation string as written
  SourceLocation location;                            // of the annotation
  TensorMapDataType dtype = TensorMapDataType::UInt8; // required: the parser reports its absence
  unsigned rank = 0;
  std::vector<int64_t> box;         // tiled: box dims, innermost first
  std::vector<int64_t> elemStrides; // innermost first
  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
  TensorMapL2Promotion l2 = TensorMapL2Promotion::None;
  TensorMapOobFill oob = TensorMapOobFill::None;
  TensorMapInterleave interleave = TensorMapInterleave::None;
  std::vector<int64_t> lower, upper; // im2col corners (rank - 2 entries)
  int64_t channels = 0, pixels = 0;  // im2col: channels per pixel, pixels per column
  // The driver's rules on the tensor that follow from dtype and interleave (powers of two).
  unsigned addressAlignment = 16; // bytes
  unsigned strideMultiple = 16;   // bytes
  unsigned dim0Multiple = 1;      // elements
  // Derived (model/DerivedFacts.h): among the kernel's tensor maps, counted from 0, the first
  // with the same descriptor settings as this one (its own position if none).
  unsigned group = 0;
};

struct Param {
  unsigned index = 0;
  std::string name;          // declared name, or argN
  std::string type;          // as spelled (template arguments substituted)
  std::string canonicalType; // Clang's canonical spelling
  uint64_t size = 0;         // device size in bytes
  uint64_t align = 0;        // device alignment in bytes
  ParamKind kind = ParamKind::Scalar;
  CType ctype;
  SourceLocation location;
  PointerInfo pointer;                    // kind == Pointer
  ScalarInfo scalar;                      // kind == Scalar
  RecordRef record;                       // kind == Record
  std::optional<TensorMapSpec> tensorMap; // kind == TensorMap, once annotated
  std::string cName; // derived: the name generated C code gives it (cParameterName)
};

enum class TemplateArgumentKind { Type, Value };

struct TemplateArgument {
  TemplateArgumentKind kind = TemplateArgumentKind::Type;
  std::string value; // "float", "4", "true"
};

struct LaunchBounds {
  uint64_t maxThreads = 0;
  std::optional<uint64_t> minBlocks;
  std::optional<uint64_t> maxBlocksPerCluster;
};

struct Kernel {
  std::string name;        // qualified C++ name, e.g. "nn::act::copy_vec"
  std::string displayName; // with template arguments, e.g. "nn::act::copy_vec<float, 4>"
  std::string symbol;      // exact device symbol: extern "C" name or Itanium mangling
  bool externC = false;
  bool weak = false; // an inline definition or a template instantiation (WEAK in the cubin)
  // Static or in an anonymous namespace: nvcc renames it (per file, and again when compiled
  // relocatable), so `symbol` is Clang's guess until the build takes the image's (the image's
  // symbol table is the truth; builder/SymbolResolution.h).
  bool internalLinkage = false;
  // Known from the image alone (builder/ImageKernels.h): nvcc compiled it but the parse did not
  // see it, or tlc could not tell which of the image's entries it is. Its parameters are typed
  // from its symbol where that says a plain pointer or a builtin scalar, else bytes.
  bool fromImage = false;
  // The image targets that hold it, once a build has checked the image (builder/ImageCheck.h):
  // code under `#if __CUDA_ARCH__` may exist for some targets only. Empty before.
  std::vector<std::string> targets;
  SourceLocation location; // the definition (a template's pattern for instantiations)
  std::optional<SourceLocation> instantiatedAt; // explicit or implicit point of instantiation
  std::vector<TemplateArgument> templateArgs;
  std::optional<LaunchBounds> launchBounds;
  std::optional<std::array<uint64_t, 3>> clusterDims;
  std::string explicitName; // from TLC_NAME, "" if none
  SourceLocation explicitNameLocation;
  std::string launcher; // C identifier of the launcher (NAME_<launcher>), set by naming
  std::vector<Param> params;
  std::vector<std::string> translationUnits; // inputs whose parse defined this kernel
  // Derived (model/DerivedFacts.h): its position in Module::kernels, and its tensor maps'
  // slice [firstTensorMap, firstTensorMap + tensorMapCount) of the module's table of tensor
  // maps, which lists every kernel's maps in kernel and parameter order.
  unsigned index = 0;
  unsigned firstTensorMap = 0;
  unsigned tensorMapCount = 0;

  bool hasTensorMaps() const;
};

struct RecordField {
  std::string name;
  CType ctype;
  uint64_t offset = 0;             // bytes
  std::vector<uint64_t> arrayDims; // `float v[2][3]` -> {2, 3}
};

// A struct passed by value (or pointed to) by some kernel, mirrored in the header as a C struct
// with the device layout. Records that C cannot express field by field (bit-fields, unions,
// base classes, over-aligned members) are mirrored as aligned bytes (`opaque`).
struct Record {
  std::string name;   // qualified C++ name
  std::string cName;  // mirror name after the module prefix
  std::string header; // file that declares it
  SourceLocation location;
  uint64_t size = 0;
  uint64_t align = 0;
  bool opaque = false;
  std::vector<RecordField> fields;
};

// An externally visible device definition, for module-wide uniqueness checks.
struct DeviceSymbol {
  enum class Kind { Kernel, Variable, Function };
  std::string symbol;
  std::string name; // for messages: qualified C++ name
  Kind kind = Kind::Function;
  bool weak = false; // inline, template instantiation: the same definition may repeat
  SourceLocation location;
  std::string definitionKey; // fingerprint of the source text (see SourceFacts.h)
  std::string translationUnit;
};

struct Module {
  std::vector<std::string> inputs;
  std::vector<Kernel> kernels;
  std::vector<Record> records;
  std::vector<std::string> otherEntries; // kernels from system headers: in the image, no launcher
  // Kernel templates of system headers ("outermost namespace::name"), for instances Clang did not
  // see (builder/ImageCheck.h). Not serialised.
  std::vector<std::string> libraryKernelTemplates;
  // Some input launches a kernel from device code (dynamic parallelism): the module needs
  // relocatable device code, and the parse -fgpu-rdc.
  bool deviceSideLaunch = false;
};

} // namespace tlc
