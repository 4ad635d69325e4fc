// nvcc's options (CUDA 13's `nvcc --help`), how nvcc reads them, and where tlc routes each.
#include "frontend/NvccOptions.h"

#include "support/Error.h"
#include "support/Process.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

namespace tlc {

namespace {

// What tlc does instead of an option it decides or one that writes outside the build.
constexpr const char* kMode = "tlc decides what nvcc makes: a device image, then the launcher "
                              "library; -rdc=true asks for relocatable device code";
constexpr const char* kHostLink = "tlc links the launcher library itself; nvcc links nothing";
constexpr const char* kOutput = "tlc names its outputs: its -o is the output folder";
constexpr const char* kTemps = "tlc keeps nvcc's files in a work folder of its own "
                               "(--keep-temps keeps the staging folder and says where)";
constexpr const char* kDepfile = "tlc writes a depfile itself with --depfile FILE";
constexpr const char* kReport = "it writes a file outside the build";
constexpr const char* kLto = "tlc does not support link-time optimisation";
constexpr const char* kOptionsFile =
    "tlc must see every option: give them on its command line instead";
constexpr const char* kQuestion = "it asks nvcc a question instead of building (run nvcc itself)";
constexpr const char* kEntries =
    "the image keeps every kernel; --entry KERNEL chooses the kernels that get launchers";
constexpr const char* kCompress = "tlc writes uncompressed images, which it reads itself";
constexpr const char* kJobserver = "tlc takes make's jobserver tokens itself (see -j)";

// Builds one entry of the table.
class Def {
public:
  Def(std::initializer_list<llvm::StringRef> spellings, NvccRoute route, llvm::StringRef help) {
    Option.spellings = spellings;
    Option.route = route;
    Option.help = help;
  }
  Def& value(NvccValue kind) {
    Option.value = kind;
    return *this;
  }
  Def& list() {
    Option.list = true;
    return *this;
  }
  Def& attached() {
    Option.attached = true;
    return *this;
  }
  Def& oneOf(std::initializer_list<llvm::StringRef> allowed) {
    Option.value = NvccValue::Enum;
    Option.allowed = allowed;
    return *this;
  }
  Def& defines(llvm::StringRef macro, llvm::StringRef forValue = "") {
    Option.defines = macro;
    Option.definesFor = forValue;
    return *this;
  }
  Def& instead(llvm::StringRef text) {
    Option.instead = text;
    return *this;
  }
  operator NvccOption() const { return Option; }

private:
  NvccOption Option;
};

using R = NvccRoute;
using V = NvccValue;

std::vector<NvccOption> makeTable() {
  return {
      // The compilation phase: tlc's to decide.
      Def({"--cuda", "-cuda"}, R::Decided, "Compile to .cu.cpp.ii").instead(kMode),
      Def({"--cubin", "-cubin"}, R::Decided, "Compile to .cubin").instead(kMode),
      Def({"--fatbin", "-fatbin"}, R::Decided, "Compile to .fatbin").instead(kMode),
      Def({"--ptx", "-ptx"}, R::Decided, "Compile to .ptx").instead(kMode),
      Def({"--optix-ir", "-optix-ir"}, R::Decided, "Compile to OptiX IR").instead(kMode),
      Def({"--ltoir", "-ltoir"}, R::Decided, "Compile to LTO IR").instead(kLto),
      Def({"--preprocess", "-E"}, R::Decided, "Preprocess only").instead(kMode),
      Def({"--generate-dependencies", "-M"}, R::Decided, "Print a dependency file")
          .instead(kDepfile),
      Def({"--generate-nonsystem-dependencies", "-MM"}, R::Decided,
          "Print a dependency file without system headers")
          .instead(kDepfile),
      Def({"--generate-dependencies-with-compile", "-MD"}, R::SideOutput,
          "Write a dependency file while compiling")
          .instead(kDepfile),
      Def({"--generate-nonsystem-dependencies-with-compile", "-MMD"}, R::SideOutput,
          "Write a dependency file without system headers while compiling")
          .instead(kDepfile),
      Def({"--dependency-output", "-MF"}, R::SideOutput, "The dependency file's name")
          .value(V::Plain)
          .instead(kDepfile),
      Def({"--generate-dependency-targets", "-MP"}, R::SideOutput,
          "Empty targets in the dependency file")
          .instead(kDepfile),
      Def({"--compile", "-c"}, R::Decided, "Compile to an object file").instead(kMode),
      Def({"--device-c", "-dc"}, R::Decided, "Compile to an object with relocatable device code")
          .instead(kMode),
      Def({"--device-w", "-dw"}, R::Decided, "Compile to an object with executable device code")
          .instead(kMode),
      Def({"--device-link", "-dlink"}, R::Decided, "Device-link objects").instead(kMode),
      Def({"--link", "-link"}, R::Decided, "Compile and link").instead(kHostLink),
      Def({"--lib", "-lib"}, R::Decided, "Make a static library").instead(kHostLink),
      Def({"--run", "-run"}, R::Decided, "Build and run an executable").instead(kHostLink),

      // Files and paths.
      Def({"--output-file", "-o"}, R::Decided, "The output file").value(V::Plain).instead(kOutput),
      Def({"--pre-include", "-include"}, R::NvccAndParse, "Include a header before the source")
          .value(V::File)
          .list(),
      Def({"--objdir-as-tempdir", "-objtemp"}, R::SideOutput, "Temporaries beside the object file")
          .instead(kTemps),
      Def({"--library", "-l"}, R::Nvcc, "Libraries to link (nvcc links nothing for tlc)")
          .value(V::Plain)
          .list()
          .attached(),
      Def({"--define-macro", "-D"}, R::NvccAndParse, "Define a macro: NAME or NAME=VALUE")
          .value(V::Macro)
          .list()
          .attached(),
      Def({"--undefine-macro", "-U"}, R::NvccAndParse, "Undefine a macro")
          .value(V::Undefine)
          .list()
          .attached(),
      Def({"--include-path", "-I"}, R::NvccAndParse, "Add an include folder")
          .value(V::Folder)
          .list()
          .attached(),
      Def({"--system-include", "-isystem"}, R::NvccAndParse, "Add a system include folder")
          .value(V::Folder)
          .list(),
      Def({"--library-path", "-L"}, R::Nvcc, "Library folders (nvcc links nothing for tlc)")
          .value(V::Folder)
          .list()
          .attached(),
      Def({"--output-directory", "-odir"}, R::SideOutput, "The output file's folder")
          .value(V::Plain)
          .instead(kOutput),
      Def({"--compiler-bindir", "-ccbin"}, R::Nvcc, "The host compiler nvcc uses")
          .value(V::Program),
      Def({"--allow-unsupported-compiler", "-allow-unsupported-compiler"}, R::NvccAndParse,
          "Allow a host compiler nvcc does not support")
          .defines("__NV_NO_HOST_COMPILER_CHECK=1"),
      Def({"--archiver-binary", "-arbin"}, R::Nvcc, "The archiver (nvcc archives nothing for tlc)")
          .value(V::Program),
      Def({"--cudart", "-cudart"}, R::Nvcc, "The CUDA runtime to link")
          .oneOf({"none", "shared", "static"}),
      Def({"--cudadevrt", "-cudadevrt"}, R::Nvcc, "The device runtime to link")
          .oneOf({"none", "static"}),
      Def({"--libdevice-directory", "-ldir"}, R::Nvcc, "Where libdevice is").value(V::Folder),
      Def({"--target-directory", "-target-dir"}, R::Nvcc, "The targets subfolder to use")
          .value(V::Plain),
      Def({"--use-local-env", "-use-local-env"}, R::Nvcc, "Windows only"),
      Def({"--force-cl-env-setup", "-force-cl-env-setup"}, R::Nvcc, "Windows only"),

      // The compiler's behaviour.
      Def({"--profile", "-pg"}, R::Nvcc, "Host code for gprof"),
      Def({"--debug", "-g"}, R::Nvcc, "Debug information for host code"),
      Def({"--device-debug", "-G"}, R::NvccAndParse, "Debug information for device code")
          .defines("__CUDACC_DEBUG__"),
      Def({"--generate-line-info", "-lineinfo"}, R::Nvcc, "Line information for device code"),
      Def({"--optimization-info", "-opt-info"}, R::Nvcc, "Optimisation remarks")
          .oneOf({"inline"})
          .list(),
      Def({"--optimize", "-O"}, R::Nvcc, "Optimisation level (tlc adds -O3 unless given)")
          .value(V::Plain)
          .attached(),
      Def({"--Ofast-compile", "-Ofc"}, R::Nvcc, "Trade device code speed for compile speed")
          .oneOf({"0", "max", "mid", "min"}),
      Def({"--dopt", "-dopt"}, R::Nvcc, "Optimise device code under -G").oneOf({"on"}),
      Def({"--dlink-time-opt", "-dlto", "--lto", "-lto"}, R::Decided,
          "Link-time optimisation of device code")
          .instead(kLto),
      Def({"--gen-opt-lto", "-gen-opt-lto"}, R::Decided, "Optimise before LTO IR").instead(kLto),
      Def({"--ftemplate-backtrace-limit", "-ftemplate-backtrace-limit"}, R::Nvcc,
          "Template instantiation notes per diagnostic")
          .value(V::Plain),
      Def({"--ftemplate-depth", "-ftemplate-depth"}, R::Nvcc, "Template instantiation depth")
          .value(V::Plain),
      Def({"--no-exceptions", "-noeh"}, R::Nvcc, "No C++ exceptions in host code"),
      Def({"--shared", "-shared"}, R::Decided, "Link a shared library").instead(kHostLink),
      Def({"--x", "-x"}, R::Nvcc, "The input language (tlc compiles CUDA: cu)")
          .oneOf({"c", "c++", "cu"}),
      Def({"--std", "-std"}, R::NvccAndParse, "The C++ dialect")
          .oneOf({"c++03", "c++11", "c++14", "c++17", "c++20"}),
      Def({"--no-host-device-initializer-list", "-nohdinitlist"}, R::Nvcc,
          "std::initializer_list members are host-only"),
      Def({"--no-host-device-move-forward", "-nohdmoveforward"}, R::Nvcc,
          "std::move and std::forward are host-only"),
      Def({"--expt-relaxed-constexpr", "-expt-relaxed-constexpr"}, R::NvccAndParse,
          "Call constexpr functions across host and device")
          .defines("__CUDACC_RELAXED_CONSTEXPR__"),
      Def({"--extended-lambda", "-extended-lambda", "--expt-extended-lambda",
           "-expt-extended-lambda"},
          R::NvccAndParse, "__host__ __device__ annotations on lambdas")
          .defines("__CUDACC_EXTENDED_LAMBDA__"),
      Def({"--machine", "-m"}, R::Nvcc, "64-bit code").oneOf({"64"}),
      Def({"--m64", "-m64"}, R::Nvcc, "64-bit code"),

      // Options for the tools nvcc runs.
      Def({"--compiler-options", "-Xcompiler"}, R::Nvcc, "Options for the host compiler")
          .value(V::Plain)
          .list(),
      Def({"--linker-options", "-Xlinker"}, R::Nvcc, "Options for the host linker (not run)")
          .value(V::Plain)
          .list(),
      Def({"--archive-options", "-Xarchive"}, R::Nvcc, "Options for the archiver (not run)")
          .value(V::Plain)
          .list(),
      Def({"--ptxas-options", "-Xptxas"}, R::Nvcc, "Options for ptxas").value(V::Plain).list(),
      Def({"--nvlink-options", "-Xnvlink"}, R::Nvcc, "Options for nvlink").value(V::Plain).list(),

      // Miscellaneous.
      Def({"--static-global-template-stub", "-static-global-template-stub"}, R::Nvcc,
          "Internal linkage for template kernel stubs")
          .oneOf({"true", "false"}),
      Def({"--device-entity-has-hidden-visibility", "-device-entity-has-hidden-visibility"},
          R::Nvcc, "Hidden visibility for device entities")
          .oneOf({"true", "false"}),
      // tlc screens what they forward as it screens -Xcompiler's values (Router::route).
      Def({"--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler"}, R::Nvcc,
          "Pass unknown options to the host compiler"),
      Def({"--forward-unknown-to-host-linker", "-forward-unknown-to-host-linker"}, R::Nvcc,
          "Pass unknown options to the host linker (not run)"),
      Def({"--forward-unknown-opts", "-forward-unknown-opts"}, R::Nvcc,
          "Pass unknown options to the host compiler and linker"),
      Def({"--dont-use-profile", "-noprof"}, R::Nvcc, "Ignore nvcc.profile"),
      Def({"--dryrun", "-dryrun"}, R::Decided, "Show the commands, run none")
          .instead("tlc runs nvcc; -v shows every command"),
      Def({"--verbose", "-v"}, R::Nvcc, "Show nvcc's commands (tlc's -v is its own)"),
      Def({"--threads", "-t"}, R::Nvcc, "Threads per nvcc when compiling for several archs")
          .value(V::Plain)
          .attached(),
      Def({"--split-compile", "-split-compile"}, R::Nvcc, "Threads for device optimisations")
          .value(V::Plain),
      Def({"--split-compile-extended", "-split-compile-extended"}, R::Nvcc,
          "Threads for LTO optimisations")
          .value(V::Plain),
      Def({"--fdevice-syntax-only", "-fdevice-syntax-only"}, R::Decided,
          "Check device code, make none")
          .instead(kMode),
      Def({"--fdevice-time-trace", "-fdevice-time-trace"}, R::SideOutput,
          "Write a time trace of device compilation")
          .value(V::Plain)
          .instead(kReport),
      Def({"--keep", "-keep"}, R::SideOutput, "Keep intermediate files").instead(kTemps),
      Def({"--keep-dir", "-keep-dir"}, R::SideOutput, "Where to keep intermediate files")
          .value(V::Plain)
          .instead(kTemps),
      Def({"--save-temps", "-save-temps"}, R::SideOutput, "Keep intermediate files")
          .instead(kTemps),
      Def({"--clean-targets", "-clean"}, R::Decided, "Remove what a compile would make")
          .instead(kTemps),
      Def({"--time", "-time"}, R::SideOutput, "Append the phases' times to a file")
          .value(V::Plain)
          .instead(kReport),
      Def({"--run-args", "-run-args"}, R::Decided, "Arguments for --run")
          .value(V::Plain)
          .list()
          .instead(kHostLink),
      Def({"--input-drive-prefix", "-idp"}, R::Nvcc, "Windows only").value(V::Plain),
      Def({"--dependency-drive-prefix", "-ddp"}, R::Nvcc, "Windows only").value(V::Plain),
      Def({"--drive-prefix", "-dp"}, R::Nvcc, "Windows only").value(V::Plain),
      Def({"--dependency-target-name", "-MT"}, R::SideOutput, "The dependency file's target")
          .value(V::Plain)
          .instead(kDepfile),
      Def({"--no-align-double"}, R::Nvcc, "No -malign-double for 32-bit host code"),
      Def({"--no-device-link", "-nodlink"}, R::Decided, "Skip the device link").instead(kMode),

      // GPU code generation.
      Def({"--gpu-architecture", "-arch"}, R::Planned,
          "GPU target as tlc's --arch: sm_XX[a|f], compute_XX, native, all, all-major")
          .value(V::Plain),
      Def({"--gpu-code", "-code"}, R::Planned, "The codes each -arch is compiled to")
          .value(V::Plain)
          .list(),
      Def({"--generate-code", "-gencode"}, R::Planned,
          "Exact targets as tlc's --gencode: arch=compute_XX,code=[sm_XX,compute_XX]")
          .value(V::Plain),
      Def({"--relocatable-device-code", "-rdc"}, R::Planned,
          "Relocatable device code (true: every input, as for several inputs)")
          .oneOf({"true", "false"}),
      Def({"--entries", "-e"}, R::Decided, "The kernels to generate code for")
          .value(V::Plain)
          .list()
          .instead(kEntries),
      Def({"--maxrregcount", "-maxrregcount"}, R::Nvcc, "Most registers a kernel may use")
          .value(V::Plain),
      Def({"--use_fast_math", "-use_fast_math"}, R::Nvcc,
          "Fast math: -ftz=true -prec-div=false -prec-sqrt=false -fmad=true"),
      Def({"--ftz", "-ftz"}, R::Nvcc, "Flush single-precision denormals to zero")
          .oneOf({"true", "false"}),
      Def({"--prec-div", "-prec-div"}, R::Nvcc, "IEEE single-precision division")
          .oneOf({"true", "false"}),
      Def({"--prec-sqrt", "-prec-sqrt"}, R::Nvcc, "IEEE single-precision square root")
          .oneOf({"true", "false"}),
      Def({"--fmad", "-fmad"}, R::Nvcc, "Contract multiplies and adds into FMAs")
          .oneOf({"true", "false"}),
      Def({"--extra-device-vectorization", "-extra-device-vectorization"}, R::Nvcc,
          "More aggressive vectorisation"),
      Def({"--default-stream", "-default-stream"}, R::NvccAndParse, "The default stream")
          .oneOf({"legacy", "null", "per-thread"})
          .defines("CUDA_API_PER_THREAD_DEFAULT_STREAM=1", "per-thread"),

      // Generic tool options.
      Def({"--disable-warnings", "-w"}, R::Nvcc, "No warnings"),
      Def({"--keep-device-functions", "-keep-device-functions"}, R::Nvcc,
          "Keep unreferenced device functions"),
      Def({"--source-in-ptx", "-src-in-ptx"}, R::Nvcc, "Source lines in the PTX"),
      Def({"--restrict", "-restrict"}, R::Nvcc, "Kernel pointers are restrict"),
      Def({"--Wreorder", "-Wreorder"}, R::Nvcc, "Warn about member initialiser order"),
      Def({"--Wdefault-stream-launch", "-Wdefault-stream-launch"}, R::Nvcc,
          "Warn about launches on the default stream"),
      Def({"--Wmissing-launch-bounds", "-Wmissing-launch-bounds"}, R::Nvcc,
          "Warn about kernels without __launch_bounds__"),
      Def({"--Wext-lambda-captures-this", "-Wext-lambda-captures-this"}, R::Nvcc,
          "Warn about extended lambdas capturing this"),
      Def({"--Wno-deprecated-declarations", "-Wno-deprecated-declarations"}, R::Nvcc,
          "No warnings about deprecated entities"),
      Def({"--Wno-deprecated-gpu-targets", "-Wno-deprecated-gpu-targets"}, R::Nvcc,
          "No warnings about deprecated GPU targets"),
      Def({"--Werror", "-Werror"}, R::Nvcc, "Make these kinds of warning errors")
          .value(V::Plain)
          .list(),
      Def({"--resource-usage", "-res-usage"}, R::Nvcc, "Show each kernel's resource usage"),
      Def({"--extensible-whole-program", "-ewp"}, R::NvccAndParse,
          "Whole-program device code that may call libraries")
          .defines("__CUDACC_EWP__"),
      Def({"--no-compress", "-no-compress"}, R::Nvcc, "Do not compress the fatbinary"),
      Def({"--qpp-config", "-qpp-config"}, R::Nvcc, "QNX only").value(V::Plain),
      Def({"--compile-as-tools-patch", "-astoolspatch"}, R::NvccAndParse,
          "Patch code for CUDA tools")
          .defines("__CUDACC_INTERNAL_NO_STUBS__=1"),
      Def({"--list-gpu-code", "-code-ls"}, R::Decided, "List the GPU codes nvcc knows")
          .instead(kQuestion),
      Def({"--list-gpu-arch", "-arch-ls"}, R::Decided, "List the virtual archs nvcc knows")
          .instead(kQuestion),
      Def({"--display-error-number", "-err-no"}, R::Nvcc, "Diagnostics show their numbers"),
      Def({"--no-display-error-number", "-no-err-no"}, R::Nvcc, "Diagnostics hide their numbers"),
      Def({"--diag-error", "-diag-error"}, R::Nvcc, "Make these diagnostics errors")
          .value(V::Plain)
          .list(),
      Def({"--diag-suppress", "-diag-suppress"}, R::Nvcc, "Suppress these diagnostics")
          .value(V::Plain)
          .list(),
      Def({"--diag-warn", "-diag-warn"}, R::Nvcc, "Make these diagnostics warnings")
          .value(V::Plain)
          .list(),
      Def({"--host-linker-script", "-hls"}, R::Decided, "Host linker script")
          .oneOf({"use-lcs", "gen-lcs"})
          .instead(kHostLink),
      Def({"--augment-host-linker-script", "-aug-hls"}, R::Decided, "Augment the linker script")
          .instead(kHostLink),
      Def({"--relocatable-link", "-r"}, R::Decided, "Relocatable host link").instead(kHostLink),
      Def({"--brief-diagnostics", "-brief-diag"}, R::Nvcc, "Short diagnostics")
          .oneOf({"true", "false"}),
      Def({"--jump-table-density", "-jtd"}, R::Nvcc, "Jump table density of switches")
          .value(V::Plain),
      Def({"--relocatable-ptx", "-reloc-ptx"}, R::Nvcc, "Relocatable PTX for -ptx"),
      Def({"--device-stack-protector", "-device-stack-protector"}, R::Nvcc,
          "Stack canaries in device code")
          .oneOf({"true", "false"}),
      Def({"--compress-mode", "-compress-mode"}, R::Decided, "Fatbinary compression")
          .oneOf({"default", "size", "speed", "balance", "none"})
          .instead(kCompress),
      Def({"--frandom-seed", "-frandom-seed"}, R::Nvcc,
          "Seed for generated names (reproducible builds)")
          .value(V::Plain),
      Def({"--sanitize", "-sanitize"}, R::Nvcc, "Instrument for a compute-sanitizer tool")
          .value(V::Plain),
      Def({"--jobserver", "-jobserver"}, R::Decided, "Take make's jobserver tokens")
          .instead(kJobserver),
      Def({"--help", "-h"}, R::Decided, "nvcc's help").instead(kQuestion),
      Def({"--version", "-V"}, R::Decided, "nvcc's version").instead(kQuestion),
      Def({"--options-file", "-optf"}, R::Decided, "Read options from files")
          .value(V::Plain)
          .list()
          .instead(kOptionsFile),
  };
}

const llvm::StringMap<const NvccOption*>& bySpelling() {
  static const llvm::StringMap<const NvccOption*> map = [] {
    llvm::StringMap<const NvccOption*> spellings;
    for (const NvccOption& option : nvccOptions())
      for (llvm::StringRef spelling : option.spellings)
        spellings[spelling] = &option;
    return spellings;
  }();
  return map;
}

// A name nvcc takes with its value joined: one of the one-letter short names of an option that
// takes a value (-O3, -Iinc, -DNAME).
bool joinsValue(const NvccOption& option, llvm::StringRef spelling) {
  return option.attached && spelling.size() == 2;
}

void checkValues(NvccArgument& argument) {
  const NvccOption& option = *argument.option;
  if (option.value != NvccValue::Enum)
    return;
  for (const std::string& value : argument.values)
    if (!llvm::is_contained(option.allowed, value)) {
      argument.problem = "nvcc takes " + llvm::join(option.allowed, ", ") + " for " +
                         argument.spelling + ", not '" + value + "'";
      return;
    }
}

// An option given with `value` (a list's still joined).
NvccArgument valued(const NvccOption& option, llvm::StringRef spelling, llvm::StringRef value,
                    std::string written, bool splitLists) {
  NvccArgument argument;
  argument.option = &option;
  argument.spelling = spelling.str();
  argument.written = std::move(written);
  if (option.list && splitLists)
    argument.values = splitNvccList(value);
  else
    argument.values.push_back(value.str());
  if (argument.values.empty())
    argument.problem = argument.spelling + " needs a value";
  checkValues(argument);
  return argument;
}

} // namespace

llvm::StringRef NvccOption::shortName() const {
  return spellings.size() > 1 ? spellings[1] : spellings.front();
}

const std::vector<NvccOption>& nvccOptions() {
  static const std::vector<NvccOption> table = makeTable();
  return table;
}

const NvccOption* findNvccOption(llvm::StringRef spelling) {
  auto found = bySpelling().find(spelling);
  return found == bySpelling().end() ? nullptr : found->second;
}

std::string NvccArgument::withValue(const std::string& value) const {
  if (!option || !option->takesValue())
    return spelling;
  if (joinsValue(*option, spelling))
    return spelling + value;
  return spelling + "=" + value;
}

std::vector<std::string> NvccArgument::asGiven(const std::string& value) const {
  if (separate && option && option->takesValue())
    return {spelling, value};
  return {withValue(value)};
}

NvccArgument readNvccArgument(llvm::ArrayRef<std::string> args, size_t& i, bool splitLists) {
  llvm::StringRef arg = args[i++];
  // The whole argument names an option: a flag, or one whose value is the next argument.
  if (const NvccOption* option = arg.starts_with("-") ? findNvccOption(arg) : nullptr) {
    if (!option->takesValue()) {
      NvccArgument argument;
      argument.option = option;
      argument.spelling = argument.written = arg.str();
      return argument;
    }
    if (i == args.size()) {
      NvccArgument argument;
      argument.option = option;
      argument.spelling = argument.written = arg.str();
      argument.problem = arg.str() + " needs a value";
      return argument;
    }
    std::string value = args[i++];
    NvccArgument argument = valued(*option, arg, value, arg.str() + " " + value, splitLists);
    argument.separate = true;
    return argument;
  }
  // NAME=VALUE.
  auto [name, value] = arg.split('=');
  if (arg.contains('=') && name.starts_with("-"))
    if (const NvccOption* option = findNvccOption(name)) {
      if (option->takesValue())
        return valued(*option, name, value, arg.str(), splitLists);
      NvccArgument argument;
      argument.option = option;
      argument.spelling = name.str();
      argument.written = arg.str();
      argument.problem = name.str() + " takes no value";
      return argument;
    }
  // A one-letter name with its value joined: -O3, -Iinc.
  if (arg.size() > 2 && arg.starts_with("-") && arg[1] != '-')
    if (const NvccOption* option = findNvccOption(arg.take_front(2));
        option && joinsValue(*option, arg.take_front(2)))
      return valued(*option, arg.take_front(2), arg.drop_front(2), arg.str(), splitLists);
  NvccArgument unknown;
  unknown.spelling = unknown.written = arg.str();
  return unknown;
}

std::vector<NvccArgument> readNvccArguments(llvm::ArrayRef<std::string> args) {
  std::vector<NvccArgument> arguments;
  for (size_t i = 0; i < args.size();)
    arguments.push_back(readNvccArgument(args, i));
  return arguments;
}

std::vector<std::string> splitNvccList(llvm::StringRef value) {
  std::vector<std::string> parts;
  std::string part;
  bool quoted = false;
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (c == '\\' && i + 1 < value.size() && value[i + 1] == ',') {
      part += ',';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
      part += c;
    } else if (c == ',' && !quoted) {
      if (!part.empty())
        parts.push_back(std::move(part));
      part.clear();
    } else {
      part += c;
    }
  }
  if (!part.empty())
    parts.push_back(std::move(part));
  return parts;
}

std::vector<std::string> splitSubToolValue(llvm::StringRef value) {
  std::vector<std::string> pieces;
  llvm::SmallVector<llvm::StringRef, 4> parts;
  value.split(parts, ' ', -1, false);
  for (llvm::StringRef part : parts) {
    llvm::SmallVector<llvm::StringRef, 4> words;
    part.split(words, '\t', -1, false);
    for (llvm::StringRef word : words)
      pieces.push_back(word.str());
  }
  return pieces;
}

bool isSubToolOption(const NvccOption& option) {
  return option.is("--compiler-options") || option.is("--linker-options") ||
         option.is("--archive-options") || option.is("--ptxas-options") ||
         option.is("--nvlink-options");
}

SubToolOutput subToolOutput(const NvccOption& option, llvm::StringRef value) {
  // Options of each tool that name a file it writes; those taking the name as the next argument
  // first. The host compiler: gcc's and clang's output, temporaries, dependency files, dumps and
  // reports.
  struct Outputs {
    std::vector<llvm::StringRef> separate; // -o FILE
    std::vector<llvm::StringRef> prefixes; // -oFILE, -save-temps=obj, -fdump-tree-all, ...
  };
  static const Outputs host = {{"-o", "--output", "-MF", "-MT", "-MQ", "-dumpdir", "-dumpbase",
                                "--dumpdir", "--dumpbase", "-aux-info"},
                               {"-o",
                                "--output",
                                "-save-temps",
                                "--save-temps",
                                "-MF",
                                "-MD",
                                "-MMD",
                                "--write-dependencies",
                                "--write-user-dependencies",
                                "-dumpdir",
                                "-dumpbase",
                                "--dumpdir",
                                "--dumpbase",
                                "-fdump-",
                                "-aux-info",
                                "-fstack-usage",
                                "-fcallgraph-info",
                                "-fsave-optimization-record",
                                "-foptimization-record-file",
                                "-ftime-trace"}};
  // The host compiler's options that run or load a program: a wrapper around each of its steps,
  // a plugin (gcc's, clang's), spec files (which rewrite the commands it runs), the folder its
  // own programs (cc1, as, ld) are taken from, clang's compiler-proper options (`-Xclang -load`),
  // and a response file (`@FILE`) or clang's configuration file (`--config=FILE`), whose options
  // tlc never sees.
  static const Outputs hostPrograms = {
      {"-wrapper", "-specs", "--specs", "-B", "--prefix", "-Xclang", "--config"},
      {"-wrapper", "-fplugin", "-fpass-plugin", "-specs", "--specs", "-B", "--prefix", "-Xclang",
       "@", "--config"}};
  // The host compiler's options that read a file as source: the parse never reads it, so none
  // of tlc's checks of what it reads (a FIFO, a device, a file changed meanwhile) stands before
  // the compiler; tlc's own -include reaches both.
  static const Outputs hostSources = {{"-include", "-imacros", "--include", "--imacros"},
                                      {"-include", "-imacros", "--include=", "--imacros="}};
  static const Outputs ptxas = {{"-o", "--output-file", "-optf", "--options-file"},
                                {"-o", "--output-file", "-optf", "--options-file"}};
  static const Outputs nvlink = {{"-o", "--output-file", "-optf", "--options-file",
                                  "--register-link-binaries", "-time", "--time"},
                                 {"-o", "--output-file", "-optf", "--options-file",
                                  "--register-link-binaries", "-time", "--time"}};
  const Outputs* outputs = option.is("--compiler-options") ? &host
                           : option.is("--ptxas-options")  ? &ptxas
                           : option.is("--nvlink-options") ? &nvlink
                                                           : nullptr;
  if (!outputs)
    return {};
  SubToolOutput found;
  // A preprocessor option through the compiler: -Wp,-MD,FILE.
  llvm::StringRef rest = value;
  if (outputs == &host && rest.consume_front("-Wp,"))
    for (llvm::StringRef part : llvm::split(rest, ','))
      if (SubToolOutput inner = subToolOutput(option, part);
          inner.writes || inner.runs || inner.reads)
        return {inner.writes, inner.runs, inner.reads, false};
  // gcc reads a `--NAME` it has no long option for as `-fNAME` (its option_map's last rule):
  // `--plugin=x.so` is `-fplugin=x.so`, `--dump-tree-all` is `-fdump-tree-all`.
  std::string asGccReadsIt =
      outputs == &host && value.starts_with("--") ? "-f" + value.drop_front(2).str() : "";
  auto matches = [&](const Outputs& list) {
    return llvm::any_of(list.prefixes, [&](llvm::StringRef prefix) {
      return value.starts_with(prefix) ||
             (!asGccReadsIt.empty() && llvm::StringRef(asGccReadsIt).starts_with(prefix));
    });
  };
  found.takesNext = llvm::is_contained(outputs->separate, value);
  found.writes = found.takesNext || matches(*outputs);
  if (outputs == &host && !found.writes) {
    found.takesNext = llvm::is_contained(hostPrograms.separate, value);
    found.runs = found.takesNext || matches(hostPrograms);
  }
  if (outputs == &host && !found.writes && !found.runs) {
    found.takesNext = llvm::is_contained(hostSources.separate, value);
    found.reads = found.takesNext || matches(hostSources);
  }
  return found;
}

void targetsOf(const std::vector<std::string>& archs, const std::vector<std::string>& codes,
               std::vector<std::string>& archsOut, std::vector<std::string>& gencodesOut) {
  if (codes.empty()) {
    archsOut.insert(archsOut.end(), archs.begin(), archs.end());
    return;
  }
  for (llvm::StringRef arch : archs) {
    std::string virtualArch =
        arch.starts_with("sm_") ? "compute_" + arch.drop_front(3).str() : arch.str();
    gencodesOut.push_back("arch=" + virtualArch + ",code=[" + llvm::join(codes, ",") + "]");
  }
}

namespace {

std::string resolvePath(const std::string& path, const std::string& directory) {
  if (directory.empty() || path.empty() || llvm::sys::path::is_absolute(path))
    return path;
  llvm::SmallString<256> joined(directory);
  llvm::sys::path::append(joined, path);
  llvm::sys::path::remove_dots(joined, true);
  return joined.str().str();
}

// Routes one argument after another, refusing or dropping what tlc decides.
class Router {
public:
  Router(NvccOrigin origin, const std::string& directory) : Origin(origin), Directory(directory) {}

  // Whether nvcc passes options it does not know on to the host compiler.
  void forwardUnknownOptions() { ForwardsUnknown = true; }

  llvm::Error route(const NvccArgument& argument) {
    if (!argument.known()) {
      if (ForwardsUnknown && llvm::StringRef(argument.spelling).starts_with("-")) {
        SubToolOutput output = subToolOutput(*findNvccOption("-Xcompiler"), argument.spelling);
        const char* makes =
            output.writes ? "write a file of its choosing; tlc chooses where tools write"
            : output.runs ? "run or load a program of its choosing; tlc runs the tools it found"
            : output.reads
                ? "read a file that tlc's parse does not; give it to tlc as -include FILE"
                : nullptr;
        if (makes)
          return refuse(argument, std::string("nvcc forwards it to the host compiler "
                                              "(-forward-unknown-to-host-compiler), which it "
                                              "makes ") +
                                      makes);
      }
      Routing.nvcc.push_back(argument.spelling);
      return llvm::Error::success();
    }
    const NvccOption& option = *argument.option;
    if (option.route == NvccRoute::Decided || option.route == NvccRoute::SideOutput) {
      // A database's -dc is the build system asking for relocatable device code.
      if (Origin == NvccOrigin::Database && option.is("--device-c")) {
        Routing.relocatable = true;
        return llvm::Error::success();
      }
      return refuse(argument, option.instead.str());
    }
    if (!argument.problem.empty())
      return refuse(argument, "nvcc would refuse it: " + argument.problem);
    switch (option.route) {
    case NvccRoute::Decided:
    case NvccRoute::SideOutput:
      break;
    case NvccRoute::Planned:
      planned(argument);
      return llvm::Error::success();
    case NvccRoute::NvccAndParse:
      return toBoth(argument);
    case NvccRoute::Nvcc:
      return toNvcc(argument);
    }
    return llvm::Error::success();
  }

  NvccRouting take() { return std::move(Routing); }

private:
  // From the command line, a usage error; from a database, a note.
  llvm::Error refuse(const NvccArgument& argument, const std::string& why) {
    if (Origin == NvccOrigin::CommandLine)
      return usageError("'" + argument.written + "': " + why);
    Routing.dropped.push_back("'" + argument.written + "' (" + why + ")");
    return llvm::Error::success();
  }

  void planned(const NvccArgument& argument) {
    const NvccOption& option = *argument.option;
    if (option.is("--relocatable-device-code")) {
      Routing.relocatable = argument.values.front() == "true";
      return;
    }
    std::vector<std::string>& into = option.is("--gpu-architecture") ? Routing.archs
                                     : option.is("--gpu-code")       ? Routing.codes
                                                                     : Routing.gencodes;
    into.insert(into.end(), argument.values.begin(), argument.values.end());
  }

  llvm::Error toBoth(const NvccArgument& argument) {
    const NvccOption& option = *argument.option;
    if (option.is("--std")) {
      Routing.standard = argument.values.front();
      return llvm::Error::success();
    }
    bool path = option.value == NvccValue::Folder || option.value == NvccValue::File;
    if (!path && option.value != NvccValue::Macro && option.value != NvccValue::Undefine)
      return toNvcc(argument); // the parse gets the macros nvcc defines for it instead
    // Clang and nvcc both know the short spelling: -DNAME, -Idir, -isystem dir.
    std::string flag = option.shortName().str();
    for (const std::string& value : argument.values) {
      std::string given = path ? resolvePath(value, Directory) : value;
      if (joinsValue(option, flag)) {
        Routing.parse.push_back(flag + given);
        continue;
      }
      Routing.parse.push_back(flag);
      Routing.parse.push_back(given);
    }
    return llvm::Error::success();
  }

  llvm::Error toNvcc(const NvccArgument& argument) {
    const NvccOption& option = *argument.option;
    if (option.is("--x") && argument.values.front() != "cu")
      return refuse(argument, "tlc compiles CUDA: -x cu is the only language it takes");
    if (!option.takesValue()) {
      Routing.nvcc.push_back(argument.spelling);
      return llvm::Error::success();
    }
    // A sub-tool's value is split at blanks, as nvcc's shell command splits it: each piece is
    // one option of the tool's, checked alone and passed alone.
    std::vector<std::string> values;
    for (const std::string& value : argument.values)
      if (isSubToolOption(option)) {
        std::vector<std::string> pieces = splitSubToolValue(value);
        if (pieces.empty())
          return refuse(argument, "nvcc would refuse it: " + argument.spelling + " needs a value");
        values.insert(values.end(), pieces.begin(), pieces.end());
      } else {
        values.push_back(value);
      }
    for (const std::string& value : values) {
      if (DropNext.erase(&option)) { // the file of the option dropped before it
        Routing.dropped.push_back("'" + argument.spelling + " " + value +
                                  "' (the file of the option before it)");
        continue;
      }
      SubToolOutput output = subToolOutput(option, value);
      if (output.writes || output.runs || output.reads) {
        std::string tool = option.is("--compiler-options") ? "the host compiler"
                           : option.is("--ptxas-options")  ? "ptxas"
                                                           : "nvlink";
        std::string why =
            output.writes ? "'" + value + "' makes " + tool +
                                " write a file of its choosing; tlc chooses where tools write"
            : output.runs
                ? "'" + value + "' makes " + tool +
                      " run or load a program of its choosing (a wrapper, a plugin, spec files, "
                      "its own programs' folder, clang's own options, a response file); tlc "
                      "runs the tools it found"
                : "'" + value + "' makes " + tool +
                      " read a file that tlc's parse does not; give it to tlc as -include FILE";
        if (llvm::Error error = refuse(argument, why))
          return error;
        if (output.takesNext)
          DropNext.insert(&option);
        continue;
      }
      // Split or not, a piece reaches a shell: say so naming the flag as written. From the
      // command line here; a database's flag goes on whole, as written, for the tools' paths
      // to refuse by that name (builder/ToolPaths.h), never dropped: a flag that would run a
      // command is as wrong there as typed.
      if (isSubToolOption(option) && !isShellSafe(value)) {
        if (Origin == NvccOrigin::CommandLine)
          return refuse(argument, "'" + value +
                                      "' holds characters nvcc's shell steps would interpret; "
                                      "only letters, digits and _-./=,:+@% can reach nvcc");
        Routing.nvcc.push_back(argument.written);
        return llvm::Error::success();
      }
      bool path = option.value == NvccValue::Folder || option.value == NvccValue::File ||
                  (option.value == NvccValue::Program && llvm::StringRef(value).contains('/'));
      for (std::string& flag : argument.asGiven(path ? resolvePath(value, Directory) : value))
        Routing.nvcc.push_back(std::move(flag));
    }
    return llvm::Error::success();
  }

  NvccOrigin Origin;
  std::string Directory;
  bool ForwardsUnknown = false;
  NvccRouting Routing;
  std::set<const NvccOption*> DropNext; // -Xcompiler -o -Xcompiler FILE: FILE goes too
};

} // namespace

llvm::Expected<NvccRouting> routeNvccArguments(const std::vector<NvccArgument>& arguments,
                                               NvccOrigin origin, const std::string& directory) {
  Router router(origin, directory);
  for (const NvccArgument& argument : arguments)
    if (argument.known() && (argument.option->is("--forward-unknown-to-host-compiler") ||
                             argument.option->is("--forward-unknown-opts")))
      router.forwardUnknownOptions();
  // Every argument's mistake, in one run: each is judged alone.
  llvm::Error errors = llvm::Error::success();
  for (const NvccArgument& argument : arguments)
    errors = llvm::joinErrors(std::move(errors), router.route(argument));
  if (errors)
    return errors;
  return router.take();
}

std::vector<std::string> nvccOptionDefines(const std::vector<std::string>& nvccFlags) {
  // The last value given decides (-default-stream per-thread -default-stream legacy: none).
  std::map<const NvccOption*, bool> active;
  for (const NvccArgument& argument : readNvccArguments(nvccFlags))
    if (argument.known() && !argument.option->defines.empty())
      active[argument.option] =
          argument.option->definesFor.empty() ||
          (!argument.values.empty() && argument.values.back() == argument.option->definesFor);
  std::vector<std::string> defines;
  for (const NvccOption& option : nvccOptions())
    if (auto it = active.find(&option); it != active.end() && it->second)
      defines.push_back("-D" + option.defines.str());
  return defines;
}

bool hasNvccOption(const std::vector<std::string>& nvccFlags, llvm::StringRef longName) {
  for (const NvccArgument& argument : readNvccArguments(nvccFlags))
    if (argument.known() && argument.option->is(longName))
      return true;
  return false;
}

std::vector<std::string> nvccSpellings() {
  std::vector<std::string> spellings;
  for (const NvccOption& option : nvccOptions())
    for (llvm::StringRef spelling : option.spellings)
      spellings.push_back(spelling.str());
  return spellings;
}

} // namespace tlc
