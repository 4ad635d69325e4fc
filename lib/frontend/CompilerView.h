// Which compiler the parsed code sees. nvcc's front end never defines __clang__ or __CUDA__: it
// has the macros of the host compiler nvcc runs (gcc: __GNUC__ 12, __VERSION__ "12.2.0"), while
// Clang's parse says it is Clang (__clang__, __clang_major__ 22, __GNUC__ 4, __CUDA__). Code
// branches on them: a GEMM library hides its arch features, and the kernels using them, from Clang
// as a CUDA compiler; a header lays a struct out differently under __clang__. So the parse switches
// these macros where the preprocessor enters or leaves a file:
//   - Clang's view (its own values) in the files that need it to parse: Clang's resource folder
//     (its CUDA wrappers), the CUDA toolkit's headers (CCCL keeps a branch for Clang as the CUDA
//     compiler), the host's C and C++ libraries (the folders Clang's driver adds itself, except
//     /usr/local/include, where locally built libraries go) and the host compiler's own folder;
//   - nvcc's view (the host compiler's values, as nvcc runs it) in the inputs and every library
//     found by -I or -isystem;
//   - a file in no folder (a header beside the file including it, one a link leads to) gets
//     the view of the file including it.
// The resource folder's and the toolkit's files are always Clang's. For the system folders, of
// two folders holding a file the longer decides (`-isystem /usr/include/eigen3` is a library
// folder inside the C library's), and a folder of both views is Clang's: a library installed
// straight into /usr/include (boost) keeps Clang's view unless a folder of its own names it.
// The editor's parse (clangd) cannot run this: it keeps Clang's view (Frontend.h).
#pragma once

#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
}

namespace tlc {

// NAME -> replacement text, for the identity macros a compiler defines (absent: undefined).
using MacroValues = std::map<std::string, std::string>;

// The macros that say which compiler reads the code: those `nvcc -E -dM` and the parse define
// differently that name a compiler, its version or its literal encodings, and the NVPTX target
// macros Clang defines for device code and nvcc's front end does not.
const std::vector<std::string>& compilerIdentityMacros();

// The identity macros among the `#define NAME VALUE` lines of a -dM listing.
MacroValues identityMacrosIn(llvm::StringRef listing);

// The identity macros of the host compiler nvcc runs for these flags (its -ccbin, else
// NVCC_CCBIN or its default, as nvcc itself decides): `nvcc -E -Xcompiler -dM -x c++ /dev/null`,
// once per process for each such command. ToolchainError if nvcc cannot tell.
llvm::Expected<MacroValues> nvccCompilerView(const CudaToolkit& toolkit,
                                             const std::vector<std::string>& nvccFlags);

// Folders, as real paths, whose files get each view.
struct ViewFolders {
  std::vector<std::string> clang;    // Clang's view, always: Clang's own and the toolkit's
  std::vector<std::string> system;   // Clang's view, unless a longer search folder holds the file
  std::vector<std::string> searched; // every header search folder: nvcc's view
};

enum class CompilerView { Clang, Nvcc };

// The view of `file` (a real path): Clang's in `clang` folders; else that of the longest
// `system` or `searched` folder holding it, Clang's on a tie; none for a file in no folder,
// which gets the view of the file including it.
std::optional<CompilerView> viewOf(llvm::StringRef file, const ViewFolders& folders);

// The folders Clang's driver adds itself for the parse `commandLine` (argv[0] included): its
// resource folder, the C++ and C libraries' folders, the toolkit's. Without /usr/local/include.
std::vector<std::string> driverSystemFolders(const std::vector<std::string>& commandLine);

// nvcc's view, possibly still being asked for (nvccCompilerView takes some 50 ms): the parse
// needs it only when it first enters a file of nvcc's view after its preamble (the predefines,
// the compatibility header and Clang's CUDA wrapper, all Clang's), so the query runs beside it.
using PendingMacroValues = std::shared_future<MacroValues>;

// Switches the identity macros of `instance`'s preprocessor between Clang's values and
// `nvccView` at every file boundary, waiting for `nvccView` only there. `folders` as given (any
// path, made real here); the instance's header search folders are added to `searched`.
void installCompilerView(clang::CompilerInstance& instance, PendingMacroValues nvccView,
                         const ViewFolders& folders);

// Whether every one of `files` (as the parse named them) is of Clang's view, with `folders` and
// `instance`'s header search folders as installCompilerView takes them; a file in no folder is
// taken to be included from a file of Clang's view.
bool allOfClangView(clang::CompilerInstance& instance, const std::vector<std::string>& files,
                    const ViewFolders& folders);

// The macros named `names` as they stand in `instance`'s preprocessor now.
MacroValues currentMacros(clang::CompilerInstance& instance, const std::vector<std::string>& names);

} // namespace tlc
