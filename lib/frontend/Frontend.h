// Parsing inputs with Clang in CUDA device mode, one translation unit per input, concurrently.
// Each unit's diagnostics are buffered and printed in input order, so the output is the same
// whatever the scheduling.
#pragma once

#include "frontend/CompilerView.h"
#include "frontend/Extractor.h"
#include "support/Jobs.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tlc {

struct FrontendOptions {
  // -I, -isystem, -include, -D and -U in their order on the command line, as Clang and nvcc both
  // read them ("-Iinc", "-DX=1", "-isystem", "dir"): what the parse and nvcc both see.
  std::vector<std::string> preprocessorFlags;
  std::string standard = "c++17";     // -std (nvcc's default dialect)
  std::string arch;                   // sm_XX to parse for; "" = nvcc's default
  std::vector<std::string> extraArgs; // after `--`, passed to Clang verbatim
  // Per input (as named on the command line): flags from a compilation database.
  std::map<std::string, std::vector<std::string>> inputArgs;
  std::string tlcIncludeDir; // folder holding tlc/annotations.h
  // What nvcc will be given, so the parse sees what nvcc sees (frontend/ParseCompat.h): its
  // flags decide some of its predefined macros, relocatable code another and Clang's -fgpu-rdc.
  std::vector<std::string> nvccFlags;
  bool relocatable = false;
  std::string hostIncludeDir; // the host compiler's own include folder (omp.h), searched last
  unsigned jobs = 0;          // parallel jobs (-j); 0 = effectiveJobs()'s default
  bool color = false;         // ANSI colors in diagnostics
  bool verbose = false;       // show Clang's diagnostics that nvcc does not share
  // Where the parse keeps its precompiled preamble (frontend/Preamble.h); "": it makes none.
  std::string preambleDir;
  // The inputs are headers of declarations for kernels of given device images
  // (builder/ImageInputs.h): a kernel declared without a body in them is one to launch.
  bool declarationsOnly = false;
};

// nvcc's default target when no --arch is given (sm_75 since CUDA 13.0).
std::string defaultArch(const CudaToolkit& toolkit);

// The Clang command line for one input (argv[0] included), exposed for tests and `-v`.
std::vector<std::string> clangCommandLine(const std::string& input, const FrontendOptions& options,
                                          const CudaToolkit& toolkit);

// The same parse for an editor (clangd, through a compilation database): the compatibility
// header (frontend/ParseCompat.h) is `compatHeaderFile`, a real copy, and no function body is
// skipped. clangd cannot load tlc's compiler view (frontend/CompilerView.h), which is no flag:
// the editor sees Clang's identity macros everywhere (`__clang__`, `__GNUC__` 4), so a header
// that branches on the compiler shows it Clang's branch where tlc's parse takes nvcc's. Flags
// cannot do better: undefining __clang__ for the whole file would break Clang's own headers.
std::vector<std::string> editorCommandLine(const std::string& input, const FrontendOptions& options,
                                           const CudaToolkit& toolkit,
                                           const std::string& compatHeaderFile);

// The macros named `names` as the parse of `input` has them at the input's end: what the
// user's code sees of the compiler (frontend/CompilerView.h), for tests.
llvm::Expected<MacroValues> macrosInUserCode(const std::string& input,
                                             const FrontendOptions& options,
                                             const CudaToolkit& toolkit,
                                             const std::vector<std::string>& names);

// Parses kept from runs before (commands/BuildCaching.h keeps them in the build's cache): the
// facts and messages of a parse of `input` with the same `identity` (parseIdentity: everything the
// parse is given but the files it reads), each file it read as it was then. A parse with errors
// is not kept. Called from the parses' threads at once.
class ParseStore {
public:
  struct Kept {
    TranslationUnitFacts facts;
    std::string diagnostics; // as the parse printed them
  };
  virtual ~ParseStore() = default;
  virtual std::optional<Kept> find(const std::string& input, const std::string& identity) = 0;
  virtual void keep(const std::string& input, const std::string& identity, const Kept& parse) = 0;
};

// What decides the parse of `input` besides the files it reads: Clang's release, the command line
// (the input's name as given among it), the working folder relative names resolve in, the
// compatibility header, nvcc's view of the host compiler, and the options that change what the
// parse prints or records.
std::string parseIdentity(const std::string& input, const FrontendOptions& options,
                          const CudaToolkit& toolkit, const MacroValues& nvccView);

// Parses every input and extracts its facts. Diagnostics of all inputs go to `diagnostics` in
// input order. If any input has errors, returns a reported InputError after all are printed.
// `slots`, when given, bounds the parses together with other work; else options.jobs does.
// `store`, when given, gives the parses it kept instead of parsing again, and keeps the others.
llvm::Expected<std::vector<TranslationUnitFacts>>
parseInputs(const std::vector<std::string>& inputs, const FrontendOptions& options,
            const CudaToolkit& toolkit, llvm::raw_ostream& diagnostics, JobSlots* slots = nullptr,
            ParseStore* store = nullptr);

// The number of jobs tlc runs at once: `-j`; else make's -jN from MAKEFLAGS; else the CPUs the
// process may use (support/CpuBudget.h: its affinity mask and cgroup quota). Under make's
// jobserver, jobs beyond the first also need a token (support/Jobserver.h).
unsigned effectiveJobs(unsigned requested);

} // namespace tlc
