// tlc's commands as library functions. tools/tlc/main.cpp only turns the command line into these
// option structs; tests call the same functions.
#pragma once

#include "Frontend.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tlc {

// Options every command that reads sources takes.
struct SourceOptions {
  std::vector<std::string> inputs;
  FrontendOptions frontend;
  std::string cudaPath; // --cuda-path; else CUDA_PATH, CUDA_HOME, /usr/local/cuda
  bool verbose = false;
};

struct InspectOptions {
  SourceOptions sources;
  bool json = false;
};

// `tlc inspect`: a table of every kernel (or the JSON model with --json) on `out`.
llvm::Error runInspect(const InspectOptions& options, llvm::raw_ostream& out);

// `tlc check`: module-wide symbol and launcher-name checks; a one-line summary on `out`.
llvm::Error runCheck(const SourceOptions& options, llvm::raw_ostream& out);

struct BuildOptions {
  SourceOptions sources;
  std::string outputDir;              // -o
  std::string name;                   // --name; default: the first input's stem
  std::vector<std::string> archs;     // --arch, repeatable; none: nvcc's default
  std::vector<std::string> nvccFlags; // -Xnvcc, repeatable
  std::vector<std::string> entries;   // --entry, repeatable
  bool externalImage = false;         // --external-image
  bool emitOnly = false;              // --emit-only
  bool keepTemps = false;             // --keep-temps
  std::string templateDir;            // --template-dir; default: <prefix>/share/tlc/templates
};

// `tlc build`: a device image, lib<name>.so, <name>.h and <name>.json in the output folder,
// published only when every step succeeded.
llvm::Error runBuild(const BuildOptions& options);

// `tlc --version`: tlc's, Clang's and the CUDA toolkit's versions.
void printVersion(const std::string& cudaPath, llvm::raw_ostream& out);

} // namespace tlc
