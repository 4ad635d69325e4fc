// Launcher names and C identifiers, on synthetic kernels (no parsing needed).
#include "checks/LauncherNames.h"
#include "checks/SourceDiagnostics.h"
#include "support/Identifiers.h"

#include <catch2/catch.hpp>

using namespace tlc;

namespace {

Kernel kernel(const std::string& name, std::vector<std::string> paramTypes,
              std::vector<std::string> templateArgs = {}, const std::string& explicitName = "") {
  Kernel k;
  k.name = name;
  k.displayName = name;
  k.explicitName = explicitName;
  for (const std::string& value : templateArgs)
    k.templateArgs.push_back({TemplateArgumentKind::Type, value});
  unsigned index = 0;
  for (const std::string& type : paramTypes) {
    Param p;
    p.index = index++;
    p.canonicalType = type;
    k.params.push_back(p);
  }
  return k;
}

std::vector<std::string> launchers(std::vector<Kernel> kernels, bool& ok, std::string& messages,
                                   const std::string& moduleName = "") {
  llvm::raw_string_ostream os(messages);
  SourceDiagnostics diagnostics(os, false);
  ok = assignLauncherNames(kernels, diagnostics, moduleName);
  std::vector<std::string> names;
  for (const Kernel& k : kernels)
    names.push_back(k.launcher);
  return names;
}

} // namespace

TEST_CASE("C identifiers from C++ spellings", "[naming]") {
  CHECK(identifierFrom("nn::act::gelu") == "nn_act_gelu");
  CHECK(identifierFrom("copy_vec<float, 4>") == "copy_vec_float_4");
  CHECK(identifierFrom("const float *") == "const_float_ptr");
  CHECK(identifierFrom("-1") == "m1");
  CHECK(identifierFrom("unsigned int") == "unsigned_int");
  CHECK(identifierFrom("Vec<Vec<int, 2>, 3>") == "Vec_Vec_int_2_3");
  CHECK(identifierFrom("a::b__c") == "a_b_c");
  CHECK(identifierFrom("__half *") == "half_ptr");
}

TEST_CASE("launcher names: plain, namespaced, template, overloads, explicit", "[naming]") {
  bool ok = false;
  std::string messages;
  auto names =
      launchers({kernel("saxpy", {"float"}), kernel("nn::act::gelu", {"float *"}),
                 kernel("copy_vec", {"float *"}, {"float", "4"}),
                 kernel("scale", {"float *", "float"}), kernel("scale", {"double *", "double"}),
                 kernel("noargs", {}, {}, ""), kernel("k", {"int"}, {}, "custom")},
                ok, messages);
  CHECK(ok);
  CHECK(names == std::vector<std::string>{"saxpy", "nn_act_gelu", "copy_vec_float_4",
                                          "scale_float_ptr_float", "scale_double_ptr_double",
                                          "noargs", "custom"});
}

TEST_CASE("a namespace named as the module is not repeated in launcher names", "[naming]") {
  bool ok = false;
  std::string messages;
  // Module mylib: mylib::axpy is mylib_axpy in the API (the prefix), not mylib_mylib_axpy; only
  // the outermost namespace goes, and only that exact one.
  auto names = launchers(
      {kernel("mylib::axpy", {"float *", "float"}), kernel("mylib::axpy", {"double *", "double"}),
       kernel("mylib::detail::fill", {"int *"}), kernel("other::mylib::copy", {"int *"}),
       kernel("mylibx::scale", {"int"}), kernel("mylib::tiled", {"float *"}, {"float", "4"})},
      ok, messages, "mylib");
  CHECK(ok);
  CHECK(names == std::vector<std::string>{"axpy_float_ptr_float", "axpy_double_ptr_double",
                                          "detail_fill", "other_mylib_copy", "mylibx_scale",
                                          "tiled_float_4"});
  // Without a module name (tlc inspect, check) the namespace stays.
  CHECK(launchers({kernel("mylib::axpy", {"float *"})}, ok, messages) ==
        std::vector<std::string>{"mylib_axpy"});
  // The kernel that drops its namespace may then collide with one outside it: reported.
  launchers({kernel("mylib::axpy", {"float *"}), kernel("axpy", {"float *"})}, ok, messages,
            "mylib");
  CHECK(!ok);
}

TEST_CASE("overload suffixes do not depend on declaration order", "[naming]") {
  bool ok = false;
  std::string messages;
  auto forward =
      launchers({kernel("f", {"int *"}), kernel("f", {"const int *__restrict"})}, ok, messages);
  auto backward =
      launchers({kernel("f", {"const int *__restrict"}), kernel("f", {"int *"})}, ok, messages);
  CHECK(forward[0] == backward[1]);
  CHECK(forward[1] == backward[0]);
  CHECK(forward[1] == "f_const_int_ptr");
}

TEST_CASE("remaining collisions are errors naming both kernels, no name is reserved", "[naming]") {
  bool ok = true;
  std::string messages;
  Kernel first = kernel("first", {"int *"}, {}, "same");
  first.displayName = "first";
  Kernel second = kernel("second", {"float *"}, {}, "same");
  second.displayName = "second";
  launchers({first, second, kernel("load", {"int *"})}, ok, messages);
  CHECK_FALSE(ok);
  CHECK_THAT(messages, Catch::Contains("launcher name 'same' of kernel 'second' collides with "
                                       "kernel 'first'"));
  CHECK_THAT(messages, !Catch::Contains("'load'"));
}

TEST_CASE("static kernels of several inputs sharing a name say which input they are from",
          "[naming]") {
  bool ok = true;
  std::string messages;
  Kernel a = kernel("k", {"int *"});
  a.internalLinkage = true;
  a.translationUnits = {"dir/a.cu"};
  Kernel b = kernel("k", {"int *"});
  b.internalLinkage = true;
  b.translationUnits = {"other/b.cu"};
  Kernel external = kernel("solo", {"int *"});
  external.translationUnits = {"dir/a.cu"};
  std::vector<std::string> named = launchers({a, b, external}, ok, messages);
  INFO(messages);
  CHECK(ok);
  CHECK(named == std::vector<std::string>{"a_k", "b_k", "solo"});
}

TEST_CASE("launcher names too long to type become the kernel's name and a stable hash",
          "[naming]") {
  bool ok = false;
  std::string messages;
  // A template library's instance: `device_kernel<Gemm<...>>` spells a C identifier of
  // thousands of characters.
  std::vector<std::string> args = {
      "cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GemmShape<128, 128, 64>, "
      "cutlass::epilogue::collective::DefaultEpilogue<float, cutlass::layout::RowMajor>>"};
  Kernel longer = kernel("cutlass::device_kernel", {"Params"}, args);
  Kernel other = kernel("cutlass::device_kernel", {"Params"}, {args[0] + " "});
  other.templateArgs[0].value = args[0] + ", float";
  Kernel exactly = kernel(std::string(kMaxLauncherName, 'k'), {"int"});
  Kernel chosen = kernel("k2", {"int"}, {}, std::string(80, 'x'));
  Kernel chosenTemplate = kernel("k3", {"int"}, args, "gemm");
  auto names = launchers({longer, other, exactly, chosen, chosenTemplate}, ok, messages);
  INFO(messages);
  CHECK(ok);
  CHECK_THAT(names[0], Catch::Matches("device_kernel_[0-9a-f]{8}"));
  CHECK_THAT(names[1], Catch::Matches("device_kernel_[0-9a-f]{8}"));
  CHECK(names[0] != names[1]);
  CHECK(names[2] == std::string(kMaxLauncherName, 'k')); // at the limit: kept
  CHECK(names[3] == std::string(80, 'x'));               // TLC_NAME: the user's choice
  // The same kernel gets the same name in every build.
  CHECK(launchers({longer}, ok, messages)[0] == names[0]);
}

TEST_CASE("a kernel name no C++ compiler makes gives its launcher none of its words", "[naming]") {
  bool ok = false;
  std::string messages;
  std::string forged = "x\"}};int tlc_injected_by_image;constexpr KernelInfo q[]={{\"";
  auto names = launchers({kernel(forged, {"int *"}), kernel("a\\b", {}), kernel("tab\there", {}),
                          kernel("void k<{lambda(int)#1}>", {})},
                         ok, messages);
  REQUIRE(ok);
  REQUIRE(names.size() == 4);
  CHECK(llvm::StringRef(names[0]).starts_with("kernel_"));
  CHECK(names[0].size() == std::string("kernel_").size() + 8);
  CHECK(names[0].find("injected") == std::string::npos);
  CHECK(llvm::StringRef(names[1]).starts_with("kernel_"));
  CHECK(llvm::StringRef(names[2]).starts_with("kernel_"));
  CHECK(names[1] != names[2]);
  // A demangled lambda's braces and '#' are C++'s own: that name stays readable.
  CHECK(names[3] == "void_k_lambda_int_1");
}
