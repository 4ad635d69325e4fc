#include "TestSupport.h"

#include "support/Error.h"
#include "support/Files.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <filesystem>

namespace tlc::test {

std::string fixture(const std::string& relative) {
  return std::string(TLC_FIXTURES_DIR) + "/" + relative;
}

std::string sample(const std::string& relative) {
  return std::string(TLC_SOURCE_DIR) + "/samples/" + relative;
}

std::string readText(const std::string& path) {
  auto contents = readFile(path);
  REQUIRE_EXPECTED(contents);
  return *contents;
}

std::string scratchDir(const std::string& name) {
  std::string dir = std::string(TLC_TEST_SCRATCH_DIR) + "/" + name;
  // FIFOs included, which llvm::sys::fs::remove_directories leaves (tests make them).
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  REQUIRE(!llvm::sys::fs::create_directories(dir));
  return dir;
}

ToolRun runTlc(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv = {TLC_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.separateErrors = true;
  // Builds in tests use a cache of their own, never the user's, and no remote tier or base
  // folder unless the test names one.
  std::vector<std::string> overrides = {"TLC_CACHE_DIR=" + std::string(TLC_TEST_SCRATCH_DIR) +
                                            "/cache",
                                        "TLC_REMOTE_STORAGE", "TLC_BASE_DIR"};
  overrides.insert(overrides.end(), env.begin(), env.end());
  options.environment = environmentWith(overrides);
  auto result = runCommand(argv, options);
  REQUIRE_EXPECTED(result);
  return {result->exitCode, result->output, result->errors};
}

FrontendOptions frontendFor(const std::string& arch) {
  FrontendOptions options;
  options.arch = arch;
  options.tlcIncludeDir = TLC_STAGED_INCLUDE_DIR;
  options.hostIncludeDir = tlc::hostCompilerIncludeDir();
  return options;
}

Analysis analyzeOk(const std::vector<std::string>& inputs, const std::string& arch) {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  auto analysis = analyze(inputs, frontendFor(arch), *toolkit);
  REQUIRE_EXPECTED(analysis);
  return std::move(*analysis);
}

const Kernel& kernelNamed(const Module& module, const std::string& displayName) {
  for (const Kernel& kernel : module.kernels)
    if (kernel.displayName == displayName)
      return kernel;
  FAIL("no kernel named " << displayName);
  return module.kernels.front();
}

bool toolkitAvailable() {
  auto toolkit = findCudaToolkit("");
  if (toolkit)
    return true;
  llvm::consumeError(toolkit.takeError());
  return false;
}

} // namespace tlc::test
