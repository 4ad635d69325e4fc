// Device images as the inputs of `tlc build`: cubins, fat binaries and PTX that another compiler
// made (Triton, CuTeDSL, ptxas, nvcc without tlc), with headers declaring their kernels
// (docs/images.md). Inputs are told apart by suffix: `.cubin`, `.fatbin` and `.ptx` are images,
// `.h`, `.cuh` and `.hpp` given beside them declare their kernels (parsed declarations-only,
// FrontendOptions::declarationsOnly). A build of images compiles no source: each target of the
// build takes its code from one image, as nvcc's fatbinary packs per-target images into one: a
// cubin of that arch as it is, PTX assembled by ptxas for a SASS target (as `nvcc -arch` would),
// PTX kept as PTX for a virtual target (compute_XX, JIT-compiled by the driver). Without --arch
// the targets are those the images hold (a PTX file's `.target sm_XX` meaning sm_XX and
// compute_XX, as nvcc's `-arch=sm_XX` does). .cu sources and images do not mix in one build: nvcc
// cannot link a foreign cubin with them, and tlc would have to choose which wins a target.
//
// The kernels then go through the checks a source build's do (ImageCheck, LayoutCheck): every
// declared kernel is in the image by its exact symbol, with the image's parameter layout; every
// entry of the image gets a launcher, from its declaration or else from the image's parameter
// info (ImageKernels.h).
#pragma once

#include "builder/DeviceBuild.h"
#include "builder/DeviceImage.h"
#include "builder/ImageCheck.h"
#include "builder/SymbolResolution.h"
#include "checks/SourceDiagnostics.h"
#include "model/Model.h"
#include "toolchain/GpuTargets.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace tlc {

enum class InputKind { Source, Cubin, Fatbin, Ptx, Declarations };

// By suffix: .cubin, .fatbin, .ptx; .h, .cuh, .hpp, .hxx (declarations when images are given,
// else sources, as they always were); anything else a source.
InputKind inputKindOf(llvm::StringRef path);
bool isImageKind(InputKind kind);

// Whether any input is a device image: the build's device code then comes from the images.
bool hasImageInputs(const std::vector<std::string>& inputs);

// UsageError for inputs that cannot make one build of images: .cu sources beside images.
llvm::Error checkImageInputKinds(const std::vector<std::string>& inputs);

// UsageError for `command` (inspect, check), which reads sources only, given a device image.
llvm::Error refuseImageInputs(const std::string& command, const std::vector<std::string>& inputs);

// The inputs that are images, and those that declare their kernels, in command-line order.
std::vector<std::string> imageInputsOf(const std::vector<std::string>& inputs);
std::vector<std::string> declarationInputsOf(const std::vector<std::string>& inputs);

// One piece of code an image holds: a cubin, or PTX text, for one arch.
struct ImagePart {
  size_t image = 0; // index into ImageSet::images
  bool ptx = false;
  unsigned arch = 0;         // 90 for sm_90, sm_90a, compute_90
  bool archSpecific = false; // sm_90a, compute_90a
  bool ptxFile = false;      // a .ptx input: ptxas assembles it for SASS targets
  std::string bytes;         // the cubin, or the PTX text
  CubinInfo info;            // its entries
};

struct ImageSet {
  std::vector<std::string> images;       // as given
  std::vector<std::string> declarations; // as given
  std::vector<ImagePart> parts;
};

// Reads every image (regular files only, bounded: support/Files.h). UsageError naming the file
// for one that is not what its suffix says (garbage, a truncated or compressed fat binary, text
// that is no PTX) or that holds no kernel.
llvm::Expected<ImageSet> readImageInputs(const std::vector<std::string>& inputs);

// Whether a cubin's bytes say arch-specific code (sm_90a): its .nv.compat section's record 0x09
// is 1 there (not documented by NVIDIA; read from cubins nvcc 13 built for sm_90 and sm_90a,
// sm_100 and sm_100a, whose ELF flags are the same).
bool cubinIsArchSpecific(llvm::StringRef cubin);

// The targets the images hold, for a build without --arch or --gencode: each cubin's sm_XX, each
// fat binary entry's, and for a PTX file the sm_XX and compute_XX its `.target` names.
std::vector<GpuTarget> targetsHeld(const ImageSet& images);

// Where one target's code comes from: a part as it is, or a PTX file's part assembled by ptxas.
struct TargetSource {
  size_t part = 0;
  bool assemble = false;
};

// The source of every target, in target order. UsageError for a target no image holds code for,
// for one that two images both could give, and for an image no target takes code from.
llvm::Expected<std::vector<TargetSource>>
chooseTargetSources(const ImageSet& images, const std::vector<GpuTarget>& targets);

// The device half of a build of images, as the tools see it.
struct ImageBuildOptions {
  std::string name;
  std::vector<GpuTarget> targets;
  std::string workDir;                // absolute: where the tools run
  std::string ptxas, fatbinary;       // as the tools run them (links in the work folder)
  std::vector<std::string> linked;    // per image: its name in the work folder (a link to it)
  std::vector<std::string> displayed; // per image: its file name, for progress lines
};

// A file the build writes into the work folder before the tools run: a part of a fat binary
// (fatbinary reads one file per entry), or the whole image where it is one cubin.
struct StagedFile {
  std::string path; // absolute
  size_t part = 0;
};

struct ImageBuild {
  DevicePlan device;
  std::vector<StagedFile> staged;
};

ImageBuild planImageBuild(const ImageSet& images, const std::vector<TargetSource>& sources,
                          const ImageBuildOptions& options);

// Writes the staged files (before the plan runs).
llvm::Error stageImageFiles(const ImageSet& images, const ImageBuild& build);

// Each image's entries by its name in the module (`inputName`), for the image check; the
// declarations hold none of their own.
EntriesByInput imageEntriesByInput(const ImageSet& images,
                                   const std::function<std::string(const std::string&)>& inputName);

// Every kernel a header declares must be an entry of the image by its exact symbol: an error at
// the declaration for each that is not, with a note naming the image's entries of the same name
// (a declaration whose parameter types, or `extern "C"`, differ from the image's). A reported
// InputError after all are printed.
llvm::Error checkDeclaredKernels(const Module& module, const std::vector<TargetEntries>& entries,
                                 SourceDiagnostics& diagnostics);

} // namespace tlc
