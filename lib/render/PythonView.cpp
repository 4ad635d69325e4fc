// The Python part of the launcher view: keywords, parameter-table rows, docstrings, name checks.
#include "render/PythonView.h"

#include "model/EnumTables.h"
#include "python/src/LaunchOptions.h"
#include "support/Error.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cassert>

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
      {"TLC_PY_BOOL", "b", "bool"},     {"TLC_PY_I8", "i8", "int"},
      {"TLC_PY_U8", "u8", "int"},       {"TLC_PY_I16", "i16", "int"},
      {"TLC_PY_U16", "u16", "int"},     {"TLC_PY_I32", "i32", "int"},
      {"TLC_PY_U32", "u32", "int"},     {"TLC_PY_I64", "i64", "int"},
      {"TLC_PY_U64", "u64", "int"},     {"TLC_PY_F16", "f16", "float"},
      {"TLC_PY_BF16", "bf16", "float"}, {"TLC_PY_F32", "f32", "float"},
      {"TLC_PY_F64", "f64", "float"},
  };
  static_assert(sizeof spellings / sizeof spellings[0] == 13, "one spelling per ScalarType");
  return spellings[static_cast<size_t>(type)];
}

// `text` as the body of a C string literal.
std::string cEscaped(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    default:
      out += c;
    }
  }
  return out;
}

// `text` inside a Python triple-quoted string.
std::string pythonDocEscaped(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"')
      out += '\\';
    out += c;
  }
  return out;
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

nlohmann::json paramView(const Param& param, const std::string& keyword) {
  nlohmann::json view = {
      {"keyword", keyword},
      {"type_literal", cEscaped(param.type)},
      {"writable", "0"},
      {"size", "0"},
      {"rank", "0"},
      {"scalar_enum", "0"},
      {"pointer", param.kind == ParamKind::Pointer},
      {"scalar", param.kind == ParamKind::Scalar},
      {"record", param.kind == ParamKind::Record || param.kind == ParamKind::Bytes},
      {"tensor_map", param.kind == ParamKind::TensorMap}};
  switch (param.kind) {
  case ParamKind::Pointer:
    view["kind_enum"] = "TLC_PY_POINTER";
    view["writable"] = param.pointer.pointeeConst ? "0" : "1";
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
    std::string keyword = param.name;
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

void addPythonView(const Module& module, nlohmann::json& view) {
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
      entry["py"] = paramView(kernel.params[p], keywords[p]);
    }
    kernelView["py_params"] = std::move(pyParams);
    kernelView["py_has_params"] = !kernel.params.empty();
    std::string doc = docText(kernel, keywords);
    kernelView["python"] = {
        {"slots", std::to_string(std::max<size_t>(1, kernel.params.size()))},
        {"doc_literal", cEscaped(textSignature(kernel, keywords) + "\n--\n\n" + doc)},
        {"stub_doc", pythonDocEscaped(doc)},
    };
  }
}

} // namespace tlc
