// `tlc build --python --wheel`: the module's Python package as an installable wheel, written into
// OUTDIR beside it (docs/python.md). The wheel holds the package NAME/ (its extension
// NAME/tlc/_ext.abi3.so finds libNAME.so beside the package first: RUNPATH $ORIGIN/..), the
// library itself inside it (and the image, when it is not embedded), and its metadata: the
// targets it holds in the description and keywords, no dependency (no torch: the package finds
// torch's stable ABI at run time), Python >= 3.10. Its tag is the extension's, cp310-abi3, and
// the platform its ELF files truly need: manylinux_2_X_x86_64 for the newest glibc symbol
// version they use (their other libraries being the system's own: libc, libm, libgcc_s), else
// linux_x86_64. Files, times and order are fixed, so the same build makes the same bytes.
#pragma once

#include "builder/OutputNames.h"
#include "toolchain/GpuTargets.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <set>
#include <string>
#include <vector>

namespace tlc {

struct ModuleWheelFacts {
  std::string version;              // the distribution's (--wheel-version)
  std::vector<GpuTarget> targets;   // what the image holds
  std::vector<std::string> kernels; // the launchers, for the description
  std::string tlcVersion;
  bool externalImage = false;
};

// The platform tag of the ELF files `files` (paths): manylinux_2_X_x86_64, or linux_x86_64 when
// one needs a library beyond glibc's own, libz, libgcc_s and those the wheel holds (`bundled`,
// by soname), or cannot be read.
std::string wheelPlatformTag(const std::vector<std::string>& files,
                             const std::set<std::string>& bundled);

// Whether `version` is a version a wheel may carry (PEP 440's public form: 1.2, 1.2.0rc1,
// 2.0.post1, 0.1.dev3).
bool isWheelVersion(llvm::StringRef version);

// Writes the wheel of the package in `outputsDir` (the module's published files: NAME/...,
// libNAME.so, the image) into `outputsDir`; returns its file name there.
llvm::Expected<std::string> writeModuleWheel(const OutputNames& names,
                                             const ModuleWheelFacts& facts,
                                             const std::string& outputsDir);

} // namespace tlc
