// Reading device images given as inputs, choosing each target's code among them, and planning the
// ptxas and fatbinary steps that make the build's image of them.
#include "builder/ImageInputs.h"

#include "builder/ImageKernels.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <set>

namespace tlc {

// Images larger than any a real build makes are refused before they are read whole.
constexpr uint64_t kImageReadLimit = uint64_t(1) << 30;

InputKind inputKindOf(llvm::StringRef path) {
  std::string suffix = llvm::sys::path::extension(path).lower();
  if (suffix == ".cubin")
    return InputKind::Cubin;
  if (suffix == ".fatbin")
    return InputKind::Fatbin;
  if (suffix == ".ptx")
    return InputKind::Ptx;
  if (suffix == ".h" || suffix == ".cuh" || suffix == ".hpp" || suffix == ".hxx")
    return InputKind::Declarations;
  return InputKind::Source;
}

bool isImageKind(InputKind kind) {
  return kind == InputKind::Cubin || kind == InputKind::Fatbin || kind == InputKind::Ptx;
}

bool hasImageInputs(const std::vector<std::string>& inputs) {
  return std::any_of(inputs.begin(), inputs.end(),
                     [](const std::string& input) { return isImageKind(inputKindOf(input)); });
}

std::vector<std::string> imageInputsOf(const std::vector<std::string>& inputs) {
  std::vector<std::string> images;
  for (const std::string& input : inputs)
    if (isImageKind(inputKindOf(input)))
      images.push_back(input);
  return images;
}

std::vector<std::string> declarationInputsOf(const std::vector<std::string>& inputs) {
  std::vector<std::string> declarations;
  for (const std::string& input : inputs)
    if (inputKindOf(input) == InputKind::Declarations)
      declarations.push_back(input);
  return declarations;
}

llvm::Error checkImageInputKinds(const std::vector<std::string>& inputs) {
  if (!hasImageInputs(inputs))
    return llvm::Error::success();
  for (const std::string& input : inputs)
    if (inputKindOf(input) == InputKind::Source)
      return usageError(
          "'" + input + "' is a source, and '" + imageInputsOf(inputs).front() +
          "' a device image: one build takes either .cu sources or device images (.cubin, "
          ".fatbin, .ptx) with headers declaring their kernels (.h, .cuh, .hpp), not both; build "
          "the sources into a module of their own, or into an image with nvcc -cubin or -fatbin");
  return llvm::Error::success();
}

llvm::Error refuseImageInputs(const std::string& command, const std::vector<std::string>& inputs) {
  std::vector<std::string> images = imageInputsOf(inputs);
  if (images.empty())
    return llvm::Error::success();
  return usageError("'" + images.front() + "' is a device image, and tlc " + command +
                    " reads .cu sources: tlc build takes images with the headers declaring their "
                    "kernels, and its NAME.json lists the kernels (docs/images.md)");
}

// Reading ------------------------------------------------------------------------------------

namespace {

// `.target sm_90a` of PTX text: its arch and whether it is arch-specific; nullopt without one.
std::optional<std::pair<unsigned, bool>> ptxTarget(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 0> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (!line.consume_front(".target"))
      continue;
    llvm::StringRef arch = line.trim().split(',').first.trim();
    if (!arch.consume_front("sm_"))
      return std::nullopt;
    unsigned number = 0;
    llvm::StringRef digits = arch.take_while(llvm::isDigit);
    if (digits.getAsInteger(10, number))
      return std::nullopt;
    return std::make_pair(number, arch.drop_front(digits.size()).starts_with("a"));
  }
  return std::nullopt;
}

std::string targetName(bool ptx, unsigned arch, bool archSpecific) {
  return (ptx ? "compute_" : "sm_") + std::to_string(arch) + (archSpecific ? "a" : "");
}

std::string partName(const ImagePart& part) {
  return targetName(part.ptx, part.arch, part.archSpecific);
}

// What an image is that its suffix says it is not, as a usage error naming it.
llvm::Error notAnImage(const std::string& path, llvm::StringRef what, llvm::Error why) {
  return usageError("'" + path + "' is not " + what + ": " + summarize(std::move(why)).message);
}

// PTX whose every entry declares a parameter list tlc reads: the launcher passes exactly the
// bytes it lays out. Checked as the file is read, so that a text of many such entries fails at
// the first, naming it, before a launcher is made for any.
llvm::Expected<CubinInfo> readablePtx(const std::string& path, llvm::StringRef text) {
  auto info = readPtx(text);
  if (!info)
    return notAnImage(path, "PTX tlc can read", info.takeError());
  for (const ImageEntry& entry : info->entries)
    if (!entry.paramsKnown)
      return usageError("'" + path + "': the PTX entry '" + entry.symbol +
                        "' has no parameter list tlc can read (`.entry " + entry.symbol +
                        "(.param .u64 p, ...)`): its launcher could not lay out the arguments");
  return info;
}

llvm::Expected<ImagePart> cubinPart(const std::string& path, std::string bytes) {
  ImagePart part;
  auto info = readCubin(llvm::MemoryBufferRef(bytes, path));
  if (!info)
    return notAnImage(path, "a cubin (a CUDA ELF image)", info.takeError());
  part.info = std::move(*info);
  part.arch = part.info.sm;
  part.archSpecific = part.info.archSpecific;
  part.bytes = std::move(bytes);
  return part;
}

llvm::Expected<std::vector<ImagePart>> fatbinParts(const std::string& path,
                                                   const std::string& bytes) {
  auto entries = readFatbin(bytes);
  if (!entries)
    return usageError("'" + path + "' is not a fat binary tlc can read (" +
                      summarize(entries.takeError()).message +
                      "); a compressed one is refused: give nvcc --no-compress, or the cubins");
  std::vector<ImagePart> parts;
  for (const FatbinEntry& entry : *entries) {
    ImagePart part;
    part.ptx = entry.ptx;
    part.arch = entry.arch;
    part.archSpecific = entry.archSpecific;
    if (entry.ptx) {
      part.bytes = entry.payload.take_until([](char c) { return c == '\0'; }).str();
      // Compressed PTX (nvcc's default) starts with no NUL yet is no text.
      if (!ptxTarget(part.bytes))
        return usageError("'" + path + "' holds compressed " + partName(part) +
                          " PTX, which tlc cannot read: give nvcc --no-compress, or the cubins");
      auto info = readablePtx(path, part.bytes);
      if (!info)
        return info.takeError();
      part.info = std::move(*info);
    } else {
      auto cubin = cubinPart(path, entry.payload.str());
      if (!cubin)
        return cubin.takeError();
      part.info = std::move(cubin->info);
      part.bytes = std::move(cubin->bytes);
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

llvm::Expected<ImagePart> ptxPart(const std::string& path, std::string text) {
  auto target = ptxTarget(text);
  if (!target || text.find('\0') != std::string::npos)
    return usageError("'" + path + "' is not PTX: it has no '.target sm_XX' line");
  ImagePart part;
  part.ptx = true;
  part.ptxFile = true;
  part.arch = target->first;
  part.archSpecific = target->second;
  auto info = readablePtx(path, text);
  if (!info)
    return info.takeError();
  part.info = std::move(*info);
  part.bytes = std::move(text);
  return part;
}

// GPU architectures are numbered 10 (sm_10) to a three-digit number: an image that names any
// other (a damaged field, sm_524378a) would reach the parse and the tools as a target none has.
constexpr unsigned kLeastArch = 10;
constexpr unsigned kMostArch = 999;

// Each part's arch within those bounds, and a fat binary's cubin for the arch its entry says.
llvm::Error checkArchs(const std::string& path, const std::vector<ImagePart>& parts) {
  for (const ImagePart& part : parts) {
    if (part.arch < kLeastArch || part.arch > kMostArch)
      return usageError("'" + path + "' names the GPU architecture " + partName(part) +
                        ", which no CUDA toolkit has: the image is damaged");
    if (!part.ptx && part.info.sm != part.arch)
      return usageError("'" + path + "': its entry for " + partName(part) + " holds a cubin for " +
                        targetName(false, part.info.sm, part.info.archSpecific) +
                        ": the fat binary is damaged");
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<ImagePart>> readParts(const std::string& path) {
  auto bytes = readFile(path, kImageReadLimit);
  if (!bytes)
    return usageError(summarize(bytes.takeError()).message);
  switch (inputKindOf(path)) {
  case InputKind::Cubin: {
    auto part = cubinPart(path, std::move(*bytes));
    if (!part)
      return part.takeError();
    return std::vector<ImagePart>{std::move(*part)};
  }
  case InputKind::Fatbin:
    return fatbinParts(path, *bytes);
  default: {
    auto part = ptxPart(path, std::move(*bytes));
    if (!part)
      return part.takeError();
    return std::vector<ImagePart>{std::move(*part)};
  }
  }
}

llvm::Expected<std::vector<ImagePart>> partsOf(const std::string& path) {
  auto parts = readParts(path);
  if (!parts)
    return parts.takeError();
  if (llvm::Error error = checkArchs(path, *parts))
    return error;
  return parts;
}

} // namespace

bool cubinIsArchSpecific(llvm::StringRef cubin) {
  auto info = readCubin(llvm::MemoryBufferRef(cubin, "cubin"));
  if (!info) {
    llvm::consumeError(info.takeError());
    return false;
  }
  return info->archSpecific;
}

llvm::Expected<ImageSet> readImageInputs(const std::vector<std::string>& inputs) {
  ImageSet set;
  set.images = imageInputsOf(inputs);
  set.declarations = declarationInputsOf(inputs);
  for (size_t i = 0; i < set.images.size(); ++i) {
    auto parts = partsOf(set.images[i]);
    if (!parts)
      return parts.takeError();
    size_t entries = 0;
    for (ImagePart& part : *parts) {
      part.image = i;
      entries += part.info.entries.size();
      set.parts.push_back(std::move(part));
    }
    if (entries == 0)
      return usageError("'" + set.images[i] +
                        "' holds no kernel (no entry function): nothing to "
                        "launch");
  }
  return set;
}

// Targets ------------------------------------------------------------------------------------

static GpuTarget makeTarget(bool ptx, unsigned arch, bool archSpecific) {
  std::string number = std::to_string(arch) + (archSpecific ? "a" : "");
  return {"compute_" + number, (ptx ? "compute_" : "sm_") + number};
}

std::vector<GpuTarget> targetsHeld(const ImageSet& images) {
  std::vector<GpuTarget> targets;
  auto add = [&](const GpuTarget& target) {
    if (std::find(targets.begin(), targets.end(), target) == targets.end())
      targets.push_back(target);
  };
  for (const ImagePart& part : images.parts) {
    if (part.ptxFile) // as `nvcc -arch=sm_XX`: SASS and the PTX for JIT
      add(makeTarget(false, part.arch, part.archSpecific));
    add(makeTarget(part.ptx, part.arch, part.archSpecific));
  }
  std::stable_sort(targets.begin(), targets.end(), [](const GpuTarget& a, const GpuTarget& b) {
    return a.ptx() < b.ptx(); // SASS first, as resolveTargets orders nvcc's
  });
  return targets;
}

namespace {

struct TargetKey {
  bool ptx = false;
  unsigned arch = 0;
  bool archSpecific = false;
};

TargetKey keyOf(const GpuTarget& target) {
  TargetKey key;
  key.ptx = target.ptx();
  std::string text = target.number();
  llvm::StringRef number = text;
  llvm::StringRef digits = number.take_while(llvm::isDigit);
  digits.getAsInteger(10, key.arch);
  key.archSpecific = number.drop_front(digits.size()).starts_with("a");
  return key;
}

// The parts that could give `target`, best first: a part of that very kind and arch; else, for
// SASS, a PTX file ptxas assembles for it (its `.target` no newer), and for PTX, a PTX part of an
// older arch (the JIT compiles it for newer GPUs).
std::vector<TargetSource> candidatesFor(const ImageSet& images, const GpuTarget& target,
                                        bool& exact) {
  TargetKey key = keyOf(target);
  std::vector<TargetSource> same, other;
  for (size_t i = 0; i < images.parts.size(); ++i) {
    const ImagePart& part = images.parts[i];
    if (part.ptx == key.ptx && part.arch == key.arch && part.archSpecific == key.archSpecific)
      same.push_back({i, false});
    else if (part.ptxFile && !key.ptx && part.arch <= key.arch &&
             (!part.archSpecific || part.arch == key.arch))
      other.push_back({i, true});
    else if (part.ptx && key.ptx && !part.archSpecific && part.arch < key.arch)
      other.push_back({i, false});
  }
  exact = !same.empty();
  return exact ? same : other;
}

std::string holdings(const ImageSet& images, size_t image) {
  std::vector<std::string> names;
  for (const ImagePart& part : images.parts)
    if (part.image == image)
      names.push_back(part.ptxFile ? "PTX for " + targetName(false, part.arch, part.archSpecific)
                                   : partName(part));
  return llvm::join(names, ", ");
}

std::string targetList(const std::vector<GpuTarget>& targets) {
  std::vector<std::string> codes;
  for (const GpuTarget& target : targets)
    codes.push_back(target.code);
  return llvm::join(codes, ", ");
}

} // namespace

llvm::Expected<std::vector<TargetSource>>
chooseTargetSources(const ImageSet& images, const std::vector<GpuTarget>& targets) {
  std::vector<TargetSource> sources;
  std::set<size_t> used;
  for (const GpuTarget& target : targets) {
    bool exact = false;
    std::vector<TargetSource> candidates = candidatesFor(images, target, exact);
    if (candidates.empty()) {
      std::vector<std::string> held;
      for (size_t i = 0; i < images.images.size(); ++i)
        held.push_back("'" + images.images[i] + "' holds " + holdings(images, i));
      return usageError(
          "no image holds code for " + target.code + " (" + llvm::join(held, "; ") +
          "): build the images for it, or ask for the targets they hold (without --arch or "
          "--gencode a build of images takes those" +
          (target.ptx() ? "; SASS alone: --gencode arch=" + target.virtualArch + ",code=sm_" +
                              target.number()
                        : std::string()) +
          ")");
    }
    // The newest older PTX, where no exact one exists.
    if (!exact)
      std::stable_sort(candidates.begin(), candidates.end(),
                       [&](const TargetSource& a, const TargetSource& b) {
                         return images.parts[a.part].arch > images.parts[b.part].arch;
                       });
    const ImagePart& chosen = images.parts[candidates.front().part];
    for (const TargetSource& candidate : candidates) {
      const ImagePart& part = images.parts[candidate.part];
      if (part.image != chosen.image && part.arch == chosen.arch)
        return usageError("'" + images.images[chosen.image] + "' and '" +
                          images.images[part.image] + "' both hold code for " + target.code +
                          ", and one image holds one piece of code per target: build them into "
                          "one module each, or link their code into one (nvlink -cubin from "
                          "relocatable code)");
    }
    used.insert(chosen.image);
    sources.push_back(candidates.front());
  }
  for (size_t i = 0; i < images.images.size(); ++i)
    if (!used.count(i))
      return usageError("'" + images.images[i] + "' holds " + holdings(images, i) +
                        ", which none of the build's targets (" + targetList(targets) +
                        ") takes: ask for its arch with --arch, or leave the image out");
  return sources;
}

// Planning -----------------------------------------------------------------------------------

ImageBuild planImageBuild(const ImageSet& images, const std::vector<TargetSource>& sources,
                          const ImageBuildOptions& options) {
  ImageBuild build;
  DevicePlan& plan = build.device;
  auto absolute = [&](const std::string& file) { return options.workDir + "/" + file; };
  bool oneCubin = options.targets.size() == 1 && !options.targets.front().ptx();
  for (size_t t = 0; t < options.targets.size(); ++t) {
    const GpuTarget& target = options.targets[t];
    const TargetSource& source = sources[t];
    const ImagePart& part = images.parts[source.part];
    std::string file;
    if (oneCubin && !source.assemble) {
      // The image is that cubin, under the name NAME_image.S embeds it by.
      file = options.name + ".cubin";
      build.staged.push_back({absolute(file), source.part});
    } else if (source.assemble) {
      // As nvcc -arch does for PTX: ptxas for the SASS target. Its failure is the PTX's.
      file = oneCubin ? options.name + ".cubin" : "image-" + target.code + ".cubin";
      Step step{"ptxas " + options.displayed[part.image] + " (" + target.code + ")",
                {options.ptxas, "-arch=" + target.code, options.linked[part.image], "-o", file},
                file,
                options.workDir,
                {}};
      step.compilesSources = true;
      plan.compiles.push_back(std::move(step));
    } else if (part.ptxFile) {
      file = options.linked[part.image]; // read as it is
    } else {
      file = "image-part" + std::to_string(source.part) + (part.ptx ? ".ptx" : ".cubin");
      build.staged.push_back({absolute(file), source.part});
    }
    plan.targets.push_back({target, {file}, {}});
  }
  if (oneCubin) {
    plan.image = absolute(options.name + ".cubin");
    return build;
  }
  std::string fatbin = options.name + ".fatbin";
  plan.image = absolute(fatbin);
  plan.fatbin = true;
  // Uncompressed, as a source build's: tlc and the runtime read its entries.
  Step package{"fatbinary (" + std::to_string(options.targets.size()) + " targets)",
               {options.fatbinary, "--create=" + fatbin, "-64", "--compress=false"},
               fatbin,
               options.workDir,
               {}};
  for (const TargetImage& image : plan.targets)
    package.argv.push_back("--image3=kind=" + std::string(image.target.ptx() ? "ptx" : "elf") +
                           ",sm=" + image.target.number() + ",file=" + image.files.front());
  plan.package = std::move(package);
  return build;
}

llvm::Error stageImageFiles(const ImageSet& images, const ImageBuild& build) {
  for (const StagedFile& file : build.staged)
    if (llvm::Error error = writeFile(file.path, images.parts[file.part].bytes))
      return error;
  return llvm::Error::success();
}

EntriesByInput
imageEntriesByInput(const ImageSet& images,
                    const std::function<std::string(const std::string&)>& inputName) {
  EntriesByInput entries;
  for (const std::string& declarations : images.declarations)
    entries[inputName(declarations)];
  for (const ImagePart& part : images.parts) {
    std::set<std::string>& symbols = entries[inputName(images.images[part.image])];
    for (const ImageEntry& entry : part.info.entries)
      symbols.insert(entry.symbol);
  }
  return entries;
}

// Checks -------------------------------------------------------------------------------------

llvm::Error checkDeclaredKernels(const Module& module, const std::vector<TargetEntries>& entries,
                                 SourceDiagnostics& diagnostics) {
  std::set<std::string> held;
  for (const TargetEntries& target : entries)
    for (const auto& [symbol, entry] : target)
      held.insert(symbol);
  unsigned missing = 0;
  for (const Kernel& kernel : module.kernels) {
    if (held.count(kernel.symbol))
      continue;
    ++missing;
    diagnostics.error(kernel.location, "kernel '" + kernel.displayName +
                                           "' is declared here, but no image holds its symbol " +
                                           kernel.symbol);
    // The image's entries of the same name: the declaration says other parameter types, or
    // the image's kernel is extern "C" and the declaration not (or the other way round).
    std::string base = llvm::StringRef(kernel.name).rsplit("::").second.str();
    if (base.empty())
      base = kernel.name;
    for (const std::string& symbol : held) {
      std::string name = qualifiedNameOf(symbol);
      if (name != kernel.name && name != base)
        continue;
      std::string why = kernel.externC || name == symbol
                            ? "declare it as the image has it (extern \"C\" or not)"
                            : "the declaration's parameter types differ from the image's";
      diagnostics.note(kernel.location, "the image holds " + symbol + " of that name: " + why);
    }
  }
  if (missing)
    return reportedInputError(std::to_string(missing) +
                              " declared kernel(s) missing from the images");
  return llvm::Error::success();
}

} // namespace tlc
