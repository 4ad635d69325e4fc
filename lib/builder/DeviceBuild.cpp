// Planning the nvcc commands of a build (compile, device link, fatbinary) and checking images.
#include "builder/DeviceBuild.h"

#include "builder/DeviceImage.h"
#include "frontend/NvccOptions.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace tlc {

// A user's flag asking for relocatable device code (-rdc=true, -dc). tlc decides how to compile
// (DeviceBuild.h), so these select that mode and are not passed on; nor is -rdc=false.
static bool isRelocatableFlag(llvm::StringRef flag) {
  const NvccOption* option = findNvccOption(flag.split('=').first);
  return option && (option->is("--relocatable-device-code") || option->is("--device-c"));
}

static bool wantsRelocatable(const std::vector<std::string>& flags) {
  return std::any_of(flags.begin(), flags.end(), [](llvm::StringRef flag) {
    return isRelocatableFlag(flag) && !flag.ends_with("=false");
  });
}

static std::vector<std::string> commonFlags(const DeviceBuildOptions& options) {
  std::vector<std::string> flags;
  if (!hasNvccOption(options.nvccFlags, "--optimize"))
    flags.push_back("-O3");
  flags.push_back("-std=" + options.standard);
  // nvcc's warnings are the user's: its "declared but never referenced" (#177) for a static
  // kernel, which the launcher library launches, is dropped from what it printed instead
  // (NvccMessages.h), not the warning for every variable.
  // -I, -isystem, -include, -D and -U, in the order given.
  flags.insert(flags.end(), options.preprocessorFlags.begin(), options.preprocessorFlags.end());
  if (!options.tlcIncludeDir.empty())
    flags.push_back("-I" + options.tlcIncludeDir);
  for (const std::string& flag : options.nvccFlags)
    if (!isRelocatableFlag(flag))
      flags.push_back(flag);
  return flags;
}

bool wantsDeviceDebugInfo(const std::vector<std::string>& nvccFlags) {
  return std::any_of(nvccFlags.begin(), nvccFlags.end(), [](llvm::StringRef flag) {
    return flag == "-lineinfo" || flag == "--generate-line-info" || flag == "-G" ||
           flag == "--device-debug";
  });
}

// -G alone: its images record ptxas's command line (-lineinfo's do not).
static bool wantsDeviceDebug(const std::vector<std::string>& nvccFlags) {
  return std::any_of(nvccFlags.begin(), nvccFlags.end(),
                     [](llvm::StringRef flag) { return flag == "-G" || flag == "--device-debug"; });
}

bool relocatableCode(size_t inputs, const std::vector<std::string>& nvccFlags,
                     bool compilerLauncher) {
  return inputs > 1 || wantsRelocatable(nvccFlags) || compilerLauncher;
}

llvm::Error extractPtx(const PtxExtraction& extraction) {
  auto contents = readDeviceImageFile(extraction.object);
  if (!contents)
    return contents.takeError();
  std::string text = extraction.target.number(); // kept: the StringRef below must not outlive it
  llvm::StringRef number = text;
  unsigned arch = 0;
  number.take_while(llvm::isDigit).getAsInteger(10, arch);
  bool archSpecific = number.ends_with("a");
  for (const ImageContents::Part& part : contents->parts)
    if (part.entry.ptx && part.entry.arch == arch && part.entry.archSpecific == archSpecific)
      return writeFile(extraction.ptx, part.text);
  return internalError("nvcc left no " + extraction.target.code + " PTX in '" + extraction.object +
                       "'");
}

llvm::Error extractPtx(const DevicePlan& plan) {
  for (const PtxExtraction& extraction : plan.ptxExtractions)
    if (llvm::Error error = extractPtx(extraction))
      return error;
  return llvm::Error::success();
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
    DebugInfo = wantsDeviceDebugInfo(options.nvccFlags);
    Debug = wantsDeviceDebug(options.nvccFlags);
    Plan.relocatable =
        options.relocatable || relocatableCode(options.inputs.size(), options.nvccFlags, Cacheable);
  }

  // Like `nvcc -arch=sm_90a`, one nvcc run per input compiles every target: the front end runs
  // once per virtual arch, not once per target.
  DevicePlan plan() {
    const std::vector<GpuTarget>& targets = Options.targets;
    bool oneCubin = targets.size() == 1 && !targets.front().ptx();
    if (!Plan.relocatable)
      return oneCubin ? wholeProgramCubin() : wholeProgramFatbin();
    std::vector<std::string> objects = compileRelocatable();
    for (const GpuTarget& target : targets)
      Plan.targets.push_back(target.ptx() ? relocatablePtx(target, objects)
                                          : linked(target, objects));
    if (oneCubin) {
      Plan.image = absolute(Plan.targets.front().files.front());
      return std::move(Plan);
    }
    package();
    return std::move(Plan);
  }

private:
  // Outputs are named relative to the work folder, where the tools run.
  std::string inWork(const std::string& file) const { return file; }
  // The same file, for tlc itself.
  std::string absolute(const std::string& file) const {
    return Options.workDir.empty() ? file : Options.workDir + "/" + file;
  }

  // nvcc's environment beyond the build's: with device debug info, PWD names the folder it runs
  // in as /proc/self/cwd, the same in every build, which cicc records as -G's compilation
  // folder (DW_AT_comp_dir: LLVM takes $PWD where it is the current folder, else the folder's
  // path, here the work folder's, which no two builds share). Every file the image names is
  // absolute then (ToolPaths.h), so that folder resolves nothing.
  void addEnvironment(Step& step) const {
    if (DebugInfo)
      step.environment.push_back("PWD=/proc/self/cwd");
  }

  // nvcc, under the compiler launcher (ccache, sccache) if one was given.
  std::vector<std::string> nvcc() const {
    std::vector<std::string> argv = Options.launcher;
    argv.push_back(Options.nvcc.empty() ? Toolkit.nvcc : Options.nvcc);
    return argv;
  }

  bool inUserFolder() const { return !Options.userFolder.empty(); }

  // An argument of a compile as nvcc gets it: a name in the work folder (alone, or joined to
  // -I) by its absolute path when nvcc runs in the user's folder; the user's own spellings,
  // which never start like tlc's names (ToolPaths::usableAsTyped), as they are.
  std::string forCompile(const std::string& arg) const {
    if (!inUserFolder())
      return arg;
    llvm::StringRef rest = arg;
    bool joined = rest.consume_front("-I");
    if (!Options.workNames.count(rest.split('/').first.str()))
      return arg;
    return (joined ? "-I" : "") + Options.workDir + "/" + rest.str();
  }

  std::vector<std::string> forCompile(std::vector<std::string> args) const {
    for (std::string& arg : args)
      arg = forCompile(arg);
    return args;
  }

  // -gencode flags for `targets`, one per virtual arch: arch=compute_90a,code=[sm_90a,compute_90a].
  static std::vector<std::string> gencodes(const std::vector<GpuTarget>& targets) {
    std::vector<std::pair<std::string, std::vector<std::string>>> byVirtual;
    for (const GpuTarget& target : targets) {
      auto it = std::find_if(byVirtual.begin(), byVirtual.end(),
                             [&](const auto& entry) { return entry.first == target.virtualArch; });
      if (it == byVirtual.end())
        byVirtual.push_back({target.virtualArch, {target.code}});
      else
        it->second.push_back(target.code);
    }
    std::vector<std::string> flags;
    for (const auto& [virtualArch, codes] : byVirtual)
      flags.push_back("-gencode=arch=" + virtualArch + ",code=[" + llvm::join(codes, ",") + "]");
    return flags;
  }

  static std::string codesOf(const std::vector<GpuTarget>& targets) {
    std::vector<std::string> codes;
    for (const GpuTarget& target : targets)
      codes.push_back(target.code);
    return llvm::join(codes, ", ");
  }

  Step compile(const std::string& input, const std::vector<GpuTarget>& targets,
               std::vector<std::string> mode, const std::string& output) {
    size_t index = indexOf(input);
    std::string shown = index < Options.inputNames.size()
                            ? Options.inputNames[index]
                            : llvm::sys::path::filename(Options.inputs[index]).str();
    Step step{"nvcc " + shown + " (" + codesOf(targets) + ")",
              forCompile(nvcc()),
              output,
              Options.workDir,
              {}};
    step.compilesSources = true;
    step.runIn = Options.userFolder;
    // Each build works in a folder of its own, and its commands name nothing outside it: a
    // compiler cache must not tell builds apart by their folder.
    if (Cacheable)
      step.environment.push_back("CCACHE_NOHASHDIR=1");
    addEnvironment(step);
    step.argv.insert(step.argv.end(), mode.begin(), mode.end());
    for (const std::string& flag : gencodes(targets))
      step.argv.push_back(flag);
    // `#include "x.h"` finds x.h beside the original input before any -I folder, as it would
    // for nvcc given the original path (the input itself is a copy, ToolPaths.h).
    if (index < Options.inputDirs.size() && !Options.inputDirs[index].empty())
      step.argv.push_back(forCompile("-I" + Options.inputDirs[index]));
    for (const std::string& flag : Flags)
      step.argv.push_back(forCompile(flag));
    if (auto it = Options.inputFlags.find(input); it != Options.inputFlags.end())
      for (const std::string& flag : it->second)
        step.argv.push_back(forCompile(flag));
    // The path nvcc would hash had it compiled the original, not the copy: cicc names the
    // input's internal-linkage symbols from it, and so does cudafe++ for `-c` (its module ID).
    // Given after nvcc's own, which they replace; one argument each, as compiler caches must
    // not take the path for a second input.
    if (index < Options.hashedPaths.size() && !Options.hashedPaths[index].empty())
      for (const char* tool : {"-Xcicc=", "-Xcudafe="})
        step.argv.push_back(tool + std::string("--orig_src_path_name,") +
                            Options.hashedPaths[index]);
    // With -G, ptxas records its command line in the image, input included: nvcc's temporary
    // `tmpxft_<pid>_..._k.ptx` would make every build's image differ. Kept intermediates are
    // named after the input instead (`k.ptx`), in the input's own folder of the work folder
    // (where its copy is, if any), which no other input shares. (Under a compiler launcher the
    // cached object is the same every time anyway.)
    if (Debug && !Cacheable && index < Options.inputWorkDirs.size())
      step.argv.insert(step.argv.end(),
                       {"--keep", "--keep-dir", forCompile(Options.inputWorkDirs[index])});
    // No -MD: nvcc would preprocess the input once more, as host code, for headers the image
    // does not depend on; the parse lists the headers of the device side (Build.cpp).
    step.argv.insert(step.argv.end(),
                     {forCompile(input), "-o", inUserFolder() ? absolute(output) : output});
    return step;
  }

  size_t indexOf(const std::string& input) const {
    return static_cast<size_t>(std::find(Options.inputs.begin(), Options.inputs.end(), input) -
                               Options.inputs.begin());
  }

  // An image of one cubin is that cubin, under the name NAME_image.S embeds it by.
  std::string cubinName(const GpuTarget& target) const {
    bool wholeImage = Options.targets.size() == 1;
    return inWork(Options.name + (wholeImage ? "" : "." + target.code) + ".cubin");
  }

  DevicePlan wholeProgramCubin() {
    const GpuTarget& target = Options.targets.front();
    std::string cubin = cubinName(target);
    Plan.compiles.push_back(compile(Options.inputs[0], Options.targets, {"-cubin"}, cubin));
    Plan.targets.push_back({target, {cubin}, {}});
    Plan.image = absolute(cubin);
    return std::move(Plan);
  }

  // The image straight from nvcc, uncompressed: the runtime reads its entries, and so does tlc.
  DevicePlan wholeProgramFatbin() {
    std::string fatbin = inWork(Options.name + ".fatbin");
    Plan.image = absolute(fatbin);
    Plan.fatbin = true;
    Plan.compiles.push_back(
        compile(Options.inputs[0], Options.targets, {"-fatbin", "--no-compress"}, fatbin));
    for (const GpuTarget& target : Options.targets)
      Plan.targets.push_back({target, {fatbin}, {}});
    return std::move(Plan);
  }

  // Each input compiled once for every target, as relocatable device code: a fatbin (`.fatbin`
  // is the name nvcc's device linker recognises), or under a compiler launcher a host object.
  // Uncompressed, so tlc can read each input's entries from it.
  std::vector<std::string> compileRelocatable() {
    std::vector<std::string> objects;
    for (size_t i = 0; i < Options.inputs.size(); ++i) {
      // The index keeps a.cu and other/a.cu apart.
      std::string object =
          inWork(std::to_string(i) + "-" + llvm::sys::path::stem(Options.inputs[i]).str() +
                 (Cacheable ? ".o" : ".fatbin"));
      std::vector<std::string> mode = {Cacheable ? "-c" : "-fatbin", "-rdc=true", "--no-compress"};
      Plan.compiles.push_back(compile(Options.inputs[i], Options.targets, mode, object));
      objects.push_back(object);
    }
    return objects;
  }

  // The objects as tlc reads them.
  std::vector<std::string> absolute(const std::vector<std::string>& files) const {
    std::vector<std::string> paths;
    for (const std::string& file : files)
      paths.push_back(absolute(file));
    return paths;
  }

  TargetImage linked(const GpuTarget& target, const std::vector<std::string>& objects) {
    std::string cubin = cubinName(target);
    Step link{"device link (" + target.code + ")", nvcc(), cubin, Options.workDir, {}};
    addEnvironment(link);
    link.argv.insert(link.argv.end(),
                     {"-dlink", "-cubin", "-Xnvlink", "-ignore-host-info", target.gencode()});
    link.argv.insert(link.argv.end(), objects.begin(), objects.end());
    link.argv.insert(link.argv.end(), {"-o", cubin});
    Plan.links.push_back(std::move(link));
    return {target, {cubin}, absolute(objects)};
  }

  // nvlink cannot link PTX: each input's relocatable PTX is taken out of its object as it is
  // (PtxExtraction), and the runtime links them for the device (runtime/src/Link.cpp).
  TargetImage relocatablePtx(const GpuTarget& target, const std::vector<std::string>& objects) {
    TargetImage image{target, {}, absolute(objects)};
    for (size_t i = 0; i < objects.size(); ++i) {
      std::string ptx = objects[i] + "." + target.code + ".ptx";
      Plan.ptxExtractions.push_back({absolute(objects[i]), target, absolute(ptx)});
      image.files.push_back(ptx);
    }
    return image;
  }

  void package() {
    std::string fatbin = inWork(Options.name + ".fatbin");
    Plan.image = absolute(fatbin);
    Plan.fatbin = true;
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
  }

  const DeviceBuildOptions& Options;
  const CudaToolkit& Toolkit;
  std::vector<std::string> Flags;
  bool Cacheable = false;
  bool DebugInfo = false; // -lineinfo or -G among the flags
  bool Debug = false;     // -G among them
  DevicePlan Plan;
};

} // namespace

DevicePlan planDeviceBuild(const DeviceBuildOptions& options, const CudaToolkit& toolkit) {
  return DevicePlanner(options, toolkit).plan();
}

} // namespace tlc
