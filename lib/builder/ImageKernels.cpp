// Kernels from the image's entries: names and types from the demangled symbol, sizes from the
// image.
#include "builder/ImageKernels.h"

#include "builder/SymbolResolution.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/MathExtras.h"

#include <cstdlib>
#include <optional>

namespace tlc {

namespace {

// The parts of a demangled function symbol a kernel needs, nvcc's marks removed.
struct DemangledKernel {
  std::string name;                // "ns::k"
  std::string displayName;         // "ns::k<float, 4>"
  std::vector<std::string> params; // "float*", "Params"
  bool demangled = false;          // false: extern "C", nothing but the name
};

std::string takeText(char* text) {
  std::string out = text ? text : "";
  std::free(text);
  return withoutInternalScopes(out);
}

// `text` split at the commas outside brackets of any kind.
std::vector<std::string> splitTopLevel(llvm::StringRef text) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '<' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == '>' || c == ']' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(text.slice(start, i).trim().str());
      start = i + 1;
    }
  }
  if (!text.trim().empty())
    parts.push_back(text.drop_front(start).trim().str());
  return parts;
}

DemangledKernel demangleKernel(const std::string& symbol) {
  DemangledKernel out;
  std::string plain = withoutStaticPrefix(symbol).str();
  llvm::ItaniumPartialDemangler demangler;
  if (demangler.partialDemangle(plain.c_str()) || !demangler.isFunction()) {
    out.name = out.displayName = plain;
    return out;
  }
  out.demangled = true;
  size_t size = 0;
  std::string context = takeText(demangler.getFunctionDeclContextName(nullptr, &size));
  std::string base = takeText(demangler.getFunctionBaseName(nullptr, &size));
  out.name = context.empty() ? base : context + "::" + base;
  out.displayName = takeText(demangler.getFunctionName(nullptr, &size));
  std::string list = takeText(demangler.getFunctionParameters(nullptr, &size));
  llvm::StringRef params = list;
  params.consume_front("(");
  params.consume_back(")");
  out.params = splitTopLevel(params);
  return out;
}

// The template arguments ending a demangled name ("k<float, 4>" -> "float", "4"), for the
// launcher's name.
std::vector<TemplateArgument> templateArgumentsOf(llvm::StringRef displayName) {
  std::vector<TemplateArgument> args;
  if (!displayName.consume_back(">"))
    return args;
  int depth = 0;
  size_t open = llvm::StringRef::npos;
  for (size_t i = displayName.size(); i-- > 0;) {
    char c = displayName[i];
    if (c == '>' || c == ')')
      ++depth;
    else if ((c == '<' || c == '(') && depth > 0)
      --depth;
    else if (c == '<') {
      open = i;
      break;
    }
  }
  if (open == llvm::StringRef::npos)
    return args;
  for (const std::string& value : splitTopLevel(displayName.drop_front(open + 1))) {
    bool isValue =
        !value.empty() && (llvm::isDigit(value[0]) || value[0] == '-' || value[0] == '&' ||
                           value[0] == '(' || value == "true" || value == "false");
    args.push_back({isValue ? TemplateArgumentKind::Value : TemplateArgumentKind::Type, value});
  }
  return args;
}

struct BuiltinScalar {
  const char* spelling; // as the demangler prints it, and as C spells it
  ScalarType type;
  uint64_t size;
};

std::optional<BuiltinScalar> builtinScalar(llvm::StringRef spelling) {
  static const BuiltinScalar scalars[] = {
      {"bool", ScalarType::Bool, 1},      {"char", ScalarType::I8, 1},
      {"signed char", ScalarType::I8, 1}, {"unsigned char", ScalarType::U8, 1},
      {"short", ScalarType::I16, 2},      {"unsigned short", ScalarType::U16, 2},
      {"int", ScalarType::I32, 4},        {"unsigned int", ScalarType::U32, 4},
      {"long", ScalarType::I64, 8},       {"unsigned long", ScalarType::U64, 8},
      {"long long", ScalarType::I64, 8},  {"unsigned long long", ScalarType::U64, 8},
      {"float", ScalarType::F32, 4},      {"double", ScalarType::F64, 8},
  };
  for (const BuiltinScalar& scalar : scalars)
    if (spelling == scalar.spelling)
      return scalar;
  return std::nullopt;
}

// A plain pointer: `T*`, `T const*`, `const T*`, `T**`, where T is a name (no function, array or
// member pointer). The pointee's C type is T for a builtin scalar or void, else void.
bool typePointer(llvm::StringRef type, Param& param) {
  unsigned levels = 0;
  while (type.consume_back("*")) {
    ++levels;
    type = type.rtrim();
  }
  bool isConst = type.consume_front("const ");
  isConst |= type.consume_back(" const");
  if (!levels || type.empty() || type.find_first_of("*&()[]") != llvm::StringRef::npos)
    return false;
  param.kind = ParamKind::Pointer;
  param.pointer.pointee = type.str();
  param.pointer.pointeeConst = isConst;
  bool builtin = builtinScalar(type).has_value();
  param.ctype.baseKind = builtin ? CType::Base::Builtin : CType::Base::Void;
  param.ctype.base = builtin ? type.str() : "void";
  param.ctype.baseConst = isConst;
  param.ctype.pointers.assign(levels, CType::Pointer{});
  return true;
}

// Parameter `index` of an image kernel: its demangled type, typed where it is a plain pointer or
// a builtin scalar of the image's size, else its bytes.
Param imageParam(unsigned index, const ImageParam& layout, uint64_t base, const std::string& type) {
  Param param;
  param.index = index;
  param.name = "arg" + std::to_string(index);
  param.type = param.canonicalType = type.empty() ? "(unknown type)" : type;
  param.size = layout.size;
  param.align = layout.align;
  if (layout.size == 8 && typePointer(type, param)) {
    param.align = 8;
    return param;
  }
  if (std::optional<BuiltinScalar> scalar = builtinScalar(type);
      scalar && scalar->size == layout.size) {
    param.kind = ParamKind::Scalar;
    param.scalar.type = scalar->type;
    param.ctype.baseKind = CType::Base::Builtin;
    param.ctype.base = scalar->spelling;
    param.align = scalar->size;
    return param;
  }
  param.kind = ParamKind::Bytes;
  param.align = bytesAlignment(layout.size, base + layout.offset, layout.align);
  return param;
}

} // namespace

uint64_t bytesAlignment(uint64_t size, uint64_t offset, uint64_t align) {
  if (!align) {
    align = 16;
    while (offset % align)
      align /= 2;
  }
  while (align > 1 && size % align)
    align /= 2;
  return std::max<uint64_t>(align, 1);
}

std::string qualifiedNameOf(const std::string& symbol) {
  return demangleKernel(symbol).name;
}

Kernel kernelFromImage(const ImageEntry& entry, const std::string& input,
                       const Kernel* declaration) {
  DemangledKernel demangled = demangleKernel(entry.symbol);
  Kernel kernel;
  kernel.name = demangled.name;
  kernel.displayName = demangled.displayName;
  kernel.symbol = entry.symbol;
  kernel.externC = !demangled.demangled;
  kernel.weak = entry.weak;
  kernel.internalLinkage = entry.local;
  kernel.fromImage = true;
  kernel.templateArgs = templateArgumentsOf(demangled.displayName);
  kernel.translationUnits.push_back(input);
  if (declaration)
    kernel.location = declaration->location;
  bool typesKnown = demangled.params.size() == entry.params.size();
  bool namesKnown = declaration && declaration->params.size() == entry.params.size();
  for (unsigned i = 0; i < entry.params.size(); ++i) {
    Param param =
        imageParam(i, entry.params[i], entry.paramBase, typesKnown ? demangled.params[i] : "");
    if (namesKnown) {
      param.name = declaration->params[i].name;
      param.location = declaration->params[i].location;
    }
    kernel.params.push_back(std::move(param));
  }
  return kernel;
}

} // namespace tlc
