// Planning the nvcc commands of a build (compile, device link, fatbinary) and checking images.
#include "build/DeviceBuild.h"

#include "build/DeviceImage.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace tlc {

// A user's flag asking for relocatable device code. tlc decides how to compile (DeviceBuild.h),
// so these select that mode and are not passed on.
static bool isRelocatableFlag(llvm::StringRef flag) {
  return flag == "-rdc=true" || flag == "--relocatable-device-code=true" || flag == "-dc" ||
         flag == "--device-c";
}

static bool wantsRelocatable(const std::vector<std::string>& flags) {
  return std::any_of(flags.begin(), flags.end(),
                     [](llvm::StringRef flag) { return isRelocatableFlag(flag); });
}

static bool setsOptimization(const std::vector<std::string>& flags) {
  return std::any_of(flags.begin(), flags.end(),
                     [](llvm::StringRef flag) { return flag.starts_with("-O"); });
}

static std::vector<std::string> commonFlags(const DeviceBuildOptions& options) {
  std::vector<std::string> flags;
  if (!setsOptimization(options.nvccFlags))
    flags.push_back("-O3");
  flags.push_back("-std=" + options.standard);
  // "declared but never referenced" (#177) for every static kernel: no host code in the input
  // launches them, the launcher library does.
  flags.push_back("-diag-suppress=177");
  for (const std::string& dir : options.includeDirs)
    flags.push_back("-I" + dir);
  if (!options.tlcIncludeDir.empty())
    flags.push_back("-I" + options.tlcIncludeDir);
  for (const std::string& define : options.defines)
    flags.push_back("-D" + define);
  for (const std::string& flag : options.nvccFlags)
    if (!isRelocatableFlag(flag))
      flags.push_back(flag);
  return flags;
}

bool relocatableCode(size_t inputs, const std::vector<std::string>& nvccFlags,
                     bool compilerLauncher) {
  return inputs > 1 || wantsRelocatable(nvccFlags) || compilerLauncher;
}

std::string imageFileName(const std::string& name, const std::vector<GpuTarget>& targets) {
  bool oneCubin = targets.size() == 1 && !targets.front().ptx();
  return name + (oneCubin ? ".cubin" : ".fatbin");
}

namespace {

class DevicePlanner {
public:
  DevicePlanner(const DeviceBuildOptions& options, const CudaToolkit& toolkit)
      : Options(options), Toolkit(toolkit), Flags(commonFlags(options)) {
    // Compiler caches (ccache, sccache) cache only `nvcc -c`: under a launcher every input is
    // compiled to a relocatable object and device-linked, the form they can reuse.
    Cacheable = !options.launcher.empty();
    Plan.relocatable = options.relocatable ||
                       relocatableCode(options.inputs.size(), options.nvccFlags, Cacheable);
  }

  DevicePlan plan() {
    for (const GpuTarget& target : Options.targets)
      Plan.targets.push_back(target.ptx() ? planPtx(target) : planSass(target));
    if (Options.targets.size() == 1 && !Options.targets.front().ptx()) {
      Plan.image = Plan.targets.front().files.front();
      return std::move(Plan);
    }
    Plan.image = inWork(Options.name + ".fatbin");
    // Uncompressed: the runtime reads relocatable PTX entries itself to link them.
    Step package{"fatbinary (" + std::to_string(Options.targets.size()) + " targets)",
                 {Toolkit.fatbinary, "--create=" + Plan.image, "-64", "--compress=false"},
                 Plan.image};
    for (const TargetImage& image : Plan.targets)
      for (const std::string& file : image.files)
        package.argv.push_back("--image3=kind=" + std::string(image.target.ptx() ? "ptx" : "elf") +
                               ",sm=" + image.target.number() + ",file=" + file);
    Plan.package = std::move(package);
    return std::move(Plan);
  }

private:
  std::string inWork(const std::string& file) const { return Options.workDir + "/" + file; }

  // nvcc, under the compiler launcher (ccache, sccache) if one was given.
  std::vector<std::string> nvcc() const {
    std::vector<std::string> argv = Options.launcher;
    argv.push_back(Toolkit.nvcc);
    return argv;
  }

  Step compile(const std::string& input, const GpuTarget& target,
               std::vector<std::string> mode, const std::string& output) {
    Step step{"nvcc " + llvm::sys::path::filename(input).str() + " (" + target.code + ")",
              nvcc(), output};
    step.compilesSources = true;
    step.argv.insert(step.argv.end(), mode.begin(), mode.end());
    step.argv.push_back(target.gencode());
    step.argv.insert(step.argv.end(), Flags.begin(), Flags.end());
    if (auto it = Options.inputFlags.find(input); it != Options.inputFlags.end())
      step.argv.insert(step.argv.end(), it->second.begin(), it->second.end());
    step.argv.insert(step.argv.end(), {"-MD", "-MF", output + ".d", input, "-o", output});
    Plan.dependencyFiles.push_back(output + ".d");
    return step;
  }

  // The index keeps a.cu and other/a.cu apart.
  std::string objectName(size_t index, const GpuTarget& target, const char* suffix) const {
    return inWork(std::to_string(index) + "-" +
                  llvm::sys::path::stem(Options.inputs[index]).str() + "." + target.code +
                  suffix);
  }

  TargetImage planSass(const GpuTarget& target) {
    std::string cubin = inWork(Options.name + "." + target.code + ".cubin");
    if (!Plan.relocatable) {
      Plan.compiles.push_back(compile(Options.inputs[0], target, {"-cubin"}, cubin));
      return {target, {cubin}};
    }
    Step link{"device link (" + target.code + ")", nvcc(), cubin};
    link.argv.insert(link.argv.end(),
                     {"-dlink", "-cubin", "-Xnvlink", "-ignore-host-info", target.gencode()});
    std::vector<std::string> objects;
    for (size_t i = 0; i < Options.inputs.size(); ++i) {
      std::string object = objectName(i, target, Cacheable ? ".o" : ".rdc.cubin");
      // A host object's fatbin uncompressed, so tlc can read the input's entries from it.
      std::vector<std::string> mode =
          Cacheable ? std::vector<std::string>{"-c", "-rdc=true", "--no-compress"}
                    : std::vector<std::string>{"-cubin", "-rdc=true"};
      Plan.compiles.push_back(compile(Options.inputs[i], target, mode, object));
      link.argv.push_back(object);
      objects.push_back(object);
    }
    link.argv.insert(link.argv.end(), {"-o", cubin});
    Plan.links.push_back(std::move(link));
    return {target, {cubin}, objects};
  }

  TargetImage planPtx(const GpuTarget& target) {
    TargetImage image{target, {}};
    if (!Plan.relocatable) {
      std::string ptx = inWork(Options.name + "." + target.code + ".ptx");
      Plan.compiles.push_back(compile(Options.inputs[0], target, {"-ptx"}, ptx));
      image.files.push_back(ptx);
      return image;
    }
    for (size_t i = 0; i < Options.inputs.size(); ++i) {
      std::string ptx = objectName(i, target, ".rdc.ptx");
      Plan.compiles.push_back(compile(Options.inputs[i], target, {"-ptx", "-rdc=true"}, ptx));
      image.files.push_back(ptx);
    }
    image.perInput = image.files;
    return image;
  }

  const DeviceBuildOptions& Options;
  const CudaToolkit& Toolkit;
  std::vector<std::string> Flags;
  bool Cacheable = false;
  DevicePlan Plan;
};

} // namespace

DevicePlan planDeviceBuild(const DeviceBuildOptions& options, const CudaToolkit& toolkit) {
  return DevicePlanner(options, toolkit).plan();
}

std::vector<std::string> readDependencyFile(const std::string& path) {
  std::vector<std::string> files;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return files;
  llvm::StringRef text = (*buffer)->getBuffer().split(':').second; // after "target :"
  std::string current;
  auto flush = [&] {
    if (!current.empty())
      files.push_back(current);
    current.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '\\' && (next == '\n' || next == '\r')) {
      flush(); // a line continuation
      ++i;
    } else if (c == '\\' && next == ' ') {
      current += ' '; // an escaped space inside a path
      ++i;
    } else if (llvm::isSpace(c)) {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return files;
}

} // namespace tlc
