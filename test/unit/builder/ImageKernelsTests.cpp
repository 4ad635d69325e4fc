// Kernels made from an image entry: names and types from the demangled symbol, sizes from the
// image; nvcc's marks removed from the names.
#include "TestSupport.h"

#include "builder/ImageKernels.h"
#include "builder/SymbolResolution.h"

#include <catch2/catch.hpp>

using namespace tlc;

namespace {

ImageEntry entryOf(const std::string& symbol, std::vector<ImageParam> params) {
  ImageEntry entry;
  entry.symbol = symbol;
  entry.params = std::move(params);
  entry.paramsKnown = true;
  return entry;
}

} // namespace

TEST_CASE("plain pointers and builtin scalars of the image's size are typed, the rest bytes",
          "[image]") {
  // ns::k<float, 4>(float const**, unsigned int, int, Owner, double*)
  ImageEntry entry = entryOf("_ZN2ns1kIfLi4EEEvPPKfjiNS_5OwnerEPd",
                             {{0, 8, 0}, {8, 4, 0}, {16, 8, 0}, {24, 24, 0}, {48, 8, 0}});
  Kernel kernel = kernelFromImage(entry, "k.cu", nullptr);
  CHECK(kernel.fromImage);
  CHECK(kernel.name == "ns::k");
  CHECK(kernel.displayName == "ns::k<float, 4>");
  REQUIRE(kernel.templateArgs.size() == 2);
  CHECK(kernel.templateArgs[0].kind == TemplateArgumentKind::Type);
  CHECK(kernel.templateArgs[1].value == "4");
  CHECK(!kernel.location.valid());
  REQUIRE(kernel.params.size() == 5);
  const Param& pointer = kernel.params[0];
  CHECK(pointer.kind == ParamKind::Pointer);
  CHECK(pointer.name == "arg0");
  CHECK(pointer.ctype.base == "float");
  CHECK(pointer.ctype.baseConst);
  CHECK(pointer.ctype.pointers.size() == 2);
  CHECK(kernel.params[1].kind == ParamKind::Scalar);
  CHECK(kernel.params[1].scalar.type == ScalarType::U32);
  // "int" in 8 bytes is not an int: the image's size wins, the parameter is bytes.
  CHECK(kernel.params[2].kind == ParamKind::Bytes);
  CHECK(kernel.params[3].kind == ParamKind::Bytes);
  CHECK(kernel.params[3].type == "ns::Owner");
  CHECK(kernel.params[3].size == 24);
  CHECK(kernel.params[3].align == 8); // offset 24 and size 24: 8 divides both
  CHECK(kernel.params[4].kind == ParamKind::Pointer);
}

TEST_CASE("an extern \"C\" kernel from the image is its bytes, named by position", "[image]") {
  Kernel kernel = kernelFromImage(entryOf("plain", {{0, 8, 0}, {8, 4, 0}}), "k.cu", nullptr);
  CHECK(kernel.externC);
  CHECK(kernel.name == "plain");
  REQUIRE(kernel.params.size() == 2);
  CHECK(kernel.params[0].kind == ParamKind::Bytes);
  CHECK(kernel.params[0].name == "arg0");
  CHECK(kernel.params[1].size == 4);
  CHECK(kernel.params[1].align == 4);
}

TEST_CASE("a declaration gives an image kernel its location and parameter names", "[image]") {
  Kernel declaration;
  declaration.location = {"k.cu", 7, 17};
  Param out;
  out.name = "out";
  out.location = {"k.cu", 7, 30};
  declaration.params.push_back(out);
  Kernel kernel = kernelFromImage(entryOf("_Z4fillPi", {{0, 8, 0}}), "k.cu", &declaration);
  CHECK(kernel.location.line == 7);
  CHECK(kernel.params[0].name == "out");
  CHECK(kernel.params[0].location.column == 30);
}

TEST_CASE("nvcc's marks on internal-linkage names come off", "[image]") {
  CHECK(withoutInternalScopes("void fk<3, &_INTERNAL_482506a5_7_anon_cu_d9d281f0_31199::dq(int)>"
                              "(int*)") == "void fk<3, &dq(int)>(int*)");
  CHECK(withoutInternalScopes("a::_INTERNAL_x") == "a::_INTERNAL_x");     // no scope after it
  CHECK(withoutInternalScopes("my_INTERNAL_x::y") == "my_INTERNAL_x::y"); // part of a name
  // Clang's and nvcc's symbols of k<&dq>, dq static: one identity.
  CHECK(kernelIdentity("_Z2fkILi3EXadL_ZL2dqiEEEvPi") ==
        kernelIdentity("__nv_static_34__482506a5_7_anon_cu_d9d281f0_31767__Z2fkILi3EXadL_ZN43_"
                       "INTERNAL_482506a5_7_anon_cu_d9d281f0_317672dqEiEEEvPi"));
  CHECK(qualifiedNameOf("_ZN45_GLOBAL__N__482506a5_7_anon_cu_d9d281f0_311992tkEv") ==
        "(anonymous namespace)::tk");
}

TEST_CASE("a byte struct's alignment divides its size", "[image]") {
  CHECK(bytesAlignment(24, 0, 16) == 8); // PTX said .align 16 for 24 bytes
  CHECK(bytesAlignment(16, 0x210, 0) == 16);
  CHECK(bytesAlignment(16, 0x218, 0) == 8);
  CHECK(bytesAlignment(5, 0x211, 0) == 1);
  CHECK(bytesAlignment(128, 0x280, 0) == 16); // cubins do not say more than 16
}
