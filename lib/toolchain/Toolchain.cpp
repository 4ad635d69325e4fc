// Finding the CUDA toolkit and the host compiler, and reading their versions.
#include "toolchain/Toolchain.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Process.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <cstdlib>
#include <vector>

#ifndef TLC_VERSION
#error "TLC_VERSION must be defined by the build"
#endif
#ifndef TLC_CLANG_RESOURCE_DIR
#error "TLC_CLANG_RESOURCE_DIR must be defined by the build"
#endif
#ifndef TLC_RUNTIME_FLAGS
#define TLC_RUNTIME_FLAGS ""
#endif

namespace tlc {

const char* tlcVersion() {
  return TLC_VERSION;
}
std::string clangVersion() {
  return CLANG_VERSION_STRING;
}
std::string clangResourceDir() {
  return TLC_CLANG_RESOURCE_DIR;
}

std::vector<std::string> runtimeArchiveFlags() {
  llvm::SmallVector<llvm::StringRef, 4> flags;
  llvm::StringRef(TLC_RUNTIME_FLAGS).split(flags, ' ', -1, false);
  return {flags.begin(), flags.end()};
}

llvm::Error checkToolkitPath(const CudaToolkit& toolkit) {
  llvm::SmallString<256> real;
  for (llvm::StringRef path :
       {llvm::StringRef(toolkit.root),
        llvm::sys::fs::real_path(toolkit.root, real) ? llvm::StringRef() : llvm::StringRef(real)}) {
    if (path.empty() || isShellSafe(path))
      continue;
    return toolchainError("the CUDA toolkit's path '" + path +
                          "' holds characters nvcc's shell steps would interpret; install or "
                          "link it under a path of letters, digits and _-./ only");
  }
  return llvm::Error::success();
}

std::string CudaToolkit::versionString() const {
  return std::to_string(cudaVersion / 1000) + "." + std::to_string(cudaVersion % 1000 / 10);
}

static int readCudaVersion(llvm::StringRef cudaHeader) {
  auto buffer = readFileBuffer(cudaHeader.str());
  if (!buffer) {
    llvm::consumeError(buffer.takeError());
    return 0;
  }
  llvm::Regex versionLine("#define[ \t]+CUDA_VERSION[ \t]+([0-9]+)");
  llvm::SmallVector<llvm::StringRef, 2> match;
  if (!versionLine.match((*buffer)->getBuffer(), &match))
    return 0;
  int version = 0;
  match[1].getAsInteger(10, version);
  return version;
}

// Why `root` is not a usable toolkit, or "" if it is.
static std::string checkToolkit(const std::string& root, CudaToolkit& out) {
  llvm::SmallString<256> nvcc(root), fatbinary(root), include(root), header;
  llvm::sys::path::append(nvcc, "bin", "nvcc");
  llvm::sys::path::append(fatbinary, "bin", "fatbinary");
  llvm::sys::path::append(include, "include");
  header = include;
  llvm::sys::path::append(header, "cuda.h");
  if (!llvm::sys::fs::can_execute(nvcc))
    return "no executable " + nvcc.str().str();
  if (!llvm::sys::fs::exists(header))
    return "no " + header.str().str();
  out.root = root;
  out.nvcc = nvcc.str().str();
  out.fatbinary = fatbinary.str().str();
  out.includeDir = include.str().str();
  out.cudaVersion = readCudaVersion(header);
  if (out.cudaVersion == 0)
    return "cannot read CUDA_VERSION from " + header.str().str();
  return "";
}

llvm::Expected<CudaToolkit> findCudaToolkit(const std::string& explicitPath) {
  std::vector<std::pair<std::string, std::string>> candidates; // (source, path)
  if (!explicitPath.empty()) {
    candidates.push_back({"--cuda-path", explicitPath});
  } else {
    for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
      if (const char* value = std::getenv(var); value && *value)
        candidates.push_back({var, value});
    candidates.push_back({"default", "/usr/local/cuda"});
  }
  // The first candidate that is set decides: silently falling back from a CUDA_PATH the user set
  // to another toolkit would build with a compiler they did not ask for.
  const auto& [source, path] = candidates.front();
  CudaToolkit toolkit;
  std::string problem = checkToolkit(path, toolkit);
  if (!problem.empty())
    return toolchainError("CUDA toolkit not usable at '" + path + "' (chosen by " + source +
                          "): " + problem + "; install the CUDA toolkit or pass --cuda-path");
  auto release = nvccVersion(toolkit);
  if (!release)
    return release.takeError();
  toolkit.release = *release;
  return toolkit;
}

llvm::Expected<std::string> nvccVersion(const CudaToolkit& toolkit) {
  auto result = runCommand({toolkit.nvcc, "--version"});
  if (!result)
    return result.takeError();
  if (result->exitCode != 0)
    return toolchainError("'" + toolkit.nvcc + " --version' failed:\n" + result->output);
  llvm::Regex release("release [0-9.]+, V([0-9.]+)");
  llvm::SmallVector<llvm::StringRef, 2> match;
  if (!release.match(result->output, &match))
    return toolchainError("cannot read the version from '" + toolkit.nvcc + " --version'");
  return match[1].str();
}

llvm::Expected<HostCompiler> findHostCompiler() {
  const char* cxx = std::getenv("CXX");
  std::string name = cxx && *cxx ? cxx : "c++";
  auto path = findProgram(name);
  if (!path)
    return toolchainError("host C++ compiler '" + name + "' not found (set CXX or install g++): " +
                          summarize(path.takeError()).message);
  return HostCompiler{*path, name};
}

std::string hostCompilerIncludeDir() {
  auto compiler = findHostCompiler();
  if (!compiler) {
    llvm::consumeError(compiler.takeError());
    return "";
  }
  auto result = runCommand({compiler->path, "-print-file-name=include"});
  if (!result) {
    llvm::consumeError(result.takeError());
    return "";
  }
  std::string dir = llvm::StringRef(result->output).trim().str();
  return result->exitCode == 0 && llvm::sys::fs::is_directory(dir) ? dir : "";
}

std::string hostCompilerVersion(const HostCompiler& compiler) {
  auto result = runCommand({compiler.path, "--version"});
  if (!result) {
    llvm::consumeError(result.takeError());
    return "unknown";
  }
  return llvm::StringRef(result->output).split('\n').first.trim().str();
}

} // namespace tlc
