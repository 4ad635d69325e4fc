// Finding the CUDA toolkit and the host compiler, and reading their versions.
#include "toolchain/Toolchain.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/ProbeMemo.h"
#include "support/Process.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
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
#ifndef TLC_INSTALL_LIBDIR
#error "TLC_INSTALL_LIBDIR must be defined by the build"
#endif

namespace tlc {

const char* tlcVersion() {
  return TLC_VERSION;
}
std::string clangVersion() {
  return CLANG_VERSION_STRING;
}
// The prefix tlc is installed in: <prefix>/bin/tlc.
static std::string installPrefix() {
  static int anchor;
  std::string executable = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  return llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable)).str();
}

std::string clangResourceDir() {
  static const std::string dir = [] {
    llvm::SmallString<256> bundled(installPrefix());
    llvm::sys::path::append(bundled, TLC_INSTALL_LIBDIR, "tlc", "clang",
                            std::to_string(CLANG_VERSION_MAJOR));
    llvm::SmallString<256> wrapper(bundled);
    llvm::sys::path::append(wrapper, "include", "__clang_cuda_runtime_wrapper.h");
    return llvm::sys::fs::exists(wrapper) ? bundled.str().str() : TLC_CLANG_RESOURCE_DIR;
  }();
  return dir;
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

std::string cudaWheelRoot(const std::string& prefix) {
  if (prefix.empty())
    return "";
  // lib/python3.X/site-packages (venvs, ~/.local, conda), Debian's dist-packages, Fedora's lib64.
  std::vector<std::string> roots;
  for (const char* lib : {"lib", "lib64"}) {
    std::error_code ec;
    std::string libDir = prefix + "/" + lib;
    for (llvm::sys::fs::directory_iterator it(libDir, ec), end; it != end && !ec;
         it.increment(ec)) {
      llvm::StringRef python = llvm::sys::path::filename(it->path());
      if (!python.starts_with("python3."))
        continue;
      for (const char* packages : {"site-packages", "dist-packages"}) {
        std::string root = it->path() + "/" + packages + "/nvidia/cu13";
        if (llvm::sys::fs::can_execute(root + "/bin/nvcc"))
          roots.push_back(root);
      }
    }
  }
  if (roots.empty())
    return "";
  // The newest Python's (python3.12 after python3.9): by the minor version, as a number.
  auto minor = [](llvm::StringRef root) {
    unsigned version = 0;
    // <prefix>/lib/python3.X/site-packages/nvidia/cu13
    llvm::StringRef name = llvm::sys::path::filename(llvm::sys::path::parent_path(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(root))));
    name.drop_front(strlen("python3.")).getAsInteger(10, version);
    return version;
  };
  return *std::max_element(roots.begin(), roots.end(),
                           [&](const auto& a, const auto& b) { return minor(a) < minor(b); });
}

std::vector<ToolkitCandidate> toolkitCandidates(const std::string& explicitPath,
                                                const std::vector<std::string>& environment,
                                                const std::string& prefix) {
  if (!explicitPath.empty())
    return {{"--cuda-path", explicitPath}};
  auto variable = [&](llvm::StringRef name) -> std::string {
    for (llvm::StringRef entry : environment)
      if (entry.consume_front(name) && entry.consume_front("="))
        return entry.str();
    return "";
  };
  std::vector<ToolkitCandidate> candidates;
  for (const char* name : {"CUDA_PATH", "CUDA_HOME"})
    if (std::string value = variable(name); !value.empty())
      candidates.push_back({name, value});
  std::vector<std::pair<std::string, std::string>> environments = {
      {"tlc's own Python environment", prefix},
      {"$VIRTUAL_ENV", variable("VIRTUAL_ENV")},
      {"$CONDA_PREFIX", variable("CONDA_PREFIX")}};
  for (const auto& [where, at] : environments)
    if (std::string root = cudaWheelRoot(at); !root.empty())
      candidates.push_back({"NVIDIA's CUDA wheels in " + where, root});
  candidates.push_back({"the default", "/usr/local/cuda"});
  return candidates;
}

llvm::Expected<CudaToolkit> findCudaToolkit(const std::string& explicitPath) {
  std::vector<std::string> environment;
  for (const char* name : {"CUDA_PATH", "CUDA_HOME", "VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* value = std::getenv(name); value && *value)
      environment.push_back(std::string(name) + "=" + value);
  // The first candidate decides: silently falling back from a CUDA_PATH the user set to another
  // toolkit would build with a compiler they did not ask for.
  ToolkitCandidate chosen = toolkitCandidates(explicitPath, environment, installPrefix()).front();
  CudaToolkit toolkit;
  std::string problem = checkToolkit(chosen.root, toolkit);
  if (!problem.empty())
    return toolchainError("CUDA toolkit not usable at '" + chosen.root + "' (chosen by " +
                          chosen.chosenBy + "): " + problem +
                          "; install the CUDA toolkit (or `pip install tlc[cuda]`), or pass "
                          "--cuda-path");
  toolkit.chosenBy = chosen.chosenBy;
  auto release = nvccVersion(toolkit);
  if (!release)
    return release.takeError();
  toolkit.release = *release;
  return toolkit;
}

llvm::Expected<std::string> nvccVersion(const CudaToolkit& toolkit) {
  auto result = runProbe({toolkit.nvcc, "--version"});
  if (!result)
    return result.takeError();
  if (!result->succeeded())
    return toolchainError("'" + toolkit.nvcc + " --version' failed (" + result->status() + "):\n" +
                          result->output);
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
  auto result = runProbe({compiler->path, "-print-file-name=include"});
  if (!result) {
    llvm::consumeError(result.takeError());
    return "";
  }
  std::string dir = llvm::StringRef(result->output).trim().str();
  return result->exitCode == 0 && llvm::sys::fs::is_directory(dir) ? dir : "";
}

std::string hostCompilerVersion(const HostCompiler& compiler) {
  auto result = runProbe({compiler.path, "--version"});
  if (!result) {
    llvm::consumeError(result.takeError());
    return "unknown";
  }
  return llvm::StringRef(result->output).split('\n').first.trim().str();
}

} // namespace tlc
