// nvcc's option table (frontend/NvccOptions.h): checked against the toolkit's own nvcc (its
// --help for the spellings and values, --dryrun for the macros), how arguments are read, and
// where they are routed from the command line and from a compilation database.
#include "TestSupport.h"

#include "frontend/CompileCommands.h"
#include "frontend/NvccOptions.h"
#include "frontend/ParseCompat.h"
#include "support/Files.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringExtras.h"

#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <set>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

// What `nvcc --help` documents of an option: its spellings, whether it takes a value, and the
// values it allows.
struct Documented {
  std::vector<std::string> spellings;
  bool takesValue = false;
  std::set<std::string> allowed;
};

// `--gpu-architecture <arch>  (-arch)` heads each option's paragraph; "Allowed values for this
// option: 'a','b'." may follow (over several lines).
std::map<std::string, Documented> documentedOptions(const std::string& help) {
  std::map<std::string, Documented> options;
  Documented* current = nullptr;
  std::string allowedText;
  auto finishAllowed = [&] {
    if (current && !allowedText.empty() && current->allowed.empty()) {
      std::regex value("'([^']*)'|\\b([0-9]+)\\b");
      for (auto it = std::sregex_iterator(allowedText.begin(), allowedText.end(), value);
           it != std::sregex_iterator(); ++it)
        current->allowed.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
    }
    allowedText.clear();
  };
  for (llvm::StringRef line : llvm::split(help, '\n')) {
    if (line.starts_with("--")) {
      finishAllowed();
      llvm::SmallVector<llvm::StringRef, 4> words;
      line.split(words, ' ', -1, false);
      current = &options[words[0].str()];
      current->spellings.push_back(words[0].str());
      for (llvm::StringRef word : llvm::ArrayRef(words).drop_front()) {
        if (word.starts_with("(-") && word.ends_with(")")) {
          current->spellings.push_back(word.drop_front().drop_back().str());
        } else if (word.starts_with("--")) {
          current->spellings.push_back(word.str()); // --no-align-double has no short name
        } else {
          current->takesValue = true;
          // {a|b} or [a,b,c]: the values it allows.
          if ((word.starts_with("{") && word.ends_with("}")) ||
              (word.starts_with("[") && word.ends_with("]")))
            for (llvm::StringRef value : llvm::split(word.drop_front().drop_back(), "|"))
              for (llvm::StringRef part : llvm::split(value, ","))
                current->allowed.insert(part.str());
        }
      }
      continue;
    }
    llvm::StringRef text = line.trim();
    if (text.consume_front("Allowed values for this option:") || !allowedText.empty()) {
      allowedText += " " + text.str();
      if (text.ends_with("."))
        finishAllowed();
    }
  }
  finishAllowed();
  return options;
}

std::string nvccHelp() {
  auto help = runCommand({TLC_NVCC, "--help"});
  REQUIRE_EXPECTED(help);
  REQUIRE(help->exitCode == 0);
  return help->output;
}

NvccArgument readOne(const std::vector<std::string>& args) {
  size_t i = 0;
  NvccArgument argument = readNvccArgument(args, i);
  CHECK(i == args.size()); // the whole option, its value included, and nothing more
  return argument;
}

NvccRouting routedOk(const std::vector<std::string>& args, NvccOrigin origin,
                     const std::string& directory = "") {
  auto routing = routeNvccArguments(readNvccArguments(args), origin, directory);
  REQUIRE_EXPECTED(routing);
  return *routing;
}

std::string refusal(const std::vector<std::string>& args) {
  auto routing = routeNvccArguments(readNvccArguments(args), NvccOrigin::CommandLine, "");
  REQUIRE_FALSE(static_cast<bool>(routing));
  ErrorSummary error = summarize(routing.takeError());
  CHECK(error.code == ExitCode::UsageError);
  return error.message;
}

using Strings = std::vector<std::string>;

} // namespace

TEST_CASE("every spelling in nvcc's table is one the toolkit's nvcc documents", "[nvcc-options]") {
  if (!toolkitAvailable()) {
    WARN("skipped: no CUDA toolkit, so no nvcc --help to check the table against");
    return;
  }
  std::map<std::string, Documented> documented = documentedOptions(nvccHelp());
  REQUIRE(documented.size() > 100);
  std::map<std::string, const Documented*> bySpelling;
  for (const auto& [name, option] : documented)
    for (const std::string& spelling : option.spellings)
      bySpelling[spelling] = &option;
  std::set<std::string> known;
  for (const NvccOption& option : nvccOptions()) {
    INFO(option.longName().str());
    auto it = documented.find(option.longName().str());
    REQUIRE(it != documented.end());
    for (llvm::StringRef spelling : option.spellings) {
      INFO(spelling.str());
      // nvcc's own alternatives (--expt-extended-lambda for --extended-lambda, -lto for -dlto)
      // are documented as options of their own.
      auto found = bySpelling.find(spelling.str());
      REQUIRE(found != bySpelling.end());
      CHECK(found->second->takesValue == it->second.takesValue);
      known.insert(found->second->spellings.front());
    }
    // The headings of --qpp-config and --dependency-output (-MF) name no value, but nvcc takes
    // the next argument as theirs.
    if (!option.is("--qpp-config") && !option.is("--dependency-output"))
      CHECK(option.takesValue() == it->second.takesValue);
    if (option.value == NvccValue::Enum)
      CHECK(std::set<std::string>(option.allowed.begin(), option.allowed.end()) ==
            it->second.allowed);
  }
  // The other way round: an option a newer nvcc added is not in the table yet.
  std::vector<std::string> missing;
  for (const auto& [name, option] : documented)
    if (!known.count(name))
      missing.push_back(name);
  if (!missing.empty())
    WARN("nvcc documents options the table lacks: " << llvm::join(missing, " "));
}

TEST_CASE("the macros of nvcc's table are the ones the toolkit's nvcc defines", "[nvcc-options]") {
  auto toolkit = findCudaToolkit("");
  if (!toolkit) {
    WARN("skipped: no CUDA toolkit (" << llvm::toString(toolkit.takeError()) << ")");
    return;
  }
  std::string dir = scratchDir("nvcc-option-macros");
  if (llvm::Error error = writeFile(dir + "/k.cu", "__global__ void k(int* p) { *p = 1; }\n"))
    FAIL(llvm::toString(std::move(error)));
  // The macros nvcc hands its preprocessor (-DNAME, -D "NAME=1") for these options.
  auto definedWith = [&](const Strings& flags) {
    Strings argv = {TLC_NVCC, "--dryrun", "-cubin"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {dir + "/k.cu", "-o", dir + "/k.cubin"});
    auto run = runCommand(argv);
    REQUIRE_EXPECTED(run);
    std::set<std::string> macros;
    if (run->exitCode != 0)
      return std::optional<std::set<std::string>>();
    std::regex define("-D\\s*\"?([A-Za-z_][A-Za-z0-9_]*(=[^\"\\s]*)?)");
    for (auto it = std::sregex_iterator(run->output.begin(), run->output.end(), define);
         it != std::sregex_iterator(); ++it)
      macros.insert("-D" + (*it)[1].str());
    return std::optional<std::set<std::string>>(macros);
  };
  std::set<std::string> base = *definedWith({});
  std::set<std::string> predefined;
  for (const std::string& macro : nvccPredefines(toolkit->release, false, {}))
    predefined.insert(macro);
  // What tlc defines for the parse is what nvcc defines for every flag and enumerated value
  // (nothing for --use_fast_math with CUDA 13).
  size_t checked = 0;
  for (const NvccOption& option : nvccOptions()) {
    if (option.route == NvccRoute::Decided || option.route == NvccRoute::SideOutput ||
        (option.value != NvccValue::None && option.value != NvccValue::Enum))
      continue;
    Strings values = option.value == NvccValue::None
                         ? Strings{""}
                         : Strings(option.allowed.begin(), option.allowed.end());
    for (const std::string& value : values) {
      std::string flag = option.longName().str() + (value.empty() ? "" : "=" + value);
      INFO(flag);
      auto macros = definedWith({flag});
      if (!macros) // nvcc refuses it on its own (--x=c with a .cu input, ...)
        continue;
      std::set<std::string> added;
      for (const std::string& macro : *macros)
        if (!base.count(macro))
          added.insert(macro);
      bool relocatable = option.is("--relocatable-device-code") && value == "true";
      std::set<std::string> expected;
      for (const std::string& macro : nvccPredefines(toolkit->release, relocatable, {flag}))
        if (!predefined.count(macro))
          expected.insert(macro);
      CHECK(added == expected);
      ++checked;
    }
  }
  CHECK(checked > 60);
}

TEST_CASE("nvcc arguments are read in every spelling nvcc takes", "[nvcc-options]") {
  struct Spelling {
    Strings args;
    const char* option; // its long name
    Strings values;
  };
  const std::vector<Spelling> spellings = {
      {{"-arch=sm_90"}, "--gpu-architecture", {"sm_90"}},
      {{"-arch", "sm_90"}, "--gpu-architecture", {"sm_90"}},
      {{"--gpu-architecture=sm_90"}, "--gpu-architecture", {"sm_90"}},
      {{"--gpu-architecture", "sm_90"}, "--gpu-architecture", {"sm_90"}},
      {{"-code=sm_90,compute_90"}, "--gpu-code", {"sm_90", "compute_90"}},
      {{"--gpu-code", "sm_90"}, "--gpu-code", {"sm_90"}},
      {{"-gencode=arch=compute_90,code=sm_90"}, "--generate-code", {"arch=compute_90,code=sm_90"}},
      {{"-gencode", "arch=compute_90,code=[sm_90,compute_90]"},
       "--generate-code",
       {"arch=compute_90,code=[sm_90,compute_90]"}},
      {{"--generate-code=arch=compute_90,code=sm_90"},
       "--generate-code",
       {"arch=compute_90,code=sm_90"}},
      {{"-O3"}, "--optimize", {"3"}},
      {{"-O", "0"}, "--optimize", {"0"}},
      {{"-O=2"}, "--optimize", {"2"}},
      {{"--optimize", "1"}, "--optimize", {"1"}},
      {{"-lineinfo"}, "--generate-line-info", {}},
      {{"--generate-line-info"}, "--generate-line-info", {}},
      {{"-G"}, "--device-debug", {}},
      {{"--device-debug"}, "--device-debug", {}},
      {{"--use_fast_math"}, "--use_fast_math", {}},
      {{"-use_fast_math"}, "--use_fast_math", {}},
      {{"-ftz=true"}, "--ftz", {"true"}},
      {{"--ftz", "false"}, "--ftz", {"false"}},
      {{"-prec-div=false"}, "--prec-div", {"false"}},
      {{"-prec-sqrt", "true"}, "--prec-sqrt", {"true"}},
      {{"--fmad=false"}, "--fmad", {"false"}},
      {{"-rdc=true"}, "--relocatable-device-code", {"true"}},
      {{"-rdc", "false"}, "--relocatable-device-code", {"false"}},
      {{"--relocatable-device-code=true"}, "--relocatable-device-code", {"true"}},
      {{"--expt-relaxed-constexpr"}, "--expt-relaxed-constexpr", {}},
      {{"-expt-relaxed-constexpr"}, "--expt-relaxed-constexpr", {}},
      {{"--extended-lambda"}, "--extended-lambda", {}},
      {{"-extended-lambda"}, "--extended-lambda", {}},
      {{"--expt-extended-lambda"}, "--extended-lambda", {}},
      {{"-Xcompiler", "-Wall"}, "--compiler-options", {"-Wall"}},
      {{"-Xcompiler=-Wall,-Wextra"}, "--compiler-options", {"-Wall", "-Wextra"}},
      {{"--compiler-options", "-fPIC"}, "--compiler-options", {"-fPIC"}},
      {{"-Xptxas", "-v,-O2"}, "--ptxas-options", {"-v", "-O2"}},
      {{"--ptxas-options=-v"}, "--ptxas-options", {"-v"}},
      {{"-Xnvlink=--verbose"}, "--nvlink-options", {"--verbose"}},
      {{"-maxrregcount=32"}, "--maxrregcount", {"32"}},
      {{"-maxrregcount", "32"}, "--maxrregcount", {"32"}},
      {{"--maxrregcount", "64"}, "--maxrregcount", {"64"}},
      {{"-ccbin", "g++-12"}, "--compiler-bindir", {"g++-12"}},
      {{"-ccbin=/usr/bin/g++"}, "--compiler-bindir", {"/usr/bin/g++"}},
      {{"--compiler-bindir", "clang++"}, "--compiler-bindir", {"clang++"}},
      {{"-isystem", "/opt/x"}, "--system-include", {"/opt/x"}},
      {{"-isystem=/opt/x,/opt/y"}, "--system-include", {"/opt/x", "/opt/y"}},
      {{"--system-include", "/opt/x"}, "--system-include", {"/opt/x"}},
      {{"-UFOO"}, "--undefine-macro", {"FOO"}},
      {{"-U", "FOO"}, "--undefine-macro", {"FOO"}},
      {{"-U=FOO,BAR"}, "--undefine-macro", {"FOO", "BAR"}},
      {{"--undefine-macro=FOO"}, "--undefine-macro", {"FOO"}},
      {{"-DA=1,B=2"}, "--define-macro", {"A=1", "B=2"}},
      {{"-DX=f(a\\,b)"}, "--define-macro", {"X=f(a,b)"}},
      {{"-DY=\"a,b\""}, "--define-macro", {"Y=\"a,b\""}},
      {{"-D", "Z"}, "--define-macro", {"Z"}},
      {{"-Iinc"}, "--include-path", {"inc"}},
      {{"-I=inc"}, "--include-path", {"inc"}},
      {{"--include-path", "a,b"}, "--include-path", {"a", "b"}},
      {{"-include", "pre.h"}, "--pre-include", {"pre.h"}},
      {{"-x", "cu"}, "--x", {"cu"}},
      {{"-x=cu"}, "--x", {"cu"}},
      {{"--x=cu"}, "--x", {"cu"}},
      {{"-std=c++17"}, "--std", {"c++17"}},
      {{"-std", "c++20"}, "--std", {"c++20"}},
      {{"--std=c++14"}, "--std", {"c++14"}},
      {{"--default-stream", "per-thread"}, "--default-stream", {"per-thread"}},
      {{"-default-stream=legacy"}, "--default-stream", {"legacy"}},
      {{"-t2"}, "--threads", {"2"}},
      {{"-t", "0"}, "--threads", {"0"}},
      {{"-t=4"}, "--threads", {"4"}},
      {{"--threads", "8"}, "--threads", {"8"}},
      {{"-Xnvlink", "-ignore-host-info"}, "--nvlink-options", {"-ignore-host-info"}},
  };
  for (const Spelling& spelling : spellings) {
    INFO(llvm::join(spelling.args, " "));
    NvccArgument argument = readOne(spelling.args);
    REQUIRE(argument.known());
    CHECK(argument.option->longName() == spelling.option);
    CHECK(argument.values == spelling.values);
    CHECK(argument.problem.empty());
    CHECK(argument.written == llvm::join(spelling.args, " "));
  }
  // What nvcc itself refuses is no option of the table, or one with a problem nvcc would name.
  for (const Strings& foreign :
       {Strings{"--arch=sm_90"}, Strings{"-gpu-architecture=sm_90"}, Strings{"--lineinfo"},
        Strings{"--use-fast-math"}, Strings{"-isystem/opt/x"}, Strings{"-xcu"}, Strings{"--G"},
        Strings{"in.cu"}}) {
    INFO(foreign[0]);
    NvccArgument argument = readOne(foreign);
    CHECK_FALSE(argument.known());
    CHECK(argument.spelling == foreign[0]);
  }
  CHECK_THAT(readOne({"-lineinfo=true"}).problem, Contains("-lineinfo takes no value"));
  CHECK_THAT(readOne({"-ftz=yes"}).problem, Contains("nvcc takes true, false for -ftz"));
  CHECK_THAT(readOne({"-arch"}).problem, Contains("-arch needs a value"));
  // One value each, in the spelling given.
  CHECK(readOne({"-O", "3"}).withValue("3") == "-O3");
  CHECK(readOne({"--gpu-architecture", "sm_90"}).withValue("sm_90") == "--gpu-architecture=sm_90");
  CHECK(readOne({"-lineinfo"}).withValue("") == "-lineinfo");
}

TEST_CASE("nvcc's list syntax: commas, except escaped or quoted", "[nvcc-options]") {
  CHECK(splitNvccList("a,b") == Strings{"a", "b"});
  CHECK(splitNvccList("a\\,b,c") == Strings{"a,b", "c"});
  CHECK(splitNvccList("\"a,b\",c") == Strings{"\"a,b\"", "c"});
  CHECK(splitNvccList(",a,,") == Strings{"a"});
  CHECK(splitNvccList("a\\b") == Strings{"a\\b"});
}

TEST_CASE("options tlc decides are usage errors on the command line, dropped from a database",
          "[nvcc-options]") {
  for (const NvccOption& option : nvccOptions()) {
    if (option.route != NvccRoute::Decided && option.route != NvccRoute::SideOutput)
      continue;
    for (llvm::StringRef spelling : option.spellings) {
      Strings args = {spelling.str()};
      if (option.takesValue())
        args.push_back(option.value == NvccValue::Enum ? option.allowed.front().str() : "/x/y");
      INFO(llvm::join(args, " "));
      CHECK(!option.instead.empty());
      CHECK_THAT(refusal(args),
                 Contains("'" + llvm::join(args, " ") + "': " + option.instead.str()));
      NvccRouting dropped = routedOk(args, NvccOrigin::Database);
      CHECK(dropped.nvcc.empty());
      CHECK(dropped.parse.empty());
      // A database's -dc asks for relocatable device code, which tlc then plans.
      if (option.is("--device-c")) {
        CHECK(dropped.relocatable);
        continue;
      }
      REQUIRE(dropped.dropped.size() == 1);
      CHECK(dropped.dropped[0] == "'" + llvm::join(args, " ") + "' (" + option.instead.str() + ")");
    }
  }
}

TEST_CASE("sub-tool options that write files of their choosing never reach the tools",
          "[nvcc-options]") {
  NvccRouting routing = routedOk({"-Xcompiler",
                                  "-o",
                                  "-Xcompiler",
                                  "/leak.ii",
                                  "-Xcompiler=-fPIC,-o/leak2,-Wall",
                                  "--compiler-options=-MD,-MF,/leak.d,-O2",
                                  "-Xcompiler=-Wp\\,-MD\\,/leak3.d",
                                  "-Xcompiler",
                                  "-save-temps=obj",
                                  "-Xcompiler",
                                  "-fdump-tree-all",
                                  "-Xcompiler",
                                  "-dumpdir",
                                  "-Xcompiler",
                                  "/dumps/",
                                  "-Xptxas",
                                  "-v,-o,/leak.cubin",
                                  "-Xptxas=--options-file=/o",
                                  "-Xnvlink",
                                  "--register-link-binaries=/r",
                                  "-Xnvlink",
                                  "-time,/t.csv,-ignore-host-info"},
                                 NvccOrigin::Database);
  CHECK(routing.nvcc == Strings{"-Xcompiler=-fPIC", "-Xcompiler=-Wall", "--compiler-options=-O2",
                                "-Xptxas", "-v", "-Xnvlink", "-ignore-host-info"});
  CHECK(routing.dropped.size() == 17);
  CHECK(routing.dropped[0] == "'-Xcompiler -o' ('-o' makes the host compiler write a file of its "
                              "choosing; tlc chooses where tools write)");
  CHECK(routing.dropped[1] == "'-Xcompiler /leak.ii' (the file of the option before it)");
  // From the command line, the first is a usage error naming it.
  CHECK_THAT(refusal({"-Xcompiler=-Wall,-o/x"}),
             Contains("'-Xcompiler=-Wall,-o/x': '-o/x' makes the host compiler write"));
  CHECK_THAT(refusal({"-Xptxas", "-o", "-Xptxas", "/x"}), Contains("makes ptxas write"));
  CHECK_THAT(refusal({"-Xnvlink=--time=/x"}), Contains("makes nvlink write"));
  // What nvcc forwards to the host compiler on its own is screened alike.
  NvccRouting forwarded = routedOk({"-forward-unknown-to-host-compiler", "-Wall", "-Wp,-MD,/x.d",
                                    "-fdump-tree-all", "-fno-exceptions"},
                                   NvccOrigin::Database);
  CHECK(forwarded.nvcc == Strings{"-forward-unknown-to-host-compiler", "-Wall", "-fno-exceptions"});
  CHECK(forwarded.dropped.size() == 2);
  CHECK_THAT(refusal({"-forward-unknown-opts", "-fdump-rtl-all"}),
             Contains("'-fdump-rtl-all': nvcc forwards it to the host compiler"));
  // Without, nvcc refuses what it does not know itself.
  CHECK(routedOk({"-fdump-rtl-all"}, NvccOrigin::Database).nvcc == Strings{"-fdump-rtl-all"});
  // What only looks like an output option stays.
  CHECK(routedOk({"-Xcompiler=-O2,-fopenmp,-fno-strict-aliasing,-DOUT=1"}, NvccOrigin::CommandLine)
            .nvcc.size() == 4);
}

TEST_CASE("nvcc arguments go where nvcc uses them", "[nvcc-options]") {
  NvccRouting routing = routedOk({"-arch=sm_80",
                                  "-code=sm_80,compute_80",
                                  "-gencode",
                                  "arch=compute_90a,code=sm_90a",
                                  "-rdc=true",
                                  "-Iinc",
                                  "-isystem",
                                  "/sys",
                                  "-include",
                                  "pre.h",
                                  "-DA=1,B",
                                  "-UC",
                                  "-std=c++20",
                                  "-O2",
                                  "-lineinfo",
                                  "-G",
                                  "--use_fast_math",
                                  "-Xptxas",
                                  "-v",
                                  "-maxrregcount",
                                  "32",
                                  "-ccbin",
                                  "bin/g++",
                                  "-x",
                                  "cu",
                                  "--unknown-to-this-nvcc",
                                  "other.cu"},
                                 NvccOrigin::Database, "/build");
  CHECK(routing.archs == Strings{"sm_80"});
  CHECK(routing.codes == Strings{"sm_80", "compute_80"});
  CHECK(routing.gencodes == Strings{"arch=compute_90a,code=sm_90a"});
  CHECK(routing.relocatable);
  CHECK(routing.standard == "c++20");
  // The preprocessor's, with a database's paths made absolute.
  CHECK(routing.parse == Strings{"-I/build/inc", "-isystem", "/sys", "-include", "/build/pre.h",
                                 "-DA=1", "-DB", "-UC"});
  CHECK(routing.nvcc == Strings{"-O2", "-lineinfo", "-G", "--use_fast_math", "-Xptxas", "-v",
                                "-maxrregcount", "32", "-ccbin", "/build/bin/g++", "-x", "cu",
                                "--unknown-to-this-nvcc", "other.cu"});
  CHECK(routing.dropped.empty());
  // -rdc=false is the default; the last one given wins.
  CHECK_FALSE(routedOk({"-rdc=true", "-rdc", "false"}, NvccOrigin::CommandLine).relocatable);
  // tlc compiles CUDA.
  CHECK_THAT(refusal({"-x", "c++"}), Contains("'-x c++': tlc compiles CUDA"));
  CHECK(routedOk({"-x=c"}, NvccOrigin::Database).dropped.size() == 1);
  // What nvcc would refuse, refused before it runs.
  CHECK_THAT(refusal({"-ftz=yes"}), Contains("'-ftz=yes': nvcc would refuse it: nvcc takes true, "
                                             "false for -ftz, not 'yes'"));
}

TEST_CASE("an -arch with -code is the -gencode it means", "[nvcc-options]") {
  Strings archs, gencodes;
  targetsOf({"sm_80", "compute_90"}, {}, archs, gencodes);
  CHECK(archs == Strings{"sm_80", "compute_90"});
  CHECK(gencodes.empty());
  archs.clear();
  targetsOf({"sm_80", "compute_90"}, {"sm_90", "compute_90"}, archs, gencodes);
  CHECK(archs.empty());
  CHECK(gencodes == Strings{"arch=compute_80,code=[sm_90,compute_90]",
                            "arch=compute_90,code=[sm_90,compute_90]"});
}

TEST_CASE("the parse defines what nvcc defines for its options", "[nvcc-options][parse-compat]") {
  auto has = [](const Strings& defines, const std::string& macro) {
    return llvm::is_contained(defines, macro);
  };
  Strings plain = nvccPredefines("13.0.88", false, {});
  CHECK(has(plain, "-D__CUDACC_VER_MAJOR__=13"));
  CHECK_FALSE(has(plain, "-D__CUDACC_DEBUG__"));
  CHECK_FALSE(has(plain, "-D__CUDACC_RDC__"));
  Strings debug = nvccPredefines("13.0.88", false, {"-O0", "-G", "-Xptxas=-v"});
  CHECK(has(debug, "-D__CUDACC_DEBUG__"));
  CHECK(has(nvccPredefines("13.0.88", true, {}), "-D__CUDACC_RDC__"));
  CHECK(has(nvccPredefines("13.0.88", false, {"--device-debug", "--extended-lambda"}),
            "-D__CUDACC_EXTENDED_LAMBDA__"));
  CHECK(has(nvccPredefines("13.0.88", false, {"-expt-relaxed-constexpr"}),
            "-D__CUDACC_RELAXED_CONSTEXPR__"));
  // The last value decides.
  CHECK(has(nvccPredefines("13.0.88", false, {"--default-stream=per-thread"}),
            "-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"));
  CHECK_FALSE(has(
      nvccPredefines("13.0.88", false, {"--default-stream=per-thread", "-default-stream=legacy"}),
      "-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"));
  // nvcc 13 defines nothing for --use_fast_math (measured: nvcc --dryrun; the test above).
  CHECK(nvccPredefines("13.0.88", false, {"--use_fast_math"}) == plain);
}

TEST_CASE("a database's nvcc command is split between the parse and nvcc", "[nvcc-options]") {
  // As CMake writes it for a CUDA target.
  InputFlags flags =
      translateNvccCommand({"/usr/local/cuda/bin/nvcc",
                            "-forward-unknown-to-host-compiler",
                            "-DTILE=32",
                            "-Iinclude",
                            "-isystem",
                            "/opt/lib/include",
                            "--generate-code=arch=compute_90a,code=[compute_90a,sm_90a]",
                            "-G",
                            "--expt-relaxed-constexpr",
                            "-Xcompiler=-fPIC",
                            "-Wall",
                            "-std=c++20",
                            "-dc",
                            "-x",
                            "cu",
                            "-c",
                            "/src/kernels.cu",
                            "-o",
                            "CMakeFiles/k.dir/kernels.cu.o",
                            "-MD",
                            "-MT",
                            "CMakeFiles/k.dir/kernels.cu.o",
                            "-MF",
                            "CMakeFiles/k.dir/kernels.cu.o.d"},
                           "/build", "/src/kernels.cu");
  CHECK(flags.clang == Strings{"-DTILE=32", "-I/build/include", "-isystem", "/opt/lib/include",
                               "-std=c++20", "-D__CUDACC_DEBUG__",
                               "-D__CUDACC_RELAXED_CONSTEXPR__"});
  CHECK(flags.nvcc == Strings{"-DTILE=32", "-I/build/include", "-isystem", "/opt/lib/include",
                              "-forward-unknown-to-host-compiler", "-G", "--expt-relaxed-constexpr",
                              "-Xcompiler=-fPIC", "-Wall", "-x", "cu", "-std=c++20"});
  CHECK(flags.gencodes == Strings{"arch=compute_90a,code=[compute_90a,sm_90a]"});
  CHECK(flags.archs.empty());
  CHECK(flags.relocatable); // -dc
  CHECK(flags.dropped ==
        Strings{"'-c' (tlc decides what nvcc makes: a device image, then the launcher library; "
                "-rdc=true asks for relocatable device code)",
                "'-o CMakeFiles/k.dir/kernels.cu.o' (tlc names its outputs: its -o is the output "
                "folder)",
                "'-MD' (tlc writes a depfile itself with --depfile FILE)",
                "'-MT CMakeFiles/k.dir/kernels.cu.o' (tlc writes a depfile itself with --depfile "
                "FILE)",
                "'-MF CMakeFiles/k.dir/kernels.cu.o.d' (tlc writes a depfile itself with --depfile "
                "FILE)"});
}
