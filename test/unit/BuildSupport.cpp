// Helpers for the tests that run `tlc build`: reading what a build wrote and checking it.
#include "BuildSupport.h"

#include "render/ModuleApi.h"

#include "builder/DeviceImage.h"
#include "cache/Relocation.h"
#include "commands/CommandLine.h"
#include "support/InstallLayout.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <map>

#include <unistd.h>

namespace tlc::test {

namespace {

// Mirrors the toolkit folder `from` into `to` as a copy of it would be laid out: its links as
// they are, the headers' folder (`headers`, a real path) copied, nvcc and its profile copied
// (nvcc finds the rest from where it is), bin/, targets/<platform>/ and the folders on the way
// to the headers made, and every other file or folder a link to the original's.
void mirrorToolkit(const std::string& from, const std::string& to, const std::string& headers,
                   bool inTargets = false) {
  REQUIRE(!llvm::sys::fs::create_directories(to));
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(from, ec), end; it != end && !ec; it.increment(ec)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    std::string source = it->path(), target = to + "/" + name;
    llvm::sys::fs::file_status status;
    REQUIRE(!llvm::sys::fs::status(source, status, /*follow=*/false));
    llvm::SmallString<256> real;
    REQUIRE(!llvm::sys::fs::real_path(source, real));
    if (status.type() == llvm::sys::fs::file_type::symlink_file) {
      char link[4096];
      ssize_t length = ::readlink(source.c_str(), link, sizeof link);
      REQUIRE(length > 0);
      REQUIRE(!llvm::sys::fs::create_link(std::string(link, length), target));
    } else if (real == headers) {
      auto copied = runCommand({"cp", "-R", source, target});
      REQUIRE_EXPECTED(copied);
      REQUIRE(copied->exitCode == 0);
    } else if (status.type() == llvm::sys::fs::file_type::directory_file &&
               (isInsideFolder(headers, real) || name == "bin" || name == "targets" || inTargets)) {
      mirrorToolkit(source, target, headers, name == "targets");
    } else if (name == "nvcc" || name == "nvcc.profile") {
      REQUIRE(!llvm::sys::fs::copy_file(source, target));
      REQUIRE(!llvm::sys::fs::setPermissions(
          target, llvm::sys::fs::all_read | llvm::sys::fs::all_exe | llvm::sys::fs::owner_write));
    } else {
      REQUIRE(!llvm::sys::fs::create_link(source, target));
    }
  }
  REQUIRE(!ec);
}

} // namespace

std::string copyToolkit(const std::string& dir) {
  llvm::SmallString<256> root, headers;
  REQUIRE(!llvm::sys::fs::real_path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(TLC_NVCC)), root));
  REQUIRE(!llvm::sys::fs::real_path(root + "/include", headers));
  mirrorToolkit(root.str().str(), dir, headers.str().str());
  return root.str().str();
}

std::string cudaInclude() {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  return toolkit->includeDir;
}

std::set<std::string> listFolder(const std::string& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    names.insert(llvm::sys::path::filename(it->path()).str());
  return names;
}

nlohmann::json manifestOf(const std::string& dir, const std::string& name) {
  return nlohmann::json::parse(readText(dir + "/" + name + ".json"));
}

std::string keptFolder(const ToolRun& build) {
  const std::string note = "tlc: note: kept temporary files in ";
  size_t at = build.err.find(note);
  REQUIRE(at != std::string::npos);
  return llvm::StringRef(build.err).substr(at + note.size()).split('\n').first.str();
}

CommandResult run(const std::vector<std::string>& argv) {
  auto result = runCommand(argv);
  REQUIRE_EXPECTED(result);
  return *result;
}

std::set<std::string> exportedSymbols(const std::string& library) {
  CommandResult nm = run({"nm", "-D", "--defined-only", "--format=just-symbols", library});
  REQUIRE(nm.exitCode == 0);
  std::set<std::string> symbols;
  llvm::SmallVector<llvm::StringRef, 32> lines;
  llvm::StringRef(nm.output).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines)
    symbols.insert(line.trim().str());
  return symbols;
}

// What lib<name>.so must export: the module API (tlc_<name>_*, from the one table that defines
// it) and one NAME_<launcher> per kernel.
std::set<std::string> apiOf(const std::string& name, std::initializer_list<std::string> launchers) {
  std::set<std::string> api;
  for (const tlc::ModuleApiFunction& function : tlc::moduleApi())
    api.insert("tlc_" + name + "_" + function.name);
  for (const std::string& launcher : launchers)
    api.insert(name + "_" + launcher);
  return api;
}

// The image in `out` holds an entry of each kind the manifest's targets name, and every entry
// (cubin or PTX) holds exactly the manifest's kernels.
namespace {

// The target code of one part of an image: sm_90a, compute_80 (a lone cubin's ELF flags do not
// say 'a', so `exact` is false there).
std::string targetCodeOf(const ImageContents::Part& part, bool& exact) {
  exact = part.entry.ptx || part.entry.archSpecific;
  unsigned arch = part.entry.ptx ? part.entry.arch : part.info.sm;
  return (part.entry.ptx ? "compute_" : "sm_") + std::to_string(arch) +
         (part.entry.archSpecific ? "a" : "");
}

// A family target's part (sm_100f, compute_100f) reads as its base GPU: FatbinEntry does not
// keep the family flag.
bool sameTarget(const std::string& code, const std::string& target, bool exact) {
  llvm::StringRef name(target);
  return exact && !name.ends_with("f") ? code == target : name.rtrim("af") == code;
}

} // namespace

void checkImageMatchesManifest(const std::string& out, const nlohmann::json& manifest) {
  auto image =
      readDeviceImageFile(out + "/" + manifest["outputs"]["image"]["file"].get<std::string>());
  REQUIRE_EXPECTED(image);
  std::set<std::string> known;
  for (const nlohmann::json& other : manifest["other_entries"])
    known.insert(other.get<std::string>());
  for (const nlohmann::json& kernel : manifest["kernels"])
    known.insert(kernel["symbol"].get<std::string>());
  bool relocatable = manifest["inputs"].size() > 1 ||
                     manifest["commands"].dump().find("-dlink") != std::string::npos;
  std::set<std::string> kinds, targetKinds;
  std::map<std::string, std::set<std::string>> inPart; // target code -> its entries
  for (const ImageContents::Part& part : image->parts) {
    bool exact = false;
    std::string code = targetCodeOf(part, exact);
    for (const ImageEntry& entry : part.info.entries) {
      inPart[code].insert(entry.symbol);
      // Every entry is a kernel of the module, or code the device link added (the device
      // runtime's own kernels, for dynamic parallelism).
      bool linkedIn = relocatable && !part.entry.ptx &&
                      llvm::StringRef(entry.symbol).contains("cuda_device_runtime");
      INFO("entry " << entry.symbol << " of " << code);
      CHECK((known.count(entry.symbol) || linkedIn));
    }
    kinds.insert(part.entry.ptx ? "ptx" : "sass");
  }
  for (const nlohmann::json& target : manifest["targets"])
    targetKinds.insert(target["kind"].get<std::string>());
  CHECK(kinds == targetKinds);
  // Every kernel is in every part of the targets the manifest says hold it (relocatable PTX is
  // one part per input: the union of a target's parts counts).
  for (const nlohmann::json& kernel : manifest["kernels"]) {
    std::string symbol = kernel["symbol"].get<std::string>();
    for (const nlohmann::json& target : kernel["targets"]) {
      bool found = false;
      for (const auto& [code, entries] : inPart)
        found |= sameTarget(code, target.get<std::string>(),
                            code.back() == 'a' || code.rfind("compute_", 0) == 0) &&
                 entries.count(symbol);
      INFO("kernel " << symbol << " in target " << target);
      CHECK(found);
    }
  }
}

ToolRun buildOk(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"build"};
  all.insert(all.end(), args.begin(), args.end());
  ToolRun build = runTlc(all);
  INFO(build.err);
  REQUIRE(build.exitCode == 0);
  return build;
}

BuildOptions buildOptions(std::vector<std::string> args) {
  args.insert(args.begin(), "build");
  auto line = parseCommandLine(args);
  REQUIRE_EXPECTED(line);
  BuildOptions options = line->build;
  InstallLayout layout = installLayoutOf(TLC_BINARY);
  options.sources.frontend.tlcIncludeDir = layout.includeDir();
  options.sources.frontend.hostIncludeDir = hostCompilerIncludeDir();
  options.templateDir = layout.templatesDir();
  options.runtimeLibrary = layout.runtimeLibrary();
  options.pythonLibrary = layout.pythonLibrary();
  options.pythonHelpersDir = layout.pythonHelpersDir();
  return options;
}

} // namespace tlc::test
