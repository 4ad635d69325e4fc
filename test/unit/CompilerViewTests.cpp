// The parse sees the compiler nvcc's front end is (frontend/CompilerView.h): the user's code and
// its libraries get the host compiler's identity macros, as nvcc runs it; Clang's own headers,
// the toolkit's and the host's libraries keep Clang's.
#include "TestSupport.h"

#include "frontend/CompilerView.h"
#include "frontend/Frontend.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

CudaToolkit toolkitInUse() {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  return *toolkit;
}

Analysis analyzeWith(const std::string& input, const std::vector<std::string>& clangArgs) {
  FrontendOptions options = frontendFor("sm_90a");
  options.extraArgs = clangArgs;
  auto analysis = analyze({fixture("parity/" + input)}, options, toolkitInUse());
  REQUIRE_EXPECTED(analysis);
  return std::move(*analysis);
}

// The macros that name a compiler, its version or its target, written out here rather than
// taken from compilerIdentityMacros(): the comparison must fail if that list loses one.
const std::vector<std::string> compilerNames = {"__clang__",
                                                "__clang_major__",
                                                "__clang_minor__",
                                                "__clang_patchlevel__",
                                                "__clang_version__",
                                                "__clang_literal_encoding__",
                                                "__clang_wide_literal_encoding__",
                                                "__llvm__",
                                                "__CUDA__",
                                                "__NVPTX__",
                                                "__PTX__",
                                                "__GNUC__",
                                                "__GNUC_MINOR__",
                                                "__GNUC_PATCHLEVEL__",
                                                "__GNUG__",
                                                "__VERSION__",
                                                "__GXX_ABI_VERSION",
                                                "__GNUC_EXECUTION_CHARSET_NAME",
                                                "__GNUC_WIDE_EXECUTION_CHARSET_NAME"};

// `nvcc -E -Xcompiler -dM` of a CUDA file: those macros as nvcc's front end has them at its end.
MacroValues nvccCompilerMacros(const std::string& input) {
  auto result =
      runCommand({TLC_NVCC, "-E", "-Xcompiler", "-dM", "-arch=sm_90a", "-x", "cu", input});
  REQUIRE_EXPECTED(result);
  INFO(result->output);
  REQUIRE(result->succeeded());
  MacroValues values;
  llvm::SmallVector<llvm::StringRef, 0> lines;
  llvm::StringRef(result->output).split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!line.consume_front("#define "))
      continue;
    auto [name, value] = line.split(' ');
    if (std::find(compilerNames.begin(), compilerNames.end(), name) != compilerNames.end())
      values[name.str()] = value.str();
  }
  return values;
}

// One `NAME VALUE` line per macro, for readable failures.
std::string listed(const MacroValues& values) {
  std::string text;
  for (const auto& [name, value] : values)
    text += name + " " + value + "\n";
  return text;
}

} // namespace

TEST_CASE("a kernel a library hides from Clang is found", "[compiler-view]") {
  // The library by -I and by -isystem: both are the user's, whatever Clang calls a system header.
  for (const char* flag : {"-I", "-isystem"}) {
    INFO(flag);
    Analysis analysis = analyzeWith("clang_hidden_kernel.cu", {flag, fixture("parity/compiler")});
    REQUIRE(analysis.module.kernels.size() == 1);
    CHECK(analysis.module.kernels[0].symbol == "_Z9gemm_sm90PfPKfS1_i");
  }
}

TEST_CASE("a struct laid out under __clang__ has nvcc's layout", "[compiler-view]") {
  Analysis analysis = analyzeWith("clang_struct_layout.cu", {});
  const Kernel& consume = kernelNamed(analysis.module, "consume");
  REQUIRE(consume.params.size() == 2);
  CHECK(consume.params[0].kind == ParamKind::Record);
  CHECK(consume.params[0].size == 16);
  CHECK(consume.params[0].align == 8);
  REQUIRE(analysis.module.records.size() == 1);
  const Record& packet = analysis.module.records[0];
  CHECK(packet.size == 16);
  REQUIRE(packet.fields.size() == 3);
  CHECK(packet.fields[0].name == "tag");
  CHECK(packet.fields[0].ctype.base == "long long");
  CHECK(packet.fields[1].offset == 8);
  CHECK(packet.fields[2].name == "count");
  CHECK(packet.fields[2].offset == 12);
}

TEST_CASE("the user's code sees nvcc's compiler-identity macros", "[compiler-view]") {
  if (!llvm::sys::fs::can_execute(TLC_NVCC)) {
    WARN("SKIPPED: no nvcc to compare with ('" TLC_NVCC "')");
    return;
  }
  std::string input = fixture("parity/compiler_identity.cu");
  MacroValues nvcc = nvccCompilerMacros(input);
  // The comparison means something only if nvcc says which compiler it is.
  REQUIRE((nvcc.count("__GNUC__") || nvcc.count("__clang__")));
  CHECK(!nvcc.count("__CUDA__"));

  CudaToolkit toolkit = toolkitInUse();
  std::vector<std::string> names = compilerNames;
  names.push_back("_CCCL_COMPILER_CLANG");
  auto parsed = macrosInUserCode(input, frontendFor("sm_90a"), toolkit, names);
  REQUIRE_EXPECTED(parsed);
  // CCCL, a toolkit header, configured itself for Clang, which it needs to parse...
  CHECK_THAT((*parsed)["_CCCL_COMPILER_CLANG"], Contains("__clang_major__"));
  parsed->erase("_CCCL_COMPILER_CLANG");
  // ...and the user's code after it has exactly nvcc's identity macros.
  CHECK(listed(*parsed) == listed(nvcc));
}

TEST_CASE("nvcc's view is that of the host compiler nvcc runs", "[compiler-view]") {
  CudaToolkit toolkit = toolkitInUse();
  auto view = nvccCompilerView(toolkit, {});
  REQUIRE_EXPECTED(view);
  CHECK(view->count("__GNUC__"));
  CHECK(!view->count("__CUDA__"));
  // With -ccbin naming Clang, nvcc's front end says it is Clang (but still not CUDA's Clang).
  auto clang = findProgram("clang++-22");
  if (!clang) {
    WARN("SKIPPED -ccbin clang++-22: " << summarize(clang.takeError()).message);
    return;
  }
  auto clangView = nvccCompilerView(toolkit, {"-O2", "-ccbin", *clang});
  REQUIRE_EXPECTED(clangView);
  CHECK((*clangView)["__clang_major__"] == "22");
  CHECK(!clangView->count("__CUDA__"));
}

TEST_CASE("each file's view is decided by the longest folder holding it", "[compiler-view]") {
  ViewFolders folders;
  folders.clang = {"/opt/cuda/include", "/usr/lib/llvm/include"};
  folders.system = {"/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/c++/12"};
  folders.searched = {"/usr/include", "/usr/include/eigen3", "/opt/cuda/include/cccl",
                      "/home/me/cutlass/include"};
  CHECK(viewOf("/usr/include/stdio.h", folders) == CompilerView::Clang);
  CHECK(viewOf("/usr/include/x86_64-linux-gnu/bits/types.h", folders) == CompilerView::Clang);
  CHECK(viewOf("/usr/include/c++/12/vector", folders) == CompilerView::Clang);
  CHECK(viewOf("/usr/lib/llvm/include/cuda_wrappers/cmath", folders) == CompilerView::Clang);
  // The toolkit's headers, even through a longer search folder of its own.
  CHECK(viewOf("/opt/cuda/include/cuda_runtime.h", folders) == CompilerView::Clang);
  CHECK(viewOf("/opt/cuda/include/cccl/cuda/std/version", folders) == CompilerView::Clang);
  // A library's own search folder inside the C library's.
  CHECK(viewOf("/usr/include/eigen3/Eigen/Core", folders) == CompilerView::Nvcc);
  CHECK(viewOf("/home/me/cutlass/include/cutlass/arch/config.h", folders) == CompilerView::Nvcc);
  // In no folder (a header beside an input, or where a link led): the includer's view.
  CHECK(!viewOf("/home/me/kernels/k.cuh", folders));
  // Folders are whole names: /usr/include2 is not in /usr/include.
  CHECK(!viewOf("/usr/include2/x.h", folders));
}

TEST_CASE("identity macros are read from a -dM listing", "[compiler-view]") {
  MacroValues values = identityMacrosIn("#define __STDC__ 1\n"
                                        "#define __GNUC__ 12\n"
                                        "#define __VERSION__ \"12.2.0\"\r\n"
                                        "#define __clang__ 1\n"
                                        "#define __GNUC_MINOR__ 2\n");
  CHECK(values == MacroValues{{"__GNUC__", "12"},
                              {"__VERSION__", "\"12.2.0\""},
                              {"__clang__", "1"},
                              {"__GNUC_MINOR__", "2"}});
}
