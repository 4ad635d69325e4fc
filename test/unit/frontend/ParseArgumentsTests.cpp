// frontend/ParseArguments: the arguments after `--` are read with Clang's own option table; what
// only reads the user's code passes, what writes a file, loads code or passes arguments on is
// refused, naming it. And whatever reaches the parse, it writes nothing: the invocation's output
// fields are cleared even for options the screen never saw (here given to the library directly).
#include "frontend/ParseArguments.h"

#include "TestSupport.h"

#include "checks/Analysis.h"
#include "support/Files.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

using namespace tlc;
using namespace tlc::test;

namespace {

std::string refusal(const std::vector<std::string>& args) {
  llvm::Error error = screenParseArguments(args);
  return error ? summarize(std::move(error)).message : "";
}

} // namespace

TEST_CASE("arguments after -- that only read the code reach the parse", "[frontend]") {
  CHECK(refusal({"-DX=1",
                 "-UY",
                 "-Iinc",
                 "-isystem",
                 "sys",
                 "-idirafter",
                 "late",
                 "-iquote",
                 "q",
                 "-include",
                 "pre.h",
                 "-imacros",
                 "m.h",
                 "-Wall",
                 "-Wno-unused-variable",
                 "-Werror=return-type",
                 "-w",
                 "-pedantic",
                 "-fms-extensions",
                 "-fno-exceptions",
                 "-ftemplate-depth=900",
                 "-fconstexpr-steps=1000000",
                 "-nostdinc++"})
            .empty());
  CHECK(refusal({}).empty());
}

TEST_CASE("arguments after -- that write or load or pass on are refused and named", "[frontend]") {
  struct Refused {
    std::vector<std::string> args;
    const char* named;
    const char* why;
  } cases[] = {
      {{"-MD"}, "'-MD'", "write a file"},
      {{"-MMD"}, "'-MMD'", "write a file"},
      {{"-MF", "v.cu"}, "'-MF v.cu'", "write a file"},
      {{"-MJ", "db.json"}, "'-MJ db.json'", "write a file"},
      {{"--serialize-diagnostics", "v2.cu"}, "'--serialize-diagnostics v2.cu'", "write a file"},
      {{"-ftime-trace"}, "'-ftime-trace'", "write a file"},
      {{"-save-temps=obj"}, "'-save-temps=obj'", "write a file"},
      {{"-o", "out.o"}, "'-o out.o'", "write a file"},
      {{"-Xclang", "-load"}, "'-Xclang -load'", "loads code or passes arguments on"},
      {{"-fplugin=x.so"}, "'-fplugin=x.so'", "loads code"},
      {{"-fpass-plugin=x.so"}, "'-fpass-plugin=x.so'", "loads code"},
      {{"-mllvm", "-debug"}, "'-mllvm -debug'", "passes arguments on"},
      {{"-Wp,-MD,d.d"}, "'-Wp,-MD,d.d'", "passes arguments on"},
      {{"-Xpreprocessor", "-MD"}, "'-Xpreprocessor -MD'", "passes arguments on"},
      {{"-fmodules"}, "'-fmodules'", "modules"},
      {{"-include-pch", "x.pch"}, "'-include-pch x.pch'", "precompiled headers"},
      {{"-fcrash-diagnostics-dir=d"}, "'-fcrash-diagnostics-dir=d'", "write a file"},
      {{"--cuda-path=/x"}, "'--cuda-path=/x'", "tlc decides how the parse sees CUDA"},
      {{"-std=c++11"}, "'-std=c++11'", "tlc's --std"},
      {{"-c"}, "'-c'", "only preprocessor, include, warning and language options"},
      {{"-target", "x86_64"}, "'-target x86_64'", "only preprocessor"},
      {{"-fprofile-instr-generate=p"}, "'-fprofile-instr-generate=p'", "code generation"},
      {{"@args.rsp"}, "'@args.rsp'", "response file"},
      {{"extra.cu"}, "'extra.cu'", "it is no option"},
      {{"--frobnicate"}, "'--frobnicate'", "Clang knows no such option"},
  };
  for (const Refused& refused : cases) {
    INFO(refused.named);
    std::string message = refusal(refused.args);
    CHECK_THAT(message, Catch::Contains(std::string(refused.named) + " after '--'"));
    CHECK_THAT(message, Catch::Contains(refused.why));
  }
  CHECK_THAT(refusal({"-DX", "-I"}), Catch::Contains("'-I' after '--' needs a value"));
}

TEST_CASE("the parse writes nothing whatever its command line says", "[frontend]") {
  // Given to the library directly, past the command line's screening: the invocation's
  // dependency file, serialized diagnostics and time trace are cleared before it runs.
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  std::string dir = scratchDir("parse-writes-nothing");
  std::string source = dir + "/k.cu";
  REQUIRE(!writeFile(source, "__global__ void k(int* p) { *p = 1; }\n"));
  FrontendOptions options = frontendFor();
  options.extraArgs = {"-MD",
                       "-MF",
                       dir + "/deps.d",
                       "--serialize-diagnostics",
                       dir + "/diag.dia",
                       "-ftime-trace=" + dir + "/trace.json",
                       "-Xclang",
                       "-header-include-file",
                       "-Xclang",
                       dir + "/includes.txt"};
  auto analysis = analyze({source}, options, *toolkit);
  REQUIRE_EXPECTED(analysis);
  CHECK(analysis->module.kernels.size() == 1);
  for (const char* name : {"deps.d", "diag.dia", "trace.json", "includes.txt"}) {
    INFO(name);
    CHECK_FALSE(llvm::sys::fs::exists(dir + "/" + name));
  }
}
