// Walks one parsed translation unit and records what tlc needs: every __global__ definition with
// its exact device symbol and parameters, the records its parameters use, and every externally
// visible device definition (for module-wide uniqueness). Problems with a kernel (internal
// linkage, an unsupported parameter) are reported through Clang's diagnostics at the source.
#pragma once

#include "model/Model.h"

#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTConsumer;
class CompilerInstance;
class Decl;
class SourceManager;
} // namespace clang

namespace tlc {

struct TranslationUnitFacts {
  std::string input;
  std::vector<Kernel> kernels;
  std::vector<Record> records;
  std::vector<DeviceSymbol> definitions;
  std::vector<std::string> otherEntries; // kernels instantiated from system headers
  // Kernel templates system headers declare, as "outermost namespace::name" (ImageCheck.h): their
  // instances in the image are a library's even where Clang skipped the header body that
  // instantiates them.
  std::vector<std::string> libraryKernelTemplates;
  std::vector<std::string> filesRead; // every file Clang opened (inputs and headers)
  // The headers of the user's (not system headers) the input includes, absolute, sorted: each
  // gets the input's command in the compilation database tlc writes (CompileCommands.h).
  std::vector<std::string> userHeaders;
  // Host functions with external linkage the input defines (its own or its user headers'): nvcc's
  // -shared library would export them, tlc's library has only the kernels' launchers, and the
  // build says so once (`main` is none of them).
  struct HostFunction {
    std::string name; // qualified C++ name
    SourceLocation location;
  };
  std::vector<HostFunction> hostFunctions;
  bool deviceSideLaunch = false; // a kernel launched from device code: relocatable code needed
  bool fromPreamble = false;     // the parse loaded a precompiled preamble (frontend/Preamble.h)
  // Set before the parse: the input declares kernels of a device image (FrontendOptions).
  bool declarationsOnly = false;
};

std::unique_ptr<clang::ASTConsumer> makeExtractorConsumer(clang::CompilerInstance& ci,
                                                          TranslationUnitFacts& facts);

// Whether the parse skips the body of `decl` (under -skip-function-bodies): that of an ordinary
// function in a system header, of a template of libstdc++'s special math functions (whose
// bodies never call a user's callable), or of a device-only template there (CUB's block
// primitives: no kernel is launched or named from device code a library's headers hold); other
// templates keep theirs: instantiating one may instantiate a kernel. Clang itself keeps constexpr
// functions' and deduced return types'. The precompiled preamble skips the same
// (frontend/Preamble.h).
bool skipsBodyOf(const clang::Decl* decl, const clang::SourceManager& sources);

} // namespace tlc
