// What the tools tlc runs (nvcc, fatbinary, the host compiler) see of the file system.
//
// nvcc runs its sub-steps through /bin/sh with paths pasted into their command lines, the real
// path of its input among them, so no path or flag a tool gets may hold a character the shell
// interprets. This holds by construction, not by screening names: the tools run in the build's
// work folder, whose own path tlc chose from safe characters (Staging), and every path they are
// given is either a name tlc chose there or a real path tlc checked (isShellSafe, absolute, no
// ','). Inputs are copied in (`in0/kernel.cu`, which names the original in its line marker;
// `#include "x.h"` still finds x.h beside the original, through the input's folder, added first).
// Folders and files outside (an -I folder, the input's folder, the toolkit, tlc's headers, an
// -include) are reached through symbolic links there (`inc0`, `src0`, `cuda`, ...), whose stable
// relative names are what nvcc records of them (__FILE__, nvlink's note of its library folders):
// the same bytes from every checkout and every copy of the toolkit. With device debug info
// (useRealPaths: -lineinfo, -G) each is given by its real path instead where that is safe, so that
// the line tables name the files profilers and debuggers open, the same in every build (the
// input is named by its absolute path then too, SourceIdentity); only a path that is not safe is
// still reached through a link, whose name is then what the line table records. Where it can,
// a build with device debug info runs its compiles in the user's folder instead
// (runInUserFolder), with the user's own spellings and tlc's names by their absolute paths in the
// work folder, so that the line tables name the files from /proc/self/cwd; an include folder
// whose path holds a space is given so too, as nvcc quotes it (usableAsTypedInQuotes). Outputs
// are written there. Macros and flags reach nvcc only when made of safe characters
// (isShellSafe); a macro that is not is defined in a header nvcc force-includes, and a flag that
// is not is a usage error naming it. The one exception is tlc's own `-gencode=arch=...,code=[...]`
// list syntax, which nvcc parses itself and never passes on (DeviceBuild.cpp).
#pragma once

#include "support/Process.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tlc {

// A file name made safe: unsafe characters become '_' (the extension is kept when it is safe).
std::string safeFileName(llvm::StringRef name);

// What nvcc is told about an input it compiles from tlc's copy, so that the copy compiles to the
// bytes the original would, wherever the work folder is:
//  - `lineName` starts the copy as `#line 1 "<lineName>"`: the name nvcc's diagnostics, __FILE__
//    (assert's messages in the image) and the line table of -lineinfo/-G give the file;
//  - `hashedPath` is the path nvcc hashes into the names of the input's internal-linkage symbols
//    (`_GLOBAL__N__<hash>_...`, `__nv_static_<n>__<hash>_...`): nvcc takes the compiled file's
//    absolute path, which for a copy in a randomly named folder would change every build, so
//    tlc names it (`-Xcicc --orig_src_path_name`, DeviceBuild.cpp). Always shell-safe.
struct SourceIdentity {
  std::string lineName;
  std::string hashedPath; // shell-safe, without ',' (nvcc option lists split there)
};

// The identity of the input typed as `typed`: what nvcc, given that path in the user's working
// folder, would use. `relocated` is how the cache spells its absolute path (relative under a
// --base-dir, Relocation.h), which then stands for the path, so that checkouts under the base
// folder build the same bytes. With device debug info (-lineinfo, -G) the line name is the
// absolute path, which profilers and debuggers open (cicc would prefix a relative one with the
// work folder); the image then names where the sources are, as nvcc's does.
// Compiled in the user's folder (ToolPaths::runInUserFolder), nvcc reads the input as typed:
// that spelling names it, and its internal-linkage symbols too (cuda_fp16.h's static functions
// among them), unless a --base-dir relocates it.
SourceIdentity sourceIdentity(const std::string& typed, const std::string& relocated,
                              bool debugInfo, bool inUserFolder = false);

class ToolPaths {
public:
  // Names are chosen before the work folder exists (setWorkDir), so that flags are checked
  // before anything is made.
  ToolPaths() = default;
  void setWorkDir(std::string workDir) { Work = std::move(workDir); }
  // Device debug info: folders and files outside are given by their real paths where safe (the
  // class comment says why); called before any name is chosen.
  void useRealPaths(bool real) { RealPaths = real; }
  // Device debug info where the compiles can run in the user's working folder, as nvcc run there
  // by hand would (DeviceBuildOptions::userFolder): every input, and every folder or file whose
  // spelling is usableAsTyped, reaches nvcc as the user spelled it, relative ones included, so
  // that the line tables name them from the compilation folder /proc/self/cwd, the same bytes in
  // every copy of the project. Inputs are not copied then. What is not usable so is given as
  // under useRealPaths. Called before any name is chosen.
  void runInUserFolder() {
    RealPaths = true;
    AsTyped = true;
  }
  bool runsInUserFolder() const { return AsTyped; }
  // Whether a tool running in the user's folder can be given `typed` as it is: shell-safe, without
  // ',', not an option's look-alike, and not starting with a component that could be one of tlc's
  // own names in the work folder (mayBeToolName), which DeviceBuild tells apart by that.
  static bool usableAsTyped(const std::string& typed);
  // The same for an include folder (-I, -isystem), which nvcc puts in double quotes in every
  // step it runs (`-I"my inc"`, `-I"a\$b"`): a space and a '$' are allowed there too. Nothing
  // else a shell would read inside double quotes or outside them is, so that a step that did not
  // quote it could only split the path or expand a variable, never run anything.
  static bool usableAsTypedInQuotes(const std::string& typed);
  // Whether `component` (a path's first) has the form of a name tlc gives things in the work
  // folder ("in0", "inc3", "cuda", "tlc-include", ...).
  static bool mayBeToolName(llvm::StringRef component);
  const std::string& workDir() const { return Work; }

  // The name a tool uses for input `index` ("in0/vadd.cu"): a copy of `path` that starts with a
  // line marker naming `identity.lineName`, made by materialize(); inputFolder(index) is the
  // folder holding the original: "src0", a link to it, or under useRealPaths its real path when
  // safe.
  // Under runInUserFolder the input is given as typed, with no copy and no folder of its own
  // (inputFolder is empty: nvcc finds what is beside it itself).
  std::string input(size_t index, const std::string& path, const SourceIdentity& identity);
  std::string inputFolder(size_t index) const;
  // A folder of the work folder that belongs to input `index` alone ("in0"), where nvcc may keep
  // its intermediates (-G's --keep).
  std::string inputWorkFolder(size_t index);
  // The first components of every name in the work folder the tools are given (links, copies,
  // headers, folders): how DeviceBuild tells them from the user's relative spellings.
  std::set<std::string> workNames() const;
  // Whether any path so far is reached through a link in the work folder.
  bool linksAny() const;
  // A folder outside the work folder: under useRealPaths its real path when safe, else a link
  // ("inc0"). `quoted`: nvcc quotes it in its steps (an include folder, usableAsTypedInQuotes).
  std::string folder(const std::string& path, bool quoted = false);
  // A folder or file outside the work folder as nvcc reaches it: under useRealPaths its real
  // path when safe, else link(path, name).
  std::string reach(const std::string& path, const std::string& name);
  // The same by its real path when safe, whatever useRealPaths says.
  std::string reachByRealPath(const std::string& path, const std::string& name);
  // A link to a folder or file outside the work folder, named `name`, whatever its path.
  std::string link(const std::string& path, const std::string& name);

  // Macros that cannot reach nvcc on its command line, in order.
  struct Macros {
    bool started = false; // from the first unsafe one on, every -D and -U goes here
    std::string text;     // #define and #undef lines
  };

  // The nvcc flags a user gave (-D, nvcc's options and -Xnvcc, a compile database's), routed
  // already (frontend/NvccOptions.h: one value per flag, a comma in it meant): paths replaced by
  // links, -D/-U kept while safe, the rest collected in `macros`. UsageError naming the first
  // unsafe flag, with `origin` saying where it came from ("-Xnvcc", "compile_commands.json").
  llvm::Expected<std::vector<std::string>> nvccFlags(const std::vector<std::string>& flags,
                                                     const std::string& origin, Macros& macros);
  // `-include NAME` for a header holding `macros` (written by materialize()); none if empty.
  std::vector<std::string> forceInclude(const std::string& name, const Macros& macros);

  // Copies the inputs in, makes the links and writes the macro headers.
  llvm::Error materialize() const;

  // A path a tool reported (relative to the work folder, or absolute) as a path outside it:
  // "src0/x.h" -> the original folder's x.h. Names inside the work folder itself stay as they
  // are, made absolute.
  std::string outside(llvm::StringRef path) const;
  // A tool's message with every name of tlc's turned back into the user's path.
  std::string message(llvm::StringRef text) const;
  // A tool's argument as the manifest records it: links shown as the paths they stand for.
  std::string argument(llvm::StringRef arg) const;
  // The folders and files the tools are given by their real paths (useRealPaths), in the order
  // first given: with device debug info the image names them, so the cache keys them.
  std::vector<std::string> realPaths() const;

private:
  struct Link {
    std::string name;     // in the work folder
    std::string target;   // absolute, outside it (or the original input, for copies)
    std::string shown;    // as the user spelled it, for messages
    bool copy = false;    // an input: copied, not linked
    std::string lineName; // a copy: the name its line marker gives it
    bool real = false;    // given by its real path (name == target): nothing made, only shown
  };
  std::string addLink(std::string name, const std::string& target, const std::string& shown,
                      bool copy);
  llvm::Error define(std::vector<std::string>& out, Macros& macros, bool undefine,
                     llvm::StringRef value);
  // -ccbin's value: a name nvcc looks up on PATH as it is; a path as a linked folder and the
  // program's name; an error if that name is not shell-safe.
  llvm::Expected<std::string> program(llvm::StringRef value);
  bool reachableAsItIs(const std::string& absolute) const;
  std::string reachAs(const std::string& path, const std::string& name, bool real,
                      bool quoted = false);
  // Whether `path` reaches the tools as the user typed it (runInUserFolder).
  bool givenAsTyped(const std::string& path, bool quoted) const;
  bool givenAsItIs(const std::string& path, bool quoted) const;
  // `text` without the work folder's absolute path before its own names (runInUserFolder).
  std::string withoutWorkFolder(llvm::StringRef text) const;

  std::string Work;
  std::vector<Link> Links;
  std::map<std::string, std::string> FolderNames; // absolute target -> name the tools get
  std::vector<std::string> InputFolders;          // per input: its folder as the tools get it
  size_t LinkedFolders = 0;                       // "inc<N>" links made so far
  bool RealPaths = false;
  bool AsTyped = false;
  std::map<std::string, std::string> Headers; // name -> contents
  std::set<std::string> WorkFolders;          // empty folders to make (inputWorkFolder)
};

} // namespace tlc
