// TranslationUnitFacts as JSON and back (UnitFactsJson.h), through nlohmann's field lists: each
// record names its fields once, for writing and reading alike.
#include "frontend/UnitFactsJson.h"

#include <nlohmann/json.hpp>

#include <type_traits>

// std::optional as the value or null (nlohmann 3.11.2 has no serializer of its own for it).
namespace nlohmann {
template <typename T> struct adl_serializer<std::optional<T>> {
  static void to_json(json& out, const std::optional<T>& value) {
    if (value)
      out = *value;
    else
      out = nullptr;
  }
  static void from_json(const json& in, std::optional<T>& value) {
    if (in.is_null())
      value.reset();
    else
      value = in.get<T>();
  }
};
} // namespace nlohmann

namespace tlc {

using nlohmann::json;

// A field added to one of these records must be added to its list below, or its value would be
// lost on the way through the cache without a word. The sizes (x86-64, libstdc++) stop the build
// until it is: update the list, then the size.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(SourceLocation) == 40, "a field of SourceLocation is missing below");
static_assert(sizeof(CType) == 104, "a field of CType is missing below");
static_assert(sizeof(TensorMapSpec) == 232, "a field of TensorMapSpec is missing below");
static_assert(sizeof(Param) == 720, "a field of Param is missing below");
static_assert(sizeof(Kernel) == 488, "a field of Kernel is missing below");
static_assert(sizeof(Record) == 184, "a field of Record is missing below");
static_assert(sizeof(RecordField) == 168, "a field of RecordField is missing below");
static_assert(sizeof(DeviceSymbol) == 176, "a field of DeviceSymbol is missing below");
static_assert(sizeof(TranslationUnitFacts) == 232,
              "a field of TranslationUnitFacts is missing below");
#endif

// Enumerators as their numbers, read back only when in range: a number out of range would index
// past the model's tables of names (model/EnumTables.h).
#define TLC_FACTS_ENUM(Enum, Last)                                                                 \
  [[maybe_unused]] static void to_json(json& out, Enum value) {                                    \
    out = static_cast<int>(value);                                                                 \
  }                                                                                                \
  [[maybe_unused]] static void from_json(const json& in, Enum& value) {                            \
    int number = in.get<int>();                                                                    \
    if (number < 0 || number > static_cast<int>(Last))                                             \
      throw std::out_of_range("an enumerator out of range");                                       \
    value = static_cast<Enum>(number);                                                             \
  }

TLC_FACTS_ENUM(CType::Base, CType::Base::Bytes)
TLC_FACTS_ENUM(ParamKind, ParamKind::Bytes)
TLC_FACTS_ENUM(ScalarType, ScalarType::BF16x2)
TLC_FACTS_ENUM(TensorMapMode, TensorMapMode::Im2col)
TLC_FACTS_ENUM(TensorMapDataType, TensorMapDataType::Packed16U6Align16B)
TLC_FACTS_ENUM(TensorMapSwizzle, TensorMapSwizzle::B128Atom64B)
TLC_FACTS_ENUM(TensorMapL2Promotion, TensorMapL2Promotion::B256)
TLC_FACTS_ENUM(TensorMapOobFill, TensorMapOobFill::NanRequestZeroFma)
TLC_FACTS_ENUM(TensorMapInterleave, TensorMapInterleave::B32)
TLC_FACTS_ENUM(TemplateArgumentKind, TemplateArgumentKind::Value)
TLC_FACTS_ENUM(DeviceSymbol::Kind, DeviceSymbol::Kind::Function)
#undef TLC_FACTS_ENUM

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SourceLocation, file, line, column)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CType::Pointer, isConst, isRestrict)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CType, baseKind, base, header, baseConst, pointers)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ScalarInfo, type, enumName)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PointerInfo, pointee, pointeeConst, isRestrict)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecordRef, name, cName, header)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TensorMapSpec, mode, text, location, dtype, rank, box,
                                   elemStrides, swizzle, l2, oob, interleave, lower, upper,
                                   channels, pixels, addressAlignment, strideMultiple, dim0Multiple,
                                   group)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Param, index, name, type, canonicalType, size, align, kind,
                                   ctype, location, pointer, scalar, record, tensorMap, cName)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TemplateArgument, kind, value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LaunchBounds, maxThreads, minBlocks, maxBlocksPerCluster)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Kernel, name, displayName, symbol, externC, weak,
                                   internalLinkage, fromImage, targets, location, instantiatedAt,
                                   templateArgs, launchBounds, clusterDims, explicitName,
                                   explicitNameLocation, launcher, params, translationUnits, index,
                                   firstTensorMap, tensorMapCount)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecordField, name, ctype, offset, arrayDims)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Record, name, cName, header, location, size, align, opaque,
                                   fields)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceSymbol, symbol, name, kind, weak, location, definitionKey,
                                   translationUnit)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TranslationUnitFacts::HostFunction, name, location)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TranslationUnitFacts, input, kernels, records, definitions,
                                   otherEntries, libraryKernelTemplates, filesRead, userHeaders,
                                   hostFunctions, deviceSideLaunch, fromPreamble, declarationsOnly)

std::optional<std::string> writeUnitFacts(const TranslationUnitFacts& facts) {
  try {
    return json(facts).dump();
  } catch (const json::exception&) { // a string that is not UTF-8
    return std::nullopt;
  }
}

// What the extractor always makes of one input's facts, which the steps after it take for granted
// (a kernel's first translation unit is read without a check): a kernel and a definition are the
// input's own, each parameter is at its place.
static bool wellFormed(const TranslationUnitFacts& facts) {
  for (const Kernel& kernel : facts.kernels) {
    if (kernel.translationUnits != std::vector<std::string>{facts.input})
      return false;
    for (size_t i = 0; i < kernel.params.size(); ++i)
      if (kernel.params[i].index != i)
        return false;
  }
  for (const DeviceSymbol& symbol : facts.definitions)
    if (symbol.translationUnit != facts.input)
      return false;
  return true;
}

std::optional<TranslationUnitFacts> readUnitFacts(llvm::StringRef text) {
  try {
    auto facts = json::parse(text.begin(), text.end()).get<TranslationUnitFacts>();
    if (!wellFormed(facts))
      return std::nullopt;
    return facts;
  } catch (const std::exception&) { // nlohmann's errors, or an enumerator out of range
    return std::nullopt;
  }
}

} // namespace tlc
