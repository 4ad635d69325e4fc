// The TLC_TMA grammar: parsing and checking tensor-map annotations.
#include "frontend/TensorMapSpecs.h"

#include "model/EnumTables.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <map>
#include <set>

namespace tlc {

namespace {

using DataTypeRow = EnumRow<TensorMapDataType>;
using SwizzleRow = EnumRow<TensorMapSwizzle>;
using OobRow = EnumRow<TensorMapOobFill>;
using InterleaveRow = EnumRow<TensorMapInterleave>;

// Splits on whitespace outside parentheses: "box=(A * 2)x64 dtype=f16" has two items.
std::vector<std::string> splitTopLevel(llvm::StringRef text,
                                       bool (*isSeparator)(llvm::StringRef, size_t)) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth == 0 && isSeparator(text, i)) {
      if (!current.empty())
        parts.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty())
    parts.push_back(current);
  return parts;
}

bool isSpaceAt(llvm::StringRef text, size_t i) {
  return llvm::isSpace(text[i]);
}

// An `x` between two list items: after a digit or ')' and before a digit, '(', or a sign.
// `BMxBK` is therefore one item (a name), which the evaluator rejects with a hint.
bool isListSeparatorAt(llvm::StringRef text, size_t i) {
  if (text[i] != 'x' || i == 0 || i + 1 >= text.size())
    return false;
  char before = text[i - 1], after = text[i + 1];
  return (llvm::isDigit(before) || before == ')') &&
         (llvm::isDigit(after) || after == '(' || after == '-' || after == '+');
}

class SpecParser {
public:
  SpecParser(TensorMapSpec& spec, const ValueEvaluator& evaluate)
      : Spec(spec), Evaluate(evaluate), Tiled(spec.mode == TensorMapMode::Tiled) {}

  std::vector<std::string> run() {
    std::map<std::string, std::string> values;
    for (const std::string& item : splitTopLevel(Spec.text, isSpaceAt)) {
      auto [key, value] = llvm::StringRef(item).split('=');
      if (!llvm::StringRef(item).contains('=') || value.empty()) {
        problem("'" + item + "' is not key=value");
        continue;
      }
      if (!knownKeys().count(key.str())) {
        problem("unknown key '" + key.str() + "' (keys: " + keyList() + ")");
        continue;
      }
      if (!values.emplace(key.str(), value.str()).second)
        problem("'" + key.str() + "' is given twice");
    }
    if (!Problems.empty())
      return Problems;
    readChoices(values);
    readNumbers(values);
    if (Problems.empty())
      Tiled ? checkTiled() : checkIm2col();
    return Problems;
  }

private:
  std::set<std::string> knownKeys() const {
    std::set<std::string> keys = {"dtype", "rank", "elemstrides", "swizzle",
                                  "l2",    "oob",  "interleave"};
    for (const char* key : Tiled ? std::vector<const char*>{"box"}
                                 : std::vector<const char*>{"lower", "upper", "channels", "pixels"})
      keys.insert(key);
    return keys;
  }

  std::string keyList() const {
    std::string list;
    for (const std::string& key : knownKeys())
      list += (list.empty() ? "" : ", ") + key;
    return list;
  }

  void problem(const std::string& text) { Problems.push_back(text); }

  // The row `value` names (in any case), or null after reporting it.
  template <typename Enum>
  const EnumRow<Enum>* choose(const std::string& key, const std::string& value) {
    if (const EnumRow<Enum>* row = findRow<Enum>(value, /*ignoreCase=*/true))
      return row;
    problem("unknown " + key + " '" + value + "' (one of: " + nameList<Enum>() + ")");
    return nullptr;
  }

  void readChoices(const std::map<std::string, std::string>& values) {
    auto value = [&](const char* key, const char* fallback) {
      auto it = values.find(key);
      return it == values.end() ? std::string(fallback) : it->second;
    };
    if (!values.count("dtype"))
      problem("'dtype' is required (one of: " + nameList<TensorMapDataType>() + ")");
    else if ((Type = choose<TensorMapDataType>("dtype", value("dtype", ""))))
      Spec.dtype = Type->value;
    if ((Swizzle = choose<TensorMapSwizzle>("swizzle", value("swizzle", "none"))))
      Spec.swizzle = Swizzle->value;
    if (const auto* l2 = choose<TensorMapL2Promotion>("l2", value("l2", "none")))
      Spec.l2 = l2->value;
    if ((Oob = choose<TensorMapOobFill>("oob", value("oob", "none"))))
      Spec.oob = Oob->value;
    if ((Interleave = choose<TensorMapInterleave>("interleave", value("interleave", "none"))))
      Spec.interleave = Interleave->value;
    // What these choices demand of the tensor at run time (the launcher checks it).
    bool wide = packed16B() || Spec.interleave == TensorMapInterleave::B32;
    Spec.addressAlignment = wide ? 32 : 16;
    Spec.strideMultiple = wide ? 32 : 16;
    Spec.dim0Multiple = packed16B()                                          ? 128
                        : Spec.dtype == TensorMapDataType::Packed16U4Align8B ? 2
                                                                             : 1;
  }

  bool number(const std::string& key, const std::string& text, int64_t& out) {
    std::string error;
    if (Evaluate(text, out, error))
      return true;
    bool bareNames = !text.empty() && text.front() != '(' && llvm::any_of(text, llvm::isAlpha);
    problem("cannot evaluate " + key + " '" + text + "': " + error +
            (bareNames ? "; write expressions in parentheses, e.g. (BLOCK_M)x(BLOCK_K)" : ""));
    return false;
  }

  bool list(const std::string& key, const std::string& text, std::vector<int64_t>& out) {
    for (const std::string& item : splitTopLevel(text, isListSeparatorAt)) {
      int64_t value = 0;
      if (!number(key, item, value))
        return false;
      out.push_back(value);
    }
    return true;
  }

  void readNumbers(const std::map<std::string, std::string>& values) {
    for (const auto& [key, text] : values) {
      if (key == "box")
        list(key, text, Spec.box);
      else if (key == "elemstrides")
        list(key, text, Spec.elemStrides);
      else if (key == "lower")
        list(key, text, Spec.lower);
      else if (key == "upper")
        list(key, text, Spec.upper);
      else if (key == "rank" || key == "channels" || key == "pixels") {
        int64_t value = 0;
        if (!number(key, text, value))
          continue;
        if (key == "rank")
          RankGiven = value;
        else
          (key == "channels" ? Spec.channels : Spec.pixels) = value;
      }
    }
    if (Tiled && !values.count("box"))
      problem("'box' is required: the box dims, innermost first, e.g. box=64x64");
    if (!Tiled) {
      for (const char* key : {"rank", "channels", "pixels"})
        if (!values.count(key))
          problem(std::string("'") + key + "' is required for TLC_TMA_IM2COL");
    }
  }

  // Bytes of one row of the box along the innermost dimension: what TMA moves contiguously.
  int64_t innerBytes(int64_t elements) const {
    if (!Type)
      return 0;
    if (packed16B())
      return elements; // 16 packed values in 16 bytes
    return elements * Type->bits / 8;
  }

  // The types that pack 16 values into 16 bytes.
  bool packed16B() const {
    return Type && (Type->value == TensorMapDataType::Packed16U4Align16B ||
                    Type->value == TensorMapDataType::Packed16U6Align16B);
  }

  void checkRank(int64_t rank) {
    bool interleaved = Interleave && Interleave->value != TensorMapInterleave::None;
    int64_t lowest = Tiled && !interleaved ? 1 : 3;
    if (rank < lowest || rank > 5)
      problem("rank " + std::to_string(rank) + " is outside " + std::to_string(lowest) + "..5" +
              (Tiled && interleaved ? " (interleaved layouts need rank 3 or more)" : ""));
    Spec.rank = static_cast<unsigned>(std::max<int64_t>(rank, 0));
  }

  void checkElementStrides() {
    if (Spec.elemStrides.empty())
      Spec.elemStrides.assign(Spec.rank, 1);
    if (Spec.elemStrides.size() != Spec.rank)
      problem("elemstrides has " + std::to_string(Spec.elemStrides.size()) +
              " entries but the rank is " + std::to_string(Spec.rank));
    for (int64_t stride : Spec.elemStrides)
      if (stride < 1 || stride > 8)
        problem("element stride " + std::to_string(stride) + " is outside 1..8");
  }

  // The rules on the innermost row shared by both modes.
  void checkInnerRow(int64_t elements, const std::string& what) {
    if (!Type || !Swizzle || !Interleave)
      return;
    int64_t bytes = innerBytes(elements);
    std::string row = "the inner " + what + " is " + std::to_string(bytes) + " bytes (" +
                      std::to_string(elements) + " x " + Type->name + ")";
    bool interleaved = Interleave->value != TensorMapInterleave::None;
    if (!interleaved && bytes % 16 != 0)
      problem(row + ", not a multiple of 16");
    if (!interleaved && Swizzle->span && bytes > Swizzle->span)
      problem(row + ", over the " + Swizzle->name + " swizzle span");
    if (Interleave->value == TensorMapInterleave::B32 && Swizzle->value != TensorMapSwizzle::B32)
      problem("interleave=32B needs swizzle=32B");
    if (Oob && Oob->value == TensorMapOobFill::NanRequestZeroFma && !Type->floating)
      problem("oob=nan needs a floating-point dtype, not " + std::string(Type->name));
    bool sixBit = Type->value == TensorMapDataType::Packed16U6Align16B;
    if (sixBit && interleaved)
      problem("dtype=16u6_align16b needs interleave=none");
    if (packed16B()) {
      std::set<TensorMapSwizzle> allowed = {TensorMapSwizzle::None, TensorMapSwizzle::B128,
                                            TensorMapSwizzle::B128Atom32B};
      if (sixBit)
        allowed.insert(TensorMapSwizzle::B128Atom64B);
      if (!allowed.count(Swizzle->value))
        problem("dtype=" + std::string(Type->name) + " does not support swizzle=" + Swizzle->name);
    }
  }

  void checkTiled() {
    checkRank(RankGiven ? *RankGiven : static_cast<int64_t>(Spec.box.size()));
    if (Spec.box.size() != Spec.rank)
      problem("box has " + std::to_string(Spec.box.size()) + " dims but the rank is " +
              std::to_string(Spec.rank));
    for (int64_t dim : Spec.box)
      if (dim < 1 || dim > 256)
        problem("box dim " + std::to_string(dim) + " is outside 1..256");
    checkElementStrides();
    if (Spec.box.empty())
      return;
    if (packed16B() && Spec.box[0] != 128)
      problem("dtype=" + std::string(Type->name) + " needs an inner box dim of 128, not " +
              std::to_string(Spec.box[0]));
    checkInnerRow(Spec.box[0], "box dim");
  }

  void checkIm2col() {
    checkRank(RankGiven ? *RankGiven : 0);
    size_t spatial = Spec.rank >= 2 ? Spec.rank - 2 : 0;
    // Corner offsets narrow as the rank grows (the driver packs them in one field).
    int64_t limit = Spec.rank == 3 ? 32768 : Spec.rank == 4 ? 128 : 16;
    for (auto [name, corner] : {std::pair<const char*, std::vector<int64_t>*>{"lower", &Spec.lower},
                                {"upper", &Spec.upper}}) {
      if (corner->empty())
        corner->assign(spatial, 0);
      if (corner->size() != spatial)
        problem(std::string(name) + " has " + std::to_string(corner->size()) +
                " entries but rank " + std::to_string(Spec.rank) + " has " +
                std::to_string(spatial) + " spatial dims");
      for (int64_t offset : *corner)
        if (offset < -limit || offset >= limit)
          problem(std::string(name) + " corner offset " + std::to_string(offset) + " is outside " +
                  std::to_string(-limit) + ".." + std::to_string(limit - 1) + " for rank " +
                  std::to_string(Spec.rank));
    }
    if (Spec.channels < 1 || Spec.channels > 256)
      problem("channels " + std::to_string(Spec.channels) + " is outside 1..256");
    else if (packed16B() && Spec.channels != 128)
      problem("dtype=" + std::string(Type->name) + " needs channels=128");
    if (Spec.pixels < 1 || Spec.pixels > 1024)
      problem("pixels " + std::to_string(Spec.pixels) + " is outside 1..1024");
    checkElementStrides();
    checkInnerRow(Spec.channels, "row (channels)");
  }

  TensorMapSpec& Spec;
  const ValueEvaluator& Evaluate;
  bool Tiled;
  // The rows chosen, null while unknown (a problem was reported).
  const DataTypeRow* Type = nullptr;
  const SwizzleRow* Swizzle = nullptr;
  const OobRow* Oob = nullptr;
  const InterleaveRow* Interleave = nullptr;
  std::optional<int64_t> RankGiven;
  std::vector<std::string> Problems;
};

} // namespace

std::vector<std::string> parseTensorMapSpec(TensorMapSpec& spec, const ValueEvaluator& evaluate) {
  return SpecParser(spec, evaluate).run();
}

} // namespace tlc
