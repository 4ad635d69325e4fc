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
#pragma once

#include "frontend/CompilerView.h"
#include "toolchain/Toolchain.h"

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

struct Preamble {
  std::string pch;                // the precompiled file
  std::vector<std::string> files; // the files it read, for the parse's dependencies
  // Its bytes, as checked against the digest its listing keeps: the parse loads these (as the
  // virtual file preamblePchPath()), never the file again.
  std::shared_ptr<const llvm::MemoryBuffer> bytes;
};

// Where the preamble of the parse `commandLine` (its input last) is kept in `dir`: a path
// without extension, named by the key.
std::string preambleStem(const std::string& dir, const std::vector<std::string>& commandLine,
                         const CudaToolkit& toolkit);

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

// What making a preamble gave: the precompiled bytes and the files read, empty when it cannot be
// kept (an error, a file of nvcc's view).
struct PreambleOutput {
  std::string pch;
  std::vector<std::string> files;
};

// The action that makes a preamble when run over the parse's command line with its input
// replaced by an empty file (preambleInputPath()). `folders`: the parse's view folders.
std::unique_ptr<clang::FrontendAction> makePreambleAction(PreambleOutput& out,
                                                          const ViewFolders& folders);
// The empty input of that run, a virtual file beside the compatibility header.
const char* preambleInputPath();
// Where a parse that loads a preamble sees its checked bytes: a virtual file there too.
const char* preamblePchPath();

// Writes `made` at `stem` (support/Files: a concurrent maker's rename wins whole); none when
// there is nothing to keep or it cannot be written.
std::optional<Preamble> storePreamble(const std::string& stem, const PreambleOutput& made);

// Forgets a preamble Clang refused to load, so that the next parse makes it again.
void discardPreamble(const Preamble& preamble);

// Whether the -include list of a parse starts with what a preamble holds (Clang's CUDA runtime
// wrapper, which the driver adds, then tlc's compatibility header); the parse loading a
// preamble drops those two.
bool startsWithPreambleIncludes(const std::vector<std::string>& includes);

} // namespace tlc
