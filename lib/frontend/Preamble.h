// The parse's precompiled preamble: what every parse reads before the input's first line (the
// predefines, Clang's CUDA runtime wrapper with <cmath> and the CUDA headers it includes, and
// tlc's compatibility header; most of a one-kernel file's parse) is the same for every input
// parsed with the same command line. It is precompiled once (a Clang PCH) into a folder of the
// cache and loaded by the parses after it, as clangd does for an editor's file.
//
// Exactly what a parse without it sees, or no preamble at all:
//   - keyed by Clang's and tlc's versions, the whole command line but the input, and the
//     compatibility header's text; and checked against the identity (size, times, inode) of
//     every file it read, which Clang itself does not check for system headers;
//   - kept only when every file it read is of Clang's view (frontend/CompilerView.h), so that the
//     view switching of the parse that loads it starts where a parse without it would;
//   - it skips the bodies the extractor skips (skipsBodyOf, frontend/Extractor.h);
//   - the files it read are the parse's dependencies too (cache entries, depfiles);
//   - its bytes are checked against a digest kept in its listing before Clang sees them (Clang
//     loads many a damaged file without a word), and the parse loads those checked bytes;
//   - a preamble that is missing, stale, foreign or damaged is never an error: it is made again
//     (or, for a command line not parsed before, the parse runs without it), and one Clang
//     refuses is removed, to be made again by the next parse.
// The parse does not use one for -v, whose remarks would lack Clang's own about its headers.
//
// An input that starts with `#include <...>` lines (after blank lines and comments only) gets a
// preamble that holds those headers too, as clangd's holds a file's leading includes: CUB's or
// Thrust's headers cost a parse many times what the CUDA headers do. It is keyed by those lines
// as well, so that every file of a project that starts with the same includes shares it, and it
// is kept only when, besides the above:
//   - every header those lines name is guarded against a second inclusion (#pragma once or an
//     include guard): the parse that loads it reads the lines again, and finds them included;
//   - as any preamble, only of files of Clang's view: system headers, none of the user's, whose
//     kernels and definitions the extractor records only of files that are not. A parse that
//     loads a preamble walks only what it read itself: what the extractor finds in the headers
//     (kernels a library defines, its kernel templates) is kept with the preamble and added to
//     the facts of each parse that loads it.
// One that cannot be kept is remembered as such, with the identities of the files it read, so
// that the parses after it do not try again until one of them changes; they load the preamble
// of the command line alone.
#pragma once

#include "frontend/CompilerView.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Chrono.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class FrontendAction;
}
namespace llvm {
class MemoryBuffer;
class StringRef;
} // namespace llvm

namespace tlc {

// What the extractor found in the headers a preamble holds, which a parse that loads it does not
// walk again (TranslationUnitFacts).
struct PreambleFacts {
  std::vector<std::string> otherEntries;
  std::vector<std::string> libraryKernelTemplates;
};

struct Preamble {
  std::string pch;                // the precompiled file
  std::vector<std::string> files; // the files it read, for the parse's dependencies
  // Its bytes, as checked against the digest its listing keeps: the parse loads these (as the
  // virtual file preamblePchPath()), never the file again.
  std::shared_ptr<const llvm::MemoryBuffer> bytes;
  PreambleFacts facts;
  // The text of preambleInputPath() it was made from, which Clang checks when it loads it.
  std::string input;
};

// The `#include <...>` lines an input starts with, before anything but blank lines and comments,
// as the names between the brackets; none from the first line of another form (a quoted include,
// another directive, a line continued with a backslash).
std::vector<std::string> leadingSystemIncludes(llvm::StringRef text);

// Where the preamble of the parse `commandLine` (its input last) is kept in `dir`: a path
// without extension, named by the key. `includes`: the input's leading system includes it holds
// too (leadingSystemIncludes).
std::string preambleStem(const std::string& dir, const std::vector<std::string>& commandLine,
                         const CudaToolkit& toolkit, const std::vector<std::string>& includes = {});

// The first line of a preamble's listing: the digest of its precompiled bytes.
std::string preambleDigest(llvm::StringRef bytes);

// The preamble at `stem`, if it is complete, its bytes are those it was written with (a digest
// in its listing: Clang would load many a changed byte without a word), and every file it read
// is as it was then.
std::optional<Preamble> findPreamble(const std::string& stem);

// Whether a preamble at `stem` is worth making now: only for a command line parsed before (a
// mark left by the first parse, which this makes), so that a first build, a CI job's with an
// empty cache say, does not pay for a preamble it would not use again.
bool preambleWanted(const std::string& stem);

// What making a preamble gave: the precompiled bytes, the files read and the extractor's facts
// of its headers; no bytes when it cannot be kept (an error, a file of nvcc's view, a header
// named by an include line that is not guarded).
struct PreambleOutput {
  std::string pch;
  std::vector<std::string> files;
  PreambleFacts facts;
};

// The action that makes a preamble when run over the parse's command line with its input
// replaced by preambleInputPath(), which holds preambleInput(includes). `folders`: the parse's
// view folders.
std::unique_ptr<clang::FrontendAction> makePreambleAction(PreambleOutput& out,
                                                          const ViewFolders& folders);
// The input of that run, a virtual file beside the compatibility header.
const char* preambleInputPath();
// Its text: an #include line for each of `includes`, none for the command line's preamble.
std::string preambleInput(const std::vector<std::string>& includes);

// Whether a preamble at `stem` was made before and could not be kept, and every file that run
// read is as it was then: not worth making again (refusePreamble).
bool preambleRefused(const std::string& stem);
// Remembers that the preamble at `stem` cannot be kept, with the files its making read.
void refusePreamble(const std::string& stem, const std::vector<std::string>& files);
// Where a parse that loads a preamble sees its checked bytes: a virtual file there too.
const char* preamblePchPath();

// Writes `made` at `stem` (support/Files: a concurrent maker's rename wins whole); none when
// there is nothing to keep or it cannot be written.
std::optional<Preamble> storePreamble(const std::string& stem, const PreambleOutput& made);

// Forgets a preamble Clang refused to load, so that the next parse makes it again.
void discardPreamble(const Preamble& preamble);

// The preambles kept in `dir` as `tlc cache stats` and `prune` count them: each stem's files
// (the precompiled file, its listing and its marks), their bytes, and when they were used last
// (the newest of their times: findPreamble renews the listing's). A preamble is some 8 MB (30
// with CUB's headers), so the cache's size limit must see them beside its entries.
struct KeptPreamble {
  std::string stem;
  bool precompiled = false; // a .pch is there, not only marks
  uint64_t bytes = 0;
  llvm::sys::TimePoint<> used;
};
std::vector<KeptPreamble> keptPreambles(const std::string& dir);
// Removes what keptPreambles found at `stem`, the listing first: a parse that read it before
// finds no precompiled bytes, or bytes that fail their digest, and goes without.
void removeKeptPreamble(const std::string& stem);

// Whether the -include list of a parse starts with what a preamble holds (Clang's CUDA runtime
// wrapper, which the driver adds, then tlc's compatibility header); the parse loading a
// preamble drops those two.
bool startsWithPreambleIncludes(const std::vector<std::string>& includes);

} // namespace tlc
