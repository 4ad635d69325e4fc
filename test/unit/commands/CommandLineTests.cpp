// tlc's command line read into option records (commands/CommandLine.h): nvcc's spellings beside
// tlc's own, where each goes, what is refused, and tlc's meaning where the two collide.
#include "TestSupport.h"

#include "commands/CommandLine.h"

#include "llvm/ADT/StringExtras.h"

#include <catch2/catch.hpp>

using namespace tlc;
using namespace tlc::test;
using Catch::Contains;

namespace {

using Strings = std::vector<std::string>;

CommandLine parsed(const Strings& args) {
  auto line = parseCommandLine(args);
  REQUIRE_EXPECTED(line);
  return std::move(*line);
}

std::string usage(const Strings& args) {
  auto line = parseCommandLine(args);
  REQUIRE_FALSE(static_cast<bool>(line));
  ErrorSummary error = summarize(line.takeError());
  CHECK(error.code == ExitCode::UsageError);
  return error.message;
}

BuildOptions build(const Strings& nvccArgs) {
  Strings args = {"build", "k.cu", "-o", "out"};
  args.insert(args.end(), nvccArgs.begin(), nvccArgs.end());
  CommandLine line = parsed(args);
  REQUIRE(line.command == Command::Build);
  CHECK(line.build.sources.inputs == Strings{"k.cu"});
  CHECK(line.build.outputDir == "out");
  return line.build;
}

} // namespace

TEST_CASE("tlc build takes an nvcc command line", "[cli][nvcc-options]") {
  BuildOptions options = build({"-arch=sm_90", "-O3", "-lineinfo", "--use_fast_math"});
  CHECK(options.archs == Strings{"sm_90"});
  CHECK(options.nvccFlags == Strings{"-O3", "-lineinfo", "--use_fast_math"});
  CHECK(options.sources.frontend.preprocessorFlags.empty());
}

TEST_CASE("each nvcc spelling reaches nvcc as nvcc reads it", "[cli][nvcc-options]") {
  struct Case {
    Strings args;
    Strings nvcc;
  };
  const std::vector<Case> cases = {
      {{"-O0"}, {"-O0"}},
      {{"-O", "2"}, {"-O", "2"}},
      {{"--optimize=1"}, {"--optimize=1"}},
      {{"-lineinfo"}, {"-lineinfo"}},
      {{"--generate-line-info"}, {"--generate-line-info"}},
      {{"-G"}, {"-G"}},
      {{"--device-debug"}, {"--device-debug"}},
      {{"--use_fast_math"}, {"--use_fast_math"}},
      {{"-use_fast_math"}, {"-use_fast_math"}},
      {{"-ftz=true", "-prec-div=false", "-prec-sqrt", "false", "--fmad", "true"},
       {"-ftz=true", "-prec-div=false", "-prec-sqrt", "false", "--fmad", "true"}},
      {{"-rdc=true"}, {"-rdc=true"}},
      {{"--relocatable-device-code", "true"}, {"-rdc=true"}},
      {{"-rdc=false"}, {}},
      {{"--expt-relaxed-constexpr"}, {"--expt-relaxed-constexpr"}},
      {{"-expt-relaxed-constexpr"}, {"-expt-relaxed-constexpr"}},
      {{"--extended-lambda"}, {"--extended-lambda"}},
      {{"-expt-extended-lambda"}, {"-expt-extended-lambda"}},
      {{"-Xcompiler", "-Wall"}, {"-Xcompiler", "-Wall"}},
      {{"-Xcompiler=-Wall,-Wextra"}, {"-Xcompiler=-Wall", "-Xcompiler=-Wextra"}},
      {{"--compiler-options", "-fPIC"}, {"--compiler-options", "-fPIC"}},
      {{"-Xptxas", "-v,-O2"}, {"-Xptxas", "-v", "-Xptxas", "-O2"}},
      {{"--ptxas-options=-O2"}, {"--ptxas-options=-O2"}},
      {{"-Xnvlink", "-ignore-host-info"}, {"-Xnvlink", "-ignore-host-info"}},
      {{"-maxrregcount", "32"}, {"-maxrregcount", "32"}},
      {{"--maxrregcount=64"}, {"--maxrregcount=64"}},
      {{"-ccbin", "g++-12"}, {"-ccbin", "g++-12"}},
      {{"--compiler-bindir=/usr/bin/g++"}, {"--compiler-bindir=/usr/bin/g++"}},
      {{"-x", "cu"}, {"-x", "cu"}},
      {{"--x=cu"}, {"--x=cu"}},
      {{"--default-stream", "per-thread"}, {"--default-stream", "per-thread"}},
      {{"-default-stream=legacy"}, {"-default-stream=legacy"}},
      {{"-t", "2"}, {"-t", "2"}},
      {{"-t4"}, {"-t4"}},
      {{"--threads=0"}, {"--threads=0"}},
      // -Xnvcc: nvcc's options as if given directly, any other flag as it is.
      {{"-Xnvcc", "-Xptxas=-v"}, {"-Xptxas=-v"}},
      {{"-Xnvcc", "-maxrregcount", "-Xnvcc", "16"}, {"-maxrregcount", "16"}},
      {{"-Xnvcc=--a-newer-nvcc-flag"}, {"--a-newer-nvcc-flag"}},
  };
  for (const Case& test : cases) {
    INFO(llvm::join(test.args, " "));
    BuildOptions options = build(test.args);
    CHECK(options.nvccFlags == test.nvcc);
    CHECK(options.sources.frontend.preprocessorFlags.empty());
    CHECK(options.archs.empty());
  }
}

TEST_CASE("nvcc's preprocessor options reach the parse and nvcc, in order", "[cli][nvcc-options]") {
  struct Case {
    Strings args;
    Strings preprocessor;
  };
  const std::vector<Case> cases = {
      {{"-I", "inc"}, {"-Iinc"}},
      {{"-Iinc"}, {"-Iinc"}},
      {{"-I=a,b"}, {"-Ia", "-Ib"}},
      {{"--include-path", "inc"}, {"-Iinc"}},
      {{"-isystem", "/opt/x"}, {"-isystem", "/opt/x"}},
      {{"-isystem=/opt/x"}, {"-isystem", "/opt/x"}},
      {{"--system-include=/opt/x"}, {"-isystem", "/opt/x"}},
      {{"-include", "pre.h"}, {"-include", "pre.h"}},
      {{"--pre-include=pre.h"}, {"-include", "pre.h"}},
      {{"-DA"}, {"-DA"}},
      {{"-D", "A=1,B=2"}, {"-DA=1", "-DB=2"}},
      {{"-D", "F=f(a\\,b)"}, {"-DF=f(a,b)"}},
      {{"--define-macro=A"}, {"-DA"}},
      {{"-UX"}, {"-UX"}},
      {{"-U", "X"}, {"-UX"}},
      {{"--undefine-macro", "X"}, {"-UX"}},
      {{"-UX", "-DX=2"}, {"-UX", "-DX=2"}},
      {{"-DX=2", "-Xnvcc", "-UX"}, {"-DX=2", "-UX"}},
  };
  for (const Case& test : cases) {
    INFO(llvm::join(test.args, " "));
    BuildOptions options = build(test.args);
    CHECK(options.sources.frontend.preprocessorFlags == test.preprocessor);
    CHECK(options.nvccFlags.empty());
  }
  for (const Strings& args : {Strings{"-std=c++20"}, Strings{"-std", "c++20"},
                              Strings{"--std=c++20"}, Strings{"--std", "c++20"}}) {
    INFO(llvm::join(args, " "));
    CHECK(build(args).sources.frontend.standard == "c++20");
  }
  CHECK_THAT(usage({"build", "k.cu", "-o", "out", "-std=c++03"}),
             Contains("-std 'c++03': tlc parses c++11, c++14, c++17, c++20"));
}

TEST_CASE("nvcc's targets are tlc's", "[cli][nvcc-options]") {
  struct Case {
    Strings args;
    Strings archs;
    Strings gencodes;
  };
  const std::vector<Case> cases = {
      {{"-arch=sm_90a"}, {"sm_90a"}, {}},
      {{"-arch", "sm_90a"}, {"sm_90a"}, {}},
      {{"--gpu-architecture=sm_80"}, {"sm_80"}, {}},
      {{"--gpu-architecture", "native"}, {"native"}, {}},
      {{"--arch", "sm_80", "-arch=sm_90"}, {"sm_80", "sm_90"}, {}},
      {{"-arch=compute_90", "-code=sm_90,compute_90"},
       {},
       {"arch=compute_90,code=[sm_90,compute_90]"}},
      {{"-arch", "sm_90", "--gpu-code", "sm_90"}, {}, {"arch=compute_90,code=[sm_90]"}},
      {{"-gencode=arch=compute_90,code=sm_90"}, {}, {"arch=compute_90,code=sm_90"}},
      {{"-gencode", "arch=compute_90,code=sm_90"}, {}, {"arch=compute_90,code=sm_90"}},
      {{"--generate-code=arch=compute_80,code=[sm_80,compute_80]"},
       {},
       {"arch=compute_80,code=[sm_80,compute_80]"}},
      {{"--gencode", "arch=compute_80,code=sm_86"}, {}, {"arch=compute_80,code=sm_86"}},
  };
  for (const Case& test : cases) {
    INFO(llvm::join(test.args, " "));
    BuildOptions options = build(test.args);
    CHECK(options.archs == test.archs);
    CHECK(options.gencodes == test.gencodes);
  }
  CHECK_THAT(usage({"build", "k.cu", "-o", "out", "-code=sm_90"}),
             Contains("-code needs an -arch"));
}

TEST_CASE("where nvcc and tlc spell an option alike, tlc's meaning wins", "[cli][nvcc-options]") {
  CommandLine line =
      parsed({"build", "k.cu", "-o", "k.o", "-v", "-G", "-j4", "-q", "-DX", "-pbuild"});
  CHECK(line.build.outputDir == "k.o"); // the output folder, not nvcc's output file
  CHECK(line.build.sources.verbose);    // tlc's commands, not nvcc's
  CHECK(line.build.sources.frontend.jobs == 4);
  CHECK(line.build.sources.compileCommands == "build/compile_commands.json");
  CHECK(line.build.quiet);
  CHECK(line.build.nvccFlags == Strings{"-G"});
  CHECK(line.build.sources.frontend.preprocessorFlags == Strings{"-DX"});
  CHECK(parsed({"build", "k.cu", "--verbose", "--output=out"}).build.sources.verbose);
  // nvcc's own -o is refused under its long name, saying what tlc does.
  CHECK_THAT(usage({"build", "k.cu", "-o", "out", "--output-file", "k.o"}),
             Contains("'--output-file k.o': tlc names its outputs: its -o is the output folder"));
}

TEST_CASE("what tlc decides is refused on its command line, saying what it does instead",
          "[cli][nvcc-options]") {
  struct Case {
    Strings args;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{"-c"}, "'-c': tlc decides what nvcc makes"},
      {{"-dc"}, "'-dc': tlc decides what nvcc makes"},
      {{"-cubin"}, "'-cubin': tlc decides what nvcc makes"},
      {{"-ptx"}, "'-ptx': tlc decides"},
      {{"-fatbin"}, "'-fatbin': tlc decides"},
      {{"-E"}, "'-E': tlc decides"},
      {{"--keep"}, "'--keep': tlc keeps nvcc's files in a work folder of its own (--keep-temps"},
      {{"--keep-dir=/k"}, "'--keep-dir=/k': tlc keeps nvcc's files"},
      {{"-odir", "/k"}, "'-odir /k': tlc names its outputs"},
      {{"-MD"}, "'-MD': tlc writes a depfile itself with --depfile FILE"},
      {{"-MF", "k.d"}, "'-MF k.d': tlc writes a depfile itself"},
      {{"--save-temps"}, "'--save-temps': tlc keeps nvcc's files"},
      {{"-e", "k"}, "'-e k': the image keeps every kernel; --entry KERNEL"},
      {{"-Xcompiler", "-o/x"}, "'-Xcompiler -o/x': '-o/x' makes the host compiler write"},
      {{"-Xnvcc", "--keep"}, "'--keep': tlc keeps nvcc's files"},
      {{"-x", "c++"}, "'-x c++': tlc compiles CUDA"},
      {{"-ftz=maybe"}, "'-ftz=maybe': nvcc would refuse it: nvcc takes true, false for -ftz"},
      {{"-maxrregcount"}, "'-maxrregcount': nvcc would refuse it: -maxrregcount needs a value"},
  };
  for (const Case& test : cases) {
    Strings args = {"build", "k.cu", "-o", "out"};
    args.insert(args.end(), test.args.begin(), test.args.end());
    INFO(llvm::join(args, " "));
    CHECK_THAT(usage(args), Contains(test.message));
  }
}

TEST_CASE("inspect and check take nvcc's options that change the parse", "[cli][nvcc-options]") {
  CommandLine line = parsed({"inspect", "k.cu", "-arch=sm_90a", "-G", "-rdc=true", "-DX",
                             "-isystem", "/s", "-std=c++20", "-lineinfo", "--", "-Wall"});
  REQUIRE(line.command == Command::Inspect);
  const FrontendOptions& frontend = line.inspect.sources.frontend;
  CHECK(frontend.arch == "sm_90a");
  CHECK(frontend.nvccFlags == Strings{"-G", "-lineinfo", "-rdc=true"});
  CHECK(frontend.relocatable);
  CHECK(frontend.preprocessorFlags == Strings{"-DX", "-isystem", "/s"});
  CHECK(frontend.standard == "c++20");
  CHECK(frontend.extraArgs == Strings{"-Wall"});
  CHECK(parsed({"check", "k.cu", "--arch", "sm_80", "-UY"}).check.frontend.preprocessorFlags ==
        Strings{"-UY"});
  CHECK_THAT(usage({"inspect", "k.cu", "-gencode", "arch=compute_90,code=sm_90"}),
             Contains("-code and -gencode are for tlc build"));
  CHECK_THAT(usage({"check", "k.cu", "-arch=volta"}),
             Contains("-arch: expected sm_XX, sm_XXa or sm_XXf, got 'volta'"));
}

TEST_CASE("a mistyped command or option gets a suggestion", "[cli]") {
  CHECK(usage({"biuld", "k.cu"}) == "unknown command 'biuld'; did you mean 'build'?");
  CHECK(usage({"hepl"}) == "unknown command 'hepl'; did you mean 'help'?");
  CHECK(usage({"build", "k.cu", "--acrh", "sm_90"}) ==
        "unknown option '--acrh'; did you mean '--arch'?");
  CHECK(usage({"build", "k.cu", "--pyhton"}) ==
        "unknown option '--pyhton'; did you mean '--python'?");
  CHECK(usage({"build", "k.cu", "--lineinfo"}) ==
        "unknown option '--lineinfo'; did you mean '-lineinfo'?");
  CHECK(usage({"inspect", "k.cu", "-Xnvc", "-G"}) ==
        "unknown option '-Xnvc'; did you mean '-Xnvcc'?");
  CHECK(usage({"cache", "prune", "--max-szie=1G"}) ==
        "unknown option '--max-szie=1G'; did you mean '--max-size'?");
  CHECK(usage({"cache", "stast"}) == "unknown command 'stast'; did you mean 'stats'?");
  CHECK(usage({"build", "k.cu", "--frobnicate"}) ==
        "unknown option '--frobnicate' (run 'tlc build --help' for usage)");
  CHECK(usage({"help", "biuld"}) == "unknown command 'biuld'; did you mean 'build'?");
}

TEST_CASE("tlc help [COMMAND] is --help", "[cli]") {
  CommandLine top = parsed({"help"});
  CHECK(top.command == Command::Help);
  CHECK(top.help == parsed({"--help"}).help);
  CHECK_THAT(top.help, Contains("Subcommands:"));
  CommandLine build = parsed({"help", "build"});
  CHECK(build.command == Command::Help);
  CHECK(build.help == parsed({"build", "--help"}).help);
  CHECK_THAT(build.help, Contains("Usage: tlc build"));
  CHECK_THAT(build.help, Contains("-arch, --gpu-architecture VALUE"));
  CHECK(parsed({"help", "cache", "prune"}).help == parsed({"cache", "prune", "--help"}).help);
  CHECK(parsed({"cache", "--help"}).command == Command::Help);
  CHECK_THAT(parsed({"help", "--man", "build"}).help, Contains(".TH TLC\\-BUILD 1"));
  CHECK_THAT(usage({"help", "--man", "biuld"}), Contains("did you mean 'build'?"));
}

TEST_CASE("tlc cache alone is a usage error that shows the cache's usage", "[cli]") {
  CommandLine cache = parsed({"cache"});
  CHECK(cache.command == Command::None); // main: the problem, the usage, exit 2
  CHECK(cache.problem == "'tlc cache' needs a command: stats, clear, prune");
  CHECK(cache.help == parsed({"cache", "--help"}).help);
  CHECK(parsed({}).problem == "no command given (run 'tlc --help' for usage)");
}

TEST_CASE("tlc completion SHELL prints the script", "[cli]") {
  CommandLine bash = parsed({"completion", "bash"});
  CHECK(bash.command == Command::Completion);
  CHECK_THAT(bash.help, Contains("complete -F _tlc tlc"));
  CHECK_THAT(parsed({"completion", "zsh"}).help, Contains("#compdef tlc"));
  CHECK_THAT(parsed({"completion", "fish"}).help, Contains("complete -c tlc"));
  CHECK_THAT(usage({"completion", "tcsh"}), Contains("tcsh"));
  CHECK_THAT(usage({"completion"}), Contains("shell is required"));
}
