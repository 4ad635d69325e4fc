// The Python part of the launcher view: keywords, parameter-table rows, docstrings, name checks.
#include "render/PythonView.h"

#include "model/EnumTables.h"
#include "python/src/LaunchOptions.h"
#include "render/Literals.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cassert>
#include <map>

namespace tlc {

namespace {

// keyword.kwlist (CPython 3.10 to 3.13): names that cannot be attributes or parameters. Soft
// keywords (match, case, type, _) can.
const std::vector<std::string>& pythonKeywordList() {
  static const std::vector<std::string> words = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
  };
  return words;
}

bool contains(const std::vector<std::string>& list, const std::string& word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Per ScalarType, in enum order: the binding's enumerator, the tlc_py_value member, the type a
// stub names.
struct ScalarSpelling {
  const char* enumerator;
  const char* member;
  const char* stubType;
};

const ScalarSpelling& spellingOf(ScalarType type) {
  static const ScalarSpelling spellings[] = {
      {"TLC_PY_BOOL", "b", "bool"},
      {"TLC_PY_I8", "i8", "int"},
      {"TLC_PY_U8", "u8", "int"},
      {"TLC_PY_I16", "i16", "int"},
      {"TLC_PY_U16", "u16", "int"},
      {"TLC_PY_I32", "i32", "int"},
      {"TLC_PY_U32", "u32", "int"},
      {"TLC_PY_I64", "i64", "int"},
      {"TLC_PY_U64", "u64", "int"},
      {"TLC_PY_F16", "f16", "float"},
      {"TLC_PY_BF16", "bf16", "float"},
      {"TLC_PY_F32", "f32", "float"},
      {"TLC_PY_F64", "f64", "float"},
      {"TLC_PY_F16X2", "f16x2", "tlc.Pair"},
      {"TLC_PY_BF16X2", "bf16x2", "tlc.Pair"},
  };
  static_assert(sizeof spellings / sizeof spellings[0] ==
                    static_cast<size_t>(ScalarType::BF16x2) + 1,
                "one spelling per ScalarType");
  return spellings[static_cast<size_t>(type)];
}

// ---- element types ------------------------------------------------------------------------
// What a pointer parameter's pointee takes (docs/python.md, "Element types"), as the binding's
// tlc_py_dtype enumerators without their TLC_PY_DT_ prefix; none: any array.
using Dtypes = std::vector<const char*>;

// Builtin types and the standard typedefs as ParameterTypes spells them (LP64). char, unsigned
// char (uint8_t, std::byte) and char8_t are bytes: they take any array.
Dtypes builtinDtypes(const std::string& base) {
  static const std::map<std::string, const char*> elements = {
      {"bool", "BOOL"},     {"signed char", "I8"},    {"int8_t", "I8"},
      {"short", "I16"},     {"int16_t", "I16"},       {"unsigned short", "U16"},
      {"uint16_t", "U16"},  {"char16_t", "U16"},      {"int", "I32"},
      {"int32_t", "I32"},   {"wchar_t", "I32"},       {"unsigned int", "U32"},
      {"uint32_t", "U32"},  {"char32_t", "U32"},      {"long", "I64"},
      {"long long", "I64"}, {"int64_t", "I64"},       {"ptrdiff_t", "I64"},
      {"intptr_t", "I64"},  {"unsigned long", "U64"}, {"unsigned long long", "U64"},
      {"uint64_t", "U64"},  {"size_t", "U64"},        {"uintptr_t", "U64"},
      {"float", "F32"},     {"double", "F64"},
  };
  auto found = elements.find(base);
  return found == elements.end() ? Dtypes{} : Dtypes{found->second};
}

// CUDA's vector types (vector_types.h: float4, int2, uchar4, double4_32a, ...) take arrays of
// their element type; those of two or four floats or doubles also complex ones (cuComplex is
// float2). dim3 is three unsigned ints.
Dtypes vectorDtypes(llvm::StringRef base) {
  if (base == "dim3")
    return {"U32"};
  if (!base.consume_back("_16a"))
    base.consume_back("_32a"); // double4_32a: an alignment variant
  if (base.size() < 2 || base.back() < '1' || base.back() > '4')
    return {};
  char lanes = base.back();
  llvm::StringRef element = base.drop_back();
  static const std::map<std::string, const char*, std::less<>> elements = {
      {"char", "I8"},       {"short", "I16"}, {"ushort", "U16"}, {"int", "I32"},
      {"uint", "U32"},      {"long", "I64"},  {"ulong", "U64"},  {"longlong", "I64"},
      {"ulonglong", "U64"}, {"float", "F32"}, {"double", "F64"},
  };
  auto found = elements.find(element);
  if (found == elements.end())
    return {}; // uchar: bytes, as unsigned char
  Dtypes dtypes = {found->second};
  if (lanes == '2' || lanes == '4') {
    if (element == "float")
      dtypes.push_back("C64");
    else if (element == "double")
      dtypes.push_back("C128");
  }
  return dtypes;
}

// The toolkit's 8-, 6- and 4-bit floating-point types (cuda_fp8.h, cuda_fp6.h, cuda_fp4.h), by
// their C++ name; their x2 and x4 vectors take the same arrays. The 6- and 4-bit ones hold one
// value per byte, except __nv_fp4x2_e2m1 and __nv_fp4x4_e2m1, which pack two.
Dtypes narrowFloatDtypes(llvm::StringRef name) {
  static const std::map<std::string, const char*, std::less<>> types = {
      {"__nv_fp8_e4m3", "F8_E4M3FN"},      {"__nv_fp8x2_e4m3", "F8_E4M3FN"},
      {"__nv_fp8x4_e4m3", "F8_E4M3FN"},    {"__nv_fp8_e5m2", "F8_E5M2"},
      {"__nv_fp8x2_e5m2", "F8_E5M2"},      {"__nv_fp8x4_e5m2", "F8_E5M2"},
      {"__nv_fp8_e8m0", "F8_E8M0FNU"},     {"__nv_fp8x2_e8m0", "F8_E8M0FNU"},
      {"__nv_fp8x4_e8m0", "F8_E8M0FNU"},   {"__nv_fp6_e2m3", "F6_E2M3FN"},
      {"__nv_fp6x2_e2m3", "F6_E2M3FN"},    {"__nv_fp6x4_e2m3", "F6_E2M3FN"},
      {"__nv_fp6_e3m2", "F6_E3M2FN"},      {"__nv_fp6x2_e3m2", "F6_E3M2FN"},
      {"__nv_fp6x4_e3m2", "F6_E3M2FN"},    {"__nv_fp4_e2m1", "F4_E2M1FN"},
      {"__nv_fp4x2_e2m1", "F4_E2M1FN_X2"}, {"__nv_fp4x4_e2m1", "F4_E2M1FN_X2"},
  };
  auto found = types.find(name);
  return found == types.end() ? Dtypes{} : Dtypes{found->second};
}

// A struct's C++ name, from the name of its mirror (CType::base of a Record).
std::string recordName(const std::string& mirror, const Module& module) {
  for (const Record& record : module.records)
    if (record.cName == mirror)
      return record.name;
  return "";
}

Dtypes pointeeDtypes(const Param& param, const Module& module) {
  const CType& ctype = param.ctype;
  if (param.kind != ParamKind::Pointer || ctype.pointers.size() != 1)
    return {}; // a pointer to pointers takes any array (of addresses, or not)
  switch (ctype.baseKind) {
  case CType::Base::Builtin:
    return builtinDtypes(ctype.base);
  case CType::Base::Half:
    return {"F16"};
  case CType::Base::BFloat16:
  case CType::Base::BFloat162:
    return {"BF16"};
  case CType::Base::Half2:
    return {"F16", "C32"};
  case CType::Base::Toolkit:
    return vectorDtypes(ctype.base);
  case CType::Base::Record:
    return narrowFloatDtypes(recordName(ctype.base, module));
  case CType::Base::Void:
  case CType::Base::TensorMap:
  case CType::Base::Bytes: // untyped bytes: any array
    break;
  }
  return {};
}

// The parameter table's `accepts`: TLC_PY_ACCEPTS(TLC_PY_DT_F32) | ..., or TLC_PY_ACCEPTS_ANY.
std::string acceptsLiteral(const Dtypes& dtypes) {
  if (dtypes.empty())
    return "TLC_PY_ACCEPTS_ANY";
  std::string literal;
  for (const char* dtype : dtypes)
    literal +=
        std::string(literal.empty() ? "" : " | ") + "TLC_PY_ACCEPTS(TLC_PY_DT_" + dtype + ")";
  return literal;
}

// What each parameter takes, one line each, for docstrings.
std::string parameterLines(const Kernel& kernel, const std::vector<std::string>& keywords) {
  std::string lines;
  for (size_t p = 0; p < kernel.params.size(); ++p) {
    const Param& param = kernel.params[p];
    lines += "  " + keywords[p] + ": " + param.type;
    switch (param.kind) {
    case ParamKind::Pointer:
      lines += param.pointer.pointeeConst ? " (a CUDA array or an address)"
                                          : " (a CUDA array or an address; the kernel may "
                                            "write it)";
      break;
    case ParamKind::Record:
      lines += " (its " + std::to_string(param.size) + " bytes)";
      break;
    case ParamKind::Bytes:
      lines += " (its " + std::to_string(param.size) + " bytes: tlc cannot type it)";
      break;
    case ParamKind::TensorMap:
      lines += " (a tensor of rank " + std::to_string(param.tensorMap ? param.tensorMap->rank : 0) +
               "; the launcher encodes the map)";
      break;
    case ParamKind::Scalar:
    case ParamKind::Empty: // not an argument (withoutEmptyParams)
      break;
    }
    lines += "\n";
  }
  return lines;
}

// `saxpy($module, x, y, a, n, *, grid, block, stream=None, ...)`: what inspect.signature reads
// from a builtin's __text_signature__.
std::string textSignature(const Kernel& kernel, const std::vector<std::string>& keywords) {
  std::string signature = kernel.launcher + "($module";
  for (const std::string& keyword : keywords)
    signature += ", " + keyword;
  signature += ", *, grid, block, shared_mem=0, stream=None, device=None, cluster=None, "
               "cooperative=False, programmatic_dependent_launch=False, l2_persist_base=None, "
               "l2_persist_bytes=0, l2_persist_hit_ratio=1.0)";
  return signature;
}

std::string docText(const Kernel& kernel, const std::vector<std::string>& keywords) {
  std::string text = "Launches " + kernel.displayName + " (" + kernel.location.file + ":" +
                     std::to_string(kernel.location.line) +
                     ") with grid= blocks of block= threads.";
  if (!kernel.params.empty())
    text += "\n\n" + parameterLines(kernel, keywords);
  return text;
}

nlohmann::json paramView(const Param& param, const std::string& keyword, const Module& module) {
  nlohmann::json view = {
      {"keyword", keyword},
      {"type", param.type},
      {"writable", "0"},
      {"size", "0"},
      {"rank", "0"},
      {"scalar_enum", "0"},
      {"accepts", "0"},
      {"pointer", param.kind == ParamKind::Pointer},
      {"scalar", param.kind == ParamKind::Scalar},
      {"record", param.kind == ParamKind::Record || param.kind == ParamKind::Bytes},
      {"tensor_map", param.kind == ParamKind::TensorMap}};
  switch (param.kind) {
  case ParamKind::Pointer:
    view["kind_enum"] = "TLC_PY_POINTER";
    view["writable"] = param.pointer.pointeeConst ? "0" : "1";
    view["accepts"] = acceptsLiteral(pointeeDtypes(param, module));
    view["stub_type"] = "tlc.Pointer";
    break;
  case ParamKind::Scalar: {
    const ScalarSpelling& spelling = spellingOf(param.scalar.type);
    view["kind_enum"] = "TLC_PY_SCALAR";
    view["scalar_enum"] = spelling.enumerator;
    view["member"] = spelling.member;
    view["stub_type"] = spelling.stubType;
    break;
  }
  case ParamKind::Record:
  case ParamKind::Bytes: // the same: bytes-like, exactly its size
    view["kind_enum"] = "TLC_PY_RECORD";
    view["size"] = std::to_string(param.size);
    view["stub_type"] = "tlc.Record";
    break;
  case ParamKind::TensorMap:
    view["kind_enum"] = "TLC_PY_TENSOR_MAP";
    if (param.tensorMap) {
      view["size"] = std::to_string(describe(param.tensorMap->dtype).bits);
      view["rank"] = std::to_string(param.tensorMap->rank);
    }
    view["stub_type"] = "tlc.Array";
    break;
  case ParamKind::Empty: // not an argument (withoutEmptyParams)
    break;
  }
  return view;
}

} // namespace

const std::vector<std::string>& pythonLaunchOptions() {
#define TLC_PY_OPTION_NAME(id, name) name,
  static const std::vector<std::string> options = {TLC_PY_LAUNCH_OPTIONS(TLC_PY_OPTION_NAME)};
#undef TLC_PY_OPTION_NAME
  return options;
}

bool isPythonKeyword(const std::string& word) {
  return contains(pythonKeywordList(), word);
}

llvm::Error checkPythonNames(const Module& module) {
  std::string problems;
  for (const Kernel& kernel : module.kernels) {
    llvm::StringRef name = kernel.launcher;
    std::string why;
    if (name == "tlc")
      why = "is the package's helper submodule (NAME.tlc)";
    else if (contains(pythonKeywordList(), kernel.launcher))
      why = "is a Python keyword";
    else if (name.size() > 4 && name.starts_with("__") && name.ends_with("__"))
      why = "is reserved for the package's own attributes (__dunder__ names)";
    if (why.empty())
      continue;
    problems += (problems.empty() ? "" : "\n") + kernel.location.str() + ": launcher name '" +
                kernel.launcher + "' of kernel '" + kernel.displayName + "' " + why +
                "; rename it with TLC_NAME(\"...\") from tlc/annotations.h to build it with "
                "--python";
  }
  if (problems.empty())
    return llvm::Error::success();
  return inputError(problems);
}

std::vector<std::string> pythonKeywords(const Kernel& kernel) {
  std::vector<std::string> keywords;
  for (const Param& param : kernel.params) {
    // A name beyond ASCII (`été`) is a Python identifier, but no signature text can hold it
    // (inspect reads __text_signature__ as ASCII): such a parameter is `argN`, as an unnamed one.
    std::string keyword = llvm::all_of(param.name, [](char c) { return llvm::isASCII(c); })
                              ? param.name
                              : "arg" + std::to_string(keywords.size());
    while (contains(pythonKeywordList(), keyword) || contains(pythonLaunchOptions(), keyword) ||
           contains(keywords, keyword))
      keyword += "_";
    keywords.push_back(keyword);
  }
  return keywords;
}

// The kernel as Python callers see it: its empty tag parameters, which the C launcher passes
// itself, are not arguments.
Kernel withoutEmptyParams(const Kernel& kernel) {
  Kernel visible = kernel;
  visible.params.erase(
      std::remove_if(visible.params.begin(), visible.params.end(),
                     [](const Param& param) { return param.kind == ParamKind::Empty; }),
      visible.params.end());
  return visible;
}

// Whether NAME.tlc.get and launchers() also name `kernel` by its C++ name: where that name
// differs from the launcher's, names no other kernel and is no launcher's name (a launcher's
// own name wins). python/package/tlc/__init__.py applies the same rule at run time.
bool hasCxxAlias(const Kernel& kernel, const Module& module) {
  if (kernel.displayName == kernel.launcher)
    return false;
  for (const Kernel& other : module.kernels)
    if (other.launcher == kernel.displayName ||
        (&other != &kernel && other.displayName == kernel.displayName))
      return false;
  return true;
}

void addPythonView(const Module& module, nlohmann::json& view) {
  bool cxxAliases = false;
  for (size_t k = 0; k < module.kernels.size(); ++k) {
    const Kernel kernel = withoutEmptyParams(module.kernels[k]);
    nlohmann::json& kernelView = view["kernels"][k];
    assert(kernelView["launcher"] == kernel.launcher && "the view is not this module's");
    std::vector<std::string> keywords = pythonKeywords(kernel);
    // py_params: the C launcher's parameters, numbered by their place among Python's arguments.
    nlohmann::json pyParams = nlohmann::json::array();
    for (const nlohmann::json& param : kernelView["params"]) {
      if (param.value("is_empty", false))
        continue;
      size_t p = pyParams.size();
      nlohmann::json& entry = pyParams.emplace_back(param);
      entry["index"] = p;
      entry["py"] = paramView(kernel.params[p], keywords[p], module);
    }
    kernelView["py_params"] = std::move(pyParams);
    kernelView["py_has_params"] = !kernel.params.empty();
    std::string doc = docText(kernel, keywords);
    kernelView["python"] = {
        {"slots", std::to_string(std::max<size_t>(1, kernel.params.size()))},
        {"doc", textSignature(kernel, keywords) + "\n--\n\n" + doc},
        {"stub_doc", pythonDocstringText(doc)},
        {"cxx_name", kernel.displayName},
    };
    if (hasCxxAlias(module.kernels[k], module)) {
      kernelView["python"]["cxx_alias"] = kernel.displayName;
      cxxAliases = true;
    }
  }
  view["python_has_cxx_aliases"] = cxxAliases;
}

} // namespace tlc
