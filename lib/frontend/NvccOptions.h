// nvcc's command language, as one table: every option of the toolkit's nvcc (`nvcc --help`) with
// all its spellings, the value it takes and where tlc routes it. tlc's command line
// (commands/CommandLine.cpp), compilation databases (CompileCommands.cpp), the flags that reach
// nvcc (builder/ToolPaths.cpp) and the macros the parse adds for them (ParseCompat.cpp) all read
// it, so an option means the same wherever it comes from. A unit test checks every spelling
// against the toolkit's `nvcc --help` and every macro against `nvcc --dryrun`.
//
// nvcc's syntax: a long name takes two dashes (`--gpu-architecture`), a short one one (`-arch`);
// a value follows `=` or is the next argument; one-letter options also take it joined (`-O3`,
// `-Iinc`); a list value is split at commas (`-Xptxas -v,-O2`), except after a backslash (`\,`)
// or inside double quotes.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlc {

// What an option's value is, as far as tlc must know: paths become links for nvcc (ToolPaths.h)
// and absolute in a database's flags; macros may reach nvcc through a header; every other value
// must be shell-safe.
enum class NvccValue {
  None,     // a flag
  Folder,   // a folder: -I, -isystem, -L
  File,     // a file nvcc reads: -include
  Program,  // a program: a name looked up on PATH, or a path (-ccbin)
  Macro,    // NAME[=VALUE]: -D
  Undefine, // NAME: -U
  Plain,    // anything else: a number, a sub-tool's options, a target
  Enum,     // one of `allowed`
};

// Where an option goes.
enum class NvccRoute {
  Nvcc,         // shapes device code: to nvcc only
  NvccAndParse, // to nvcc, and to Clang's parse what it changes in the preprocessor (the option
                // itself, or the macros nvcc defines for it)
  Planned,      // tlc's own plan: the targets (-arch, -code, -gencode), relocatable code (-rdc)
  Decided,      // tlc decides it (the mode, the output file): a usage error on tlc's command
                // line, dropped from a compilation database
  SideOutput,   // writes outside the build (kept temporaries, dependency files, reports):
                // likewise refused, or dropped
};

struct NvccOption {
  // The long name first ("--gpu-architecture"), then the short one ("-arch") and any other
  // spelling nvcc documents for the same option ("--expt-extended-lambda").
  std::vector<llvm::StringRef> spellings;
  NvccValue value = NvccValue::None;
  bool list = false;     // values separated by commas (nvcc's `<value>,...`)
  bool attached = false; // a one-letter short name also takes its value joined: -O3, -Iinc
  std::vector<llvm::StringRef> allowed; // Enum: the values nvcc accepts
  NvccRoute route = NvccRoute::Nvcc;
  // The macro nvcc defines for the option ("__CUDACC_DEBUG__", "NAME=1"), for any value or only
  // for `definesFor`; the parse defines it too.
  llvm::StringRef defines;
  llvm::StringRef definesFor;
  llvm::StringRef help;    // one line, for --help
  llvm::StringRef instead; // Decided, SideOutput: what tlc does instead

  llvm::StringRef longName() const { return spellings.front(); }
  // The spelling nvcc users type: the first short one, else the long name.
  llvm::StringRef shortName() const;
  bool takesValue() const { return value != NvccValue::None; }
  bool is(llvm::StringRef longName) const { return spellings.front() == longName; }
};

// The table, in `nvcc --help`'s order.
const std::vector<NvccOption>& nvccOptions();

// The option `spelling` names exactly ("-arch", "--gpu-architecture"); null if none.
const NvccOption* findNvccOption(llvm::StringRef spelling);

// One option as given, with its values.
struct NvccArgument {
  const NvccOption* option = nullptr; // null: an argument the table does not know
  std::string spelling;               // the name as written: "-arch"; the whole unknown argument
  std::vector<std::string> values;    // none for a flag; one, or a list's parts
  std::string written;                // as written, for messages: "-arch sm_90", "-O3"
  bool separate = false;              // the value was the next argument
  std::string problem;                // why nvcc would refuse it as written; empty if it would not

  bool known() const { return option != nullptr; }
  // The argument nvcc gets for one of its values, in the spelling given: "-O3", "-arch=sm_90",
  // "-DX=1"; a flag as it is.
  std::string withValue(const std::string& value) const;
  // The same as it was given: the value as the next argument when it was (-Xptxas -v), else
  // withValue().
  std::vector<std::string> asGiven(const std::string& value) const;
};

// Reads the option starting at args[i] (with its value, when that is the next argument) and
// moves `i` past it. An argument that names no option of the table is returned as it is.
// `splitLists` false: a list's value stays one (flags routed already hold one value each, and a
// comma in one came from nvcc's `\,`).
NvccArgument readNvccArgument(llvm::ArrayRef<std::string> args, size_t& i, bool splitLists = true);
// Every argument of `args`, in order.
std::vector<NvccArgument> readNvccArguments(llvm::ArrayRef<std::string> args);

// nvcc's list syntax: "a,b" -> {"a", "b"}, "a\,b" -> {"a,b"}; commas inside double quotes stay.
std::vector<std::string> splitNvccList(llvm::StringRef value);

// A value of -Xcompiler, -Xptxas, -Xnvlink, -Xlinker or -Xarchive as the tool gets it: nvcc pastes
// it into a shell command, so "-fPIC -Wall" is two options. Split at blanks (spaces and tabs).
std::vector<std::string> splitSubToolValue(llvm::StringRef value);

// Whether `option` passes its values to a tool nvcc runs (-Xcompiler, -Xptxas, ...).
bool isSubToolOption(const NvccOption& option);

// A sub-tool option (a value of -Xcompiler, -Xptxas or -Xnvlink) that makes the tool write a file
// of its choosing (-o, -save-temps, -MF, ...): tlc chooses where tools write; or that makes the
// host compiler run or load a program of the user's (-wrapper, -fplugin=, -specs=, -B, -Xclang,
// @FILE, and gcc's `--NAME` spellings of them): tlc runs the tools it found, and nothing else; or
// that makes it read a file as source the parse does not read (-include). `takesNext`: the file
// or program is the next value (-o FILE, -wrapper PROG).
struct SubToolOutput {
  bool writes = false;
  bool runs = false;
  bool reads = false; // a file as source (-include): the parse would not read it
  bool takesNext = false;
};
SubToolOutput subToolOutput(const NvccOption& option, llvm::StringRef value);

// Where each option of a list of nvcc arguments goes.
struct NvccRouting {
  // For the preprocessor of both Clang and nvcc, in their order: -Idir, -DNAME, -UNAME, and
  // -isystem, -include each followed by its value.
  std::vector<std::string> parse;
  std::vector<std::string> nvcc;     // for nvcc only, one value per argument ("-O3", "-Xptxas=-v")
  std::vector<std::string> archs;    // -arch values
  std::vector<std::string> codes;    // -code values (they combine with the archs: targetsOf())
  std::vector<std::string> gencodes; // -gencode specs
  std::string standard;              // -std's value; empty if not given
  bool relocatable = false;          // -rdc=true (or, from a database, -dc)
  std::vector<std::string> dropped;  // from a database: "'-o k.o' (tlc names its outputs)"
};

enum class NvccOrigin {
  CommandLine, // tlc's own command line and -Xnvcc: options tlc decides are usage errors
  Database,    // a compilation database: they are dropped, and said so under -v
};

// Routes `arguments` (paths relative to `directory`, or as they are when it is empty). Unknown
// arguments go to nvcc as they are. From the command line, an option tlc decides, one that
// writes outside the build or one nvcc would refuse is a UsageError saying what to do instead
// (every such argument's, joined).
llvm::Expected<NvccRouting> routeNvccArguments(const std::vector<NvccArgument>& arguments,
                                               NvccOrigin origin, const std::string& directory);

// -arch X with -code Y1,Y2 is -gencode arch=<X's virtual arch>,code=[Y1,Y2] for each X; -arch
// alone stays an arch (tlc's --arch means what nvcc's -arch means).
void targetsOf(const std::vector<std::string>& archs, const std::vector<std::string>& codes,
               std::vector<std::string>& archsOut, std::vector<std::string>& gencodesOut);

// -D flags for the macros nvcc defines for these nvcc flags (-G: __CUDACC_DEBUG__, ...).
std::vector<std::string> nvccOptionDefines(const std::vector<std::string>& nvccFlags);

// Whether these nvcc flags hold an option of `longName` ("--optimize").
bool hasNvccOption(const std::vector<std::string>& nvccFlags, llvm::StringRef longName);

// Every spelling of every option, for "did you mean".
std::vector<std::string> nvccSpellings();

} // namespace tlc
