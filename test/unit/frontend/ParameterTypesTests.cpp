// ParameterTypes::classify, one kind of parameter at a time: every kind it types, passes as bytes
// or refuses, from a .cu snippet parsed in memory (device side, no CUDA headers: the snippet
// declares what it uses, as the toolkit's headers would).
#include "frontend/ParameterTypes.h"
#include "toolchain/Toolchain.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

using namespace tlc;
using Outcome = ParameterTypes::Outcome;

namespace {

// What the toolkit's headers would declare, as far as classify looks: it knows the 16-bit
// floats and CUtensorMap by their names at global scope.
const char* kPrelude = R"cu(
#define __global__ __attribute__((global))
#define __grid_constant__ __attribute__((grid_constant))
struct __half { unsigned short x; __half() = default; __half(const __half& o) : x(o.x) {} };
struct __nv_bfloat16 { unsigned short x; __nv_bfloat16(const __nv_bfloat16& o) : x(o.x) {} };
struct __half2 { __half x, y; };
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef struct CUtensorMap_st { alignas(64) unsigned long long opaque[16]; } CUtensorMap;
)cu";

struct Classified {
  Outcome outcome;
  Param param;
  std::string why;
};

// Parses `code` (after the prelude) for the device and classifies every parameter of the kernel
// `kernel` declares; the records mirrored on the way in `records`.
std::vector<Classified> classifyKernel(const std::string& code, const std::string& kernel,
                                       std::vector<Record>* records = nullptr) {
  std::unique_ptr<clang::ASTUnit> unit = clang::tooling::buildASTFromCodeWithArgs(
      std::string(kPrelude) + code,
      {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
       "-std=c++17", "-resource-dir", clangResourceDir(), "-Wno-everything"},
      "snippet.cu");
  REQUIRE(unit);
  clang::ASTContext& context = unit->getASTContext();
  const clang::FunctionDecl* found = nullptr;
  for (const clang::Decl* decl : context.getTranslationUnitDecl()->decls())
    if (const auto* function = llvm::dyn_cast<clang::FunctionDecl>(decl))
      if (function->getName() == kernel)
        found = function;
  REQUIRE(found);
  std::vector<Record> mirrored;
  ParameterTypes types(context, records ? *records : mirrored);
  std::vector<Classified> out;
  for (unsigned i = 0; i < found->getNumParams(); ++i) {
    Classified one{Outcome::Typed, {}, {}};
    one.outcome = types.classify(*found->getParamDecl(i), i, one.param, one.why);
    out.push_back(std::move(one));
  }
  return out;
}

Classified classifyOne(const std::string& code) {
  std::vector<Classified> all = classifyKernel(code, "k");
  REQUIRE(all.size() == 1);
  return all.front();
}

} // namespace

TEST_CASE("a pointer parameter is typed with its pointee, const and restrict", "[parameters]") {
  auto params = classifyKernel(
      "__global__ void k(float* out, const float* __restrict__ in, int** table, void* raw);", "k");
  REQUIRE(params.size() == 4);
  for (const Classified& p : params) {
    CHECK(p.outcome == Outcome::Typed);
    CHECK(p.param.kind == ParamKind::Pointer);
  }
  CHECK(params[0].param.name == "out");
  CHECK(params[0].param.pointer.pointee == "float");
  CHECK_FALSE(params[0].param.pointer.pointeeConst);
  CHECK(params[1].param.pointer.pointeeConst);
  CHECK(params[1].param.pointer.isRestrict);
  CHECK_FALSE(params[0].param.pointer.isRestrict);
  CHECK(params[2].param.ctype.pointers.size() == 2);
  CHECK(params[3].param.pointer.pointee == "void");
  CHECK(params[0].param.size == 8);
}

TEST_CASE("every supported scalar is typed as its width and signedness", "[parameters]") {
  auto params = classifyKernel("__global__ void k(bool b, signed char i8, unsigned char u8, "
                               "short i16, unsigned short u16, int i32, unsigned u32, "
                               "long long i64, unsigned long long u64, float f32, double f64);",
                               "k");
  std::vector<ScalarType> expected = {ScalarType::Bool, ScalarType::I8,  ScalarType::U8,
                                      ScalarType::I16,  ScalarType::U16, ScalarType::I32,
                                      ScalarType::U32,  ScalarType::I64, ScalarType::U64,
                                      ScalarType::F32,  ScalarType::F64};
  REQUIRE(params.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("parameter " << params[i].param.name);
    CHECK(params[i].outcome == Outcome::Typed);
    CHECK(params[i].param.kind == ParamKind::Scalar);
    CHECK(params[i].param.scalar.type == expected[i]);
  }
}

TEST_CASE("the 16-bit floats are scalars though not trivially copyable", "[parameters]") {
  auto params = classifyKernel(
      "__global__ void k(__half h, __nv_bfloat16 b, __half2 h2, __nv_bfloat162 b2);", "k");
  std::vector<ScalarType> expected = {ScalarType::F16, ScalarType::BF16, ScalarType::F16x2,
                                      ScalarType::BF16x2};
  REQUIRE(params.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(params[i].outcome == Outcome::Typed);
    CHECK(params[i].param.kind == ParamKind::Scalar);
    CHECK(params[i].param.scalar.type == expected[i]);
  }
}

TEST_CASE("an enum is a scalar of its underlying type, named", "[parameters]") {
  auto p = classifyOne("namespace ns { enum class Mode : unsigned short { A, B }; }\n"
                       "__global__ void k(ns::Mode mode);");
  CHECK(p.outcome == Outcome::Typed);
  CHECK(p.param.kind == ParamKind::Scalar);
  CHECK(p.param.scalar.type == ScalarType::U16);
  CHECK(p.param.scalar.enumName == "ns::Mode");
}

TEST_CASE("a trivially copyable struct is a record, mirrored for C", "[parameters]") {
  std::vector<Record> records;
  auto params = classifyKernel("struct Inner { int a; };\n"
                               "struct Pair { Inner first; float second[3]; };\n"
                               "__global__ void k(Pair pair);",
                               "k", &records);
  REQUIRE(params.size() == 1);
  CHECK(params[0].outcome == Outcome::Typed);
  CHECK(params[0].param.kind == ParamKind::Record);
  CHECK(params[0].param.size == 16);
  CHECK_FALSE(params[0].param.record.cName.empty());
  // Nested records first: Inner is mirrored before Pair.
  REQUIRE(records.size() == 2);
  CHECK(records[0].name == "Inner");
  CHECK(records[1].name == "Pair");
}

TEST_CASE("an empty struct carries nothing: no C parameter", "[parameters]") {
  auto p = classifyOne("struct Tag {};\n__global__ void k(Tag tag);");
  CHECK(p.outcome == Outcome::Typed);
  CHECK(p.param.kind == ParamKind::Empty);
}

TEST_CASE("a CUtensorMap declared const __grid_constant__ is a tensor map", "[parameters]") {
  auto p = classifyOne("__global__ void k(const __grid_constant__ CUtensorMap map);");
  CHECK(p.outcome == Outcome::Typed);
  CHECK(p.param.kind == ParamKind::TensorMap);
}

TEST_CASE("a CUtensorMap without const __grid_constant__ is refused, saying how to declare it",
          "[parameters]") {
  for (const char* declaration :
       {"const CUtensorMap map", "CUtensorMap map"}) { // not const: Clang refuses it first
    INFO(declaration);
    auto p = classifyOne(std::string("__global__ void k(") + declaration + ");");
    CHECK(p.outcome == Outcome::Refused);
    CHECK(p.why.find("'const __grid_constant__ CUtensorMap'") != std::string::npos);
  }
}

TEST_CASE("a parameter of incomplete type is refused", "[parameters]") {
  auto p = classifyOne("struct Opaque;\n__global__ void k(Opaque value);");
  CHECK(p.outcome == Outcome::Refused);
  CHECK(p.why == "the type is incomplete");
}

TEST_CASE("what C cannot spell is passed as its bytes, saying why", "[parameters]") {
  struct Case {
    const char* code;
    const char* why;
  };
  const Case cases[] = {
      {"__global__ void k(int& value);", "a reference"},
      {"struct S { int a; };\n__global__ void k(int S::* member);", "a member or block pointer"},
      {"struct Handle { Handle(const Handle&); int fd; };\n__global__ void k(Handle handle);",
       "not trivially copyable"},
      {"__global__ void k(unsigned __int128 wide);", "not a supported scalar"},
      {"enum Wide : unsigned __int128 { A };\n__global__ void k(Wide wide);", "an enum of"},
  };
  for (const Case& c : cases) {
    INFO(c.code);
    auto p = classifyOne(c.code);
    CHECK(p.outcome == Outcome::Untyped);
    CHECK(p.param.kind == ParamKind::Bytes);
    CHECK(p.why.find(c.why) != std::string::npos);
    CHECK(p.param.size > 0);
  }
}

TEST_CASE("a parameter without a name is named by its index", "[parameters]") {
  auto params = classifyKernel("__global__ void k(int, float* p, double);", "k");
  REQUIRE(params.size() == 3);
  CHECK(params[0].param.name == "arg0");
  CHECK(params[1].param.name == "p");
  CHECK(params[2].param.name == "arg2");
  CHECK(params[2].param.index == 2);
}
