// Planning the nvcc commands of a build (compile, device link, fatbinary) and checking images.
#include "build/DeviceBuild.h"

#include "build/DeviceImage.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <set>

namespace tlc {

std::string archNumber(const std::string& arch) {
  llvm::StringRef number(arch);
  number.consume_front("sm_");
  return number.str();
}

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

// -gencode rather than -arch: with -arch=sm_90a, nvcc 13 is reported to also run a plain
// sm_90 pass that rejects sm_90a-only instructions.
static std::vector<std::string> targetFlags(const std::string& arch) {
  if (arch.empty())
    return {};
  return {"-gencode=arch=compute_" + archNumber(arch) + ",code=" + arch};
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
  for (const std::string& define : options.defines)
    flags.push_back("-D" + define);
  for (const std::string& flag : options.nvccFlags)
    if (!isRelocatableFlag(flag))
      flags.push_back(flag);
  return flags;
}

// nvcc, under the compiler launcher (ccache, sccache) if one was given.
static std::vector<std::string> nvccCommand(const DeviceBuildOptions& options,
                                            const CudaToolkit& toolkit) {
  std::vector<std::string> argv = options.launcher;
  argv.push_back(toolkit.nvcc);
  return argv;
}

DevicePlan planDeviceBuild(const DeviceBuildOptions& options, const CudaToolkit& toolkit) {
  DevicePlan plan;
  // Compiler caches (ccache, sccache) cache only `nvcc -c`: under a launcher every input is
  // compiled to a relocatable object and device-linked, the form they can reuse.
  bool cacheable = !options.launcher.empty();
  plan.relocatable =
      options.inputs.size() > 1 || wantsRelocatable(options.nvccFlags) || cacheable;
  std::vector<std::string> archs = options.archs;
  if (archs.empty())
    archs.push_back(""); // nvcc's default target
  std::vector<std::string> flags = commonFlags(options);
  auto inWork = [&](const std::string& file) { return options.workDir + "/" + file; };

  for (const std::string& arch : archs) {
    std::string label = arch.empty() ? options.defaultArch : arch;
    std::string cubin = inWork(options.name + "." + label + ".cubin");
    plan.cubins.push_back(cubin);
    auto compileStep = [&](const std::string& input, const std::string& output) {
      Step compile{"nvcc " + llvm::sys::path::filename(input).str() + " (" + label + ")",
                   nvccCommand(options, toolkit), output};
      if (cacheable)
        compile.argv.insert(compile.argv.end(), {"-c", "-rdc=true"});
      else if (plan.relocatable)
        compile.argv.insert(compile.argv.end(), {"-cubin", "-rdc=true"});
      else
        compile.argv.push_back("-cubin");
      for (const std::string& f : targetFlags(arch))
        compile.argv.push_back(f);
      compile.argv.insert(compile.argv.end(), flags.begin(), flags.end());
      if (auto it = options.inputFlags.find(input); it != options.inputFlags.end())
        compile.argv.insert(compile.argv.end(), it->second.begin(), it->second.end());
      compile.argv.insert(compile.argv.end(), {"-MD", "-MF", output + ".d", input, "-o", output});
      plan.dependencyFiles.push_back(output + ".d");
      return compile;
    };
    if (!plan.relocatable) {
      plan.compiles.push_back(compileStep(options.inputs[0], cubin));
      continue;
    }
    Step link{"device link (" + label + ")", nvccCommand(options, toolkit), cubin};
    link.argv.insert(link.argv.end(), {"-dlink", "-cubin", "-Xnvlink", "-ignore-host-info"});
    for (const std::string& f : targetFlags(arch))
      link.argv.push_back(f);
    for (size_t i = 0; i < options.inputs.size(); ++i) {
      const std::string& input = options.inputs[i];
      // The index keeps a.cu and other/a.cu apart.
      std::string object = inWork(std::to_string(i) + "-" + llvm::sys::path::stem(input).str() +
                                  "." + label + (cacheable ? ".o" : ".rdc.cubin"));
      plan.compiles.push_back(compileStep(input, object));
      link.argv.push_back(object);
    }
    link.argv.insert(link.argv.end(), {"-o", cubin});
    plan.links.push_back(std::move(link));
  }

  if (archs.size() == 1) {
    plan.image = plan.cubins.front();
    return plan;
  }
  plan.image = inWork(options.name + ".fatbin");
  Step package{"fatbinary (" + std::to_string(archs.size()) + " archs)",
               {toolkit.fatbinary, "--create=" + plan.image, "-64"},
               plan.image};
  for (size_t i = 0; i < archs.size(); ++i)
    package.argv.push_back("--image3=kind=elf,sm=" + archNumber(archs[i]) +
                           ",file=" + plan.cubins[i]);
  plan.package = std::move(package);
  return plan;
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

llvm::Expected<std::vector<unsigned>> verifyImages(const DevicePlan& plan,
                                                   const std::vector<std::string>& archs,
                                                   const Module& module) {
  std::set<std::string> expected(module.otherEntries.begin(), module.otherEntries.end());
  for (const Kernel& kernel : module.kernels)
    expected.insert(kernel.symbol);
  std::vector<unsigned> sms;
  for (size_t i = 0; i < plan.cubins.size(); ++i) {
    auto image = readCubinFile(plan.cubins[i]);
    if (!image)
      return image.takeError();
    sms.push_back(image->sm);
    std::set<std::string> found;
    for (const ImageEntry& entry : image->entries)
      found.insert(entry.symbol);
    if (found == expected)
      continue;
    std::set<std::string> missing, unknown;
    std::set_difference(expected.begin(), expected.end(), found.begin(), found.end(),
                        std::inserter(missing, missing.end()));
    std::set_difference(found.begin(), found.end(), expected.begin(), expected.end(),
                        std::inserter(unknown, unknown.end()));
    std::string arch = i < archs.size() ? archs[i] : "sm_" + std::to_string(image->sm);
    return internalError(
        "the " + arch + " image does not hold exactly the extracted kernels (kernels that exist "
        "only for some archs, e.g. under #if __CUDA_ARCH__, are not supported)\n  missing from "
        "the image:" + joined(missing) + "\n  in the image but not extracted:" + joined(unknown) +
        "\n  extracted:" + joined(expected) + "\n  in the image:" + joined(found));
  }
  return sms;
}

} // namespace tlc
