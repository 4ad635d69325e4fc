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
  for (const std::string& dir : options.includeDirs)
    flags.push_back("-I" + dir);
  if (!options.tlcIncludeDir.empty())
    flags.push_back("-I" + options.tlcIncludeDir);
  for (const std::string& define : options.defines) // -D and -U flags, as they are
    flags.push_back(define);
  for (const std::string& flag : options.nvccFlags)
    if (!isRelocatableFlag(flag))
      flags.push_back(flag);
  return flags;
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
    Plan.relocatable =
        options.inputs.size() > 1 || wantsRelocatable(options.nvccFlags) || Cacheable;
  }

  DevicePlan plan() {
    for (const GpuTarget& target : Options.targets)
      Plan.targets.push_back(target.ptx() ? planPtx(target) : planSass(target));
    if (Options.targets.size() == 1 && !Options.targets.front().ptx()) {
      Plan.image = absolute(Plan.targets.front().files.front());
      return std::move(Plan);
    }
    std::string fatbin = inWork(Options.name + ".fatbin");
    Plan.image = absolute(fatbin);
    // Uncompressed: the runtime reads relocatable PTX entries itself to link them.
    Step package{"fatbinary (" + std::to_string(Options.targets.size()) + " targets)",
                 {Toolkit.fatbinary, "--create=" + fatbin, "-64", "--compress=false"},
                 fatbin,
                 Options.workDir,
                 {}};
    for (const TargetImage& image : Plan.targets)
      for (const std::string& file : image.files)
        package.argv.push_back("--image3=kind=" + std::string(image.target.ptx() ? "ptx" : "elf") +
                               ",sm=" + image.target.number() + ",file=" + file);
    Plan.package = std::move(package);
    return std::move(Plan);
  }

private:
  // Outputs are named relative to the work folder, where the tools run.
  std::string inWork(const std::string& file) const { return file; }
  // The same file, for tlc itself.
  std::string absolute(const std::string& file) const {
    return Options.workDir.empty() ? file : Options.workDir + "/" + file;
  }

  // nvcc, under the compiler launcher (ccache, sccache) if one was given.
  std::vector<std::string> nvcc() const {
    std::vector<std::string> argv = Options.launcher;
    argv.push_back(Toolkit.nvcc);
    return argv;
  }

  Step compile(const std::string& input, const GpuTarget& target, std::vector<std::string> mode,
               const std::string& output) {
    size_t index = indexOf(input);
    std::string shown = index < Options.inputNames.size()
                            ? Options.inputNames[index]
                            : llvm::sys::path::filename(Options.inputs[index]).str();
    Step step{"nvcc " + shown + " (" + target.code + ")", nvcc(), output, Options.workDir, {}};
    // Each build works in a folder of its own, and its commands name nothing outside it: a
    // compiler cache must not tell builds apart by their folder.
    if (Cacheable)
      step.environment.push_back("CCACHE_NOHASHDIR=1");
    step.argv.insert(step.argv.end(), mode.begin(), mode.end());
    step.argv.push_back(target.gencode());
    // `#include "x.h"` finds x.h beside the original input before any -I folder, as it would
    // for nvcc given the original path (the input itself is a copy, ToolPaths.h).
    if (index < Options.inputDirs.size())
      step.argv.push_back("-I" + Options.inputDirs[index]);
    step.argv.insert(step.argv.end(), Flags.begin(), Flags.end());
    if (auto it = Options.inputFlags.find(input); it != Options.inputFlags.end())
      step.argv.insert(step.argv.end(), it->second.begin(), it->second.end());
    step.argv.insert(step.argv.end(), {"-MD", "-MF", output + ".d", input, "-o", output});
    Plan.dependencyFiles.push_back(output + ".d");
    return step;
  }

  size_t indexOf(const std::string& input) const {
    return static_cast<size_t>(std::find(Options.inputs.begin(), Options.inputs.end(), input) -
                               Options.inputs.begin());
  }

  // The index keeps a.cu and other/a.cu apart.
  std::string objectName(size_t index, const GpuTarget& target, const char* suffix) const {
    return inWork(std::to_string(index) + "-" +
                  llvm::sys::path::stem(Options.inputs[index]).str() + "." + target.code +
                  suffix);
  }

  TargetImage planSass(const GpuTarget& target) {
    // An image of one cubin is that cubin, under the name NAME_image.S embeds it by.
    bool wholeImage = Options.targets.size() == 1;
    std::string cubin = inWork(Options.name + (wholeImage ? "" : "." + target.code) + ".cubin");
    if (!Plan.relocatable) {
      Plan.compiles.push_back(compile(Options.inputs[0], target, {"-cubin"}, cubin));
      return {target, {cubin}};
    }
    Step link{"device link (" + target.code + ")", nvcc(), cubin, Options.workDir, {}};
    link.argv.insert(link.argv.end(),
                     {"-dlink", "-cubin", "-Xnvlink", "-ignore-host-info", target.gencode()});
    for (size_t i = 0; i < Options.inputs.size(); ++i) {
      std::string object = objectName(i, target, Cacheable ? ".o" : ".rdc.cubin");
      std::vector<std::string> mode = Cacheable ? std::vector<std::string>{"-c", "-rdc=true"}
                                                : std::vector<std::string>{"-cubin", "-rdc=true"};
      Plan.compiles.push_back(compile(Options.inputs[i], target, mode, object));
      link.argv.push_back(object);
    }
    link.argv.insert(link.argv.end(), {"-o", cubin});
    Plan.links.push_back(std::move(link));
    return {target, {cubin}};
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

static std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names)
    text += "\n    " + name;
  return text.empty() ? "\n    (none)" : text;
}

namespace {

// What identifies a target's entries inside the image: PTX or SASS, arch number, arch-specific.
struct TargetKey {
  bool ptx = false;
  unsigned arch = 0;
  bool archSpecific = false;
  bool operator<(const TargetKey& other) const {
    return std::tie(ptx, arch, archSpecific) <
           std::tie(other.ptx, other.arch, other.archSpecific);
  }
};

TargetKey keyOf(const GpuTarget& target) {
  TargetKey key{target.ptx(), 0, false};
  std::string text = target.number(); // kept: the StringRef below must not outlive it
  llvm::StringRef number = text;
  number.take_while(llvm::isDigit).getAsInteger(10, key.arch);
  key.archSpecific = number.ends_with("a");
  return key;
}

} // namespace

// Every target's entries in the image that ships (not its parts), against the parsed kernels.
llvm::Error verifyImages(const DevicePlan& plan, const Module& module) {
  std::set<std::string> expected(module.otherEntries.begin(), module.otherEntries.end());
  for (const Kernel& kernel : module.kernels)
    expected.insert(kernel.symbol);
  auto contents = readDeviceImageFile(plan.image);
  if (!contents)
    return contents.takeError();
  std::map<TargetKey, std::set<std::string>> entries; // relocatable PTX: the union of its files
  for (const ImageContents::Part& part : contents->parts) {
    TargetKey key{part.entry.ptx, part.entry.arch, part.entry.archSpecific};
    if (!part.entry.ptx)
      key.arch = part.info.sm; // a cubin says its own arch
    for (const ImageEntry& entry : part.info.entries)
      entries[key].insert(entry.symbol);
    entries[key]; // a part without entries still counts
  }
  for (const TargetImage& image : plan.targets) {
    // An image that is one cubin holds the one target (its ELF flags do not say 'a').
    auto found = plan.fatbin() ? entries.find(keyOf(image.target)) : entries.begin();
    if (found == entries.end())
      return internalError("the device image has no " + image.target.code + " entry");
    if (found->second == expected)
      continue;
    std::set<std::string> missing, unknown;
    std::set_difference(expected.begin(), expected.end(), found->second.begin(),
                        found->second.end(), std::inserter(missing, missing.end()));
    std::set_difference(found->second.begin(), found->second.end(), expected.begin(),
                        expected.end(), std::inserter(unknown, unknown.end()));
    return internalError(
        "the " + image.target.code + " image does not hold exactly the extracted kernels "
        "(kernels that exist only for some archs, e.g. under #if __CUDA_ARCH__, are not "
        "supported)\n  missing from the image:" + joined(missing) +
        "\n  in the image but not extracted:" + joined(unknown) + "\n  extracted:" +
        joined(expected) + "\n  in the image:" + joined(found->second));
  }
  return llvm::Error::success();
}

} // namespace tlc
