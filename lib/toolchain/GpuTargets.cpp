// Resolving --arch and --gencode into the targets a build compiles, in nvcc's meaning.
#include "toolchain/GpuTargets.h"

#include "support/Error.h"
#include "support/ProbeMemo.h"
#include "support/Process.h"

#include "clang/Basic/OffloadArch.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <optional>

namespace tlc {

bool GpuTarget::ptx() const {
  return llvm::StringRef(code).starts_with("compute_");
}

std::string GpuTarget::gencode() const {
  return "-gencode=arch=" + virtualArch + ",code=" + code;
}

std::string GpuTarget::number() const {
  llvm::StringRef text(code);
  text.consume_front("sm_") || text.consume_front("compute_");
  return text.str();
}

namespace {

// "sm_90a" -> {90, 'a'}; false if `name` is not <prefix><digits>[a|f].
bool splitArch(llvm::StringRef name, llvm::StringRef prefix, unsigned& number, char& variant) {
  if (!name.consume_front(prefix) || name.empty())
    return false;
  variant = 0;
  if (name.back() == 'a' || name.back() == 'f') {
    variant = name.back();
    name = name.drop_back();
  }
  return !name.empty() && llvm::all_of(name, llvm::isDigit) && !name.getAsInteger(10, number);
}

std::string listed(const std::vector<std::string>& names) {
  return llvm::join(names, ", ");
}

// Whether `variant` ('a', 'f' or none) exists for arch `number`: arch-specific ('a') and family
// ('f') variants exist from sm_90 and sm_100 on; nvcc's lists name only the base.
bool variantExists(unsigned number, char variant) {
  return variant == 0 || (variant == 'a' && number >= 90) || (variant == 'f' && number >= 100);
}

} // namespace

std::vector<std::string> targetNames(const TargetEnvironment& environment) {
  std::vector<std::string> names;
  for (const std::vector<std::string>* list : {&environment.sassArchs, &environment.virtualArchs})
    for (const std::string& name : *list) {
      names.push_back(name);
      unsigned number = 0;
      char variant = 0;
      bool ptx = llvm::StringRef(name).starts_with("compute_");
      if (!splitArch(name, ptx ? "compute_" : "sm_", number, variant) || variant)
        continue;
      for (char suffix : {'a', 'f'})
        if (variantExists(number, suffix))
          names.push_back(name + suffix);
    }
  for (const char* keyword : {"native", "all", "all-major"})
    names.push_back(keyword);
  return names;
}

std::vector<std::string> gencodeForms(const TargetEnvironment& environment) {
  std::vector<std::string> forms;
  for (const std::string& name : targetNames(environment)) {
    llvm::StringRef number(name);
    if (!number.consume_front("compute_"))
      continue;
    forms.push_back("arch=" + name + ",code=sm_" + number.str());
    forms.push_back("arch=" + name + ",code=[sm_" + number.str() + "," + name + "]");
  }
  return forms;
}

namespace {

// The name of `names` `typed` most likely means ("sm90": sm_90, "SM_90A": sm_90a); "" if none is
// close.
std::string closestArch(llvm::StringRef typed, const std::vector<std::string>& names) {
  std::string lower = typed.lower();
  if (llvm::is_contained(names, lower))
    return lower;
  unsigned best = 3; // at most two edits
  std::string match;
  for (const std::string& name : names) {
    unsigned distance = llvm::StringRef(lower).edit_distance(name, true, best);
    if (distance < best) {
      best = distance;
      match = name;
    }
  }
  return match;
}

// Checks an sm_XX or compute_XX name against what this nvcc knows.
llvm::Error checkKnown(llvm::StringRef name, const TargetEnvironment& environment,
                       llvm::StringRef what) {
  bool ptx = name.starts_with("compute_");
  unsigned number = 0;
  char variant = 0;
  bool wellFormed = splitArch(name, ptx ? "compute_" : "sm_", number, variant);
  const std::vector<std::string>& known = ptx ? environment.virtualArchs : environment.sassArchs;
  std::string base = (ptx ? "compute_" : "sm_") + std::to_string(number);
  bool knownBase = wellFormed && std::find(known.begin(), known.end(), base) != known.end();
  if (knownBase && variantExists(number, variant))
    return llvm::Error::success();
  std::string meant = closestArch(name, targetNames(environment));
  return usageError(what.str() + " '" + name.str() + "' is not a GPU target this nvcc knows" +
                    (meant.empty() ? "" : "; did you mean '" + meant + "'?") + " SASS archs are " +
                    listed(environment.sassArchs) +
                    " (with an 'a' or 'f' suffix from sm_90 and "
                    "sm_100 on), PTX archs " +
                    listed(environment.virtualArchs) + "; also native, all, all-major");
}

// Why nvcc cannot compile `code` (sm_XY[a|f]) from `virtualArch` (compute_XY[a|f]), as CUDA 13's
// nvcc decides ("" when it can): from compute_N, SASS for any arch N or newer; from compute_Na,
// only sm_Na; from compute_Nf, any arch of N's family (the same major version) from N on.
std::string incompatibleCode(llvm::StringRef virtualArch, llvm::StringRef code) {
  unsigned from = 0, to = 0;
  char fromVariant = 0, toVariant = 0;
  if (!splitArch(virtualArch, "compute_", from, fromVariant) ||
      !splitArch(code, "sm_", to, toVariant))
    return "";
  if (fromVariant == 'a') {
    if (to == from && toVariant == 'a')
      return "";
    return virtualArch.str() + " compiles only to sm_" + std::to_string(from) + "a";
  }
  if (to < from)
    return "a GPU's SASS compiles from its own virtual arch or an older one: arch=compute_" +
           std::to_string(to) + " or older";
  if (fromVariant == 'f' && to / 10 != from / 10)
    return virtualArch.str() + " compiles only to its family, sm_" + std::to_string(from / 10) +
           "X from sm_" + std::to_string(from) + " on";
  return "";
}

// The virtual arch a real one is compiled from: sm_90a -> compute_90a.
std::string virtualOf(llvm::StringRef sass) {
  return "compute_" + sass.drop_front(3).str();
}

// What nvcc -arch=sm_XX means: SASS for sm_XX and PTX for compute_XX.
void addArchWithPtx(const std::string& sass, std::vector<GpuTarget>& out) {
  std::string virtualArch = virtualOf(sass);
  out.push_back({virtualArch, sass});
  out.push_back({virtualArch, virtualArch});
}

// The highest major virtual arch nvcc knows (compute_120 for CUDA 13.0): nvcc's all and
// all-major add PTX for it.
std::string highestMajorVirtual(const TargetEnvironment& environment) {
  unsigned best = 0;
  for (const std::string& name : environment.virtualArchs) {
    unsigned number = 0;
    char variant = 0;
    if (splitArch(name, "compute_", number, variant) && number % 10 == 0)
      best = std::max(best, number);
  }
  return best ? "compute_" + std::to_string(best) : "";
}

llvm::Error expandArch(const std::string& value, const TargetEnvironment& environment,
                       std::vector<GpuTarget>& out) {
  llvm::StringRef name(value);
  if (name == "native") {
    auto native =
        environment.nativeArchs
            ? environment.nativeArchs()
            : llvm::Expected<std::vector<std::string>>(usageError("no CUDA driver to ask"));
    if (!native)
      return usageError("--arch native: " + summarize(native.takeError()).message +
                        "; name the GPUs to build for instead, e.g. --arch sm_90a, or a PTX "
                        "target such as --arch compute_75, which runs on every newer GPU");
    for (const std::string& sass : *native)
      addArchWithPtx(sass, out);
    return llvm::Error::success();
  }
  if (name == "all" || name == "all-major") {
    // nvcc: all = SASS for every arch it knows; all-major = SASS for each major (sm_X0) and
    // the earliest it supports; both add PTX for the highest major virtual arch.
    bool first = true;
    for (const std::string& sass : environment.sassArchs) {
      unsigned number = 0;
      char variant = 0;
      splitArch(sass, "sm_", number, variant);
      if (name == "all" || first || number % 10 == 0)
        out.push_back({virtualOf(sass), sass});
      first = false;
    }
    std::string ptx = highestMajorVirtual(environment);
    if (!ptx.empty())
      out.push_back({ptx, ptx});
    return llvm::Error::success();
  }
  if (llvm::Error error = checkKnown(name, environment, "--arch"))
    return error;
  if (name.starts_with("compute_"))
    out.push_back({value, value});
  else
    addArchWithPtx(value, out);
  return llvm::Error::success();
}

// "arch=compute_80,code=[sm_80,compute_80]", "arch=compute_80,code=sm_86",
// "arch=compute_80,code=\"sm_80,compute_80\"".
llvm::Error expandGencode(const std::string& spec, const TargetEnvironment& environment,
                          std::vector<GpuTarget>& out) {
  auto bad = [&](const std::string& why) {
    return usageError("--gencode '" + spec + "': " + why +
                      " (expected arch=compute_XX,code=sm_XX or "
                      "arch=compute_XX,code=[sm_XX,compute_XX])");
  };
  llvm::StringRef text(spec);
  if (!text.consume_front("arch="))
    return bad("it must start with arch=");
  auto [virtualArch, rest] = text.split(',');
  if (!virtualArch.starts_with("compute_"))
    return bad("arch= must name a virtual arch (compute_XX)");
  if (llvm::Error error = checkKnown(virtualArch, environment, "--gencode arch"))
    return error;
  if (!rest.consume_front("code="))
    return bad("code= is missing");
  rest = rest.trim("[]\"");
  if (rest.empty())
    return bad("code= is empty");
  llvm::SmallVector<llvm::StringRef, 4> codes;
  rest.split(codes, ',');
  for (llvm::StringRef code : codes) {
    code = code.trim();
    if (code.starts_with("lto_"))
      return bad("link-time optimisation (lto_XX) is not supported");
    if (code.starts_with("compute_") && code != virtualArch)
      return bad("PTX code " + code.str() + " must be the arch= it is compiled for");
    if (!code.starts_with("compute_") && !code.starts_with("sm_"))
      return bad("code " + code.str() + " is neither sm_XX nor compute_XX");
    if (llvm::Error error = checkKnown(code, environment, "--gencode code"))
      return error;
    if (std::string why = incompatibleCode(virtualArch, code); !why.empty())
      return usageError("--gencode '" + spec + "': nvcc cannot compile " + code.str() + " from " +
                        virtualArch.str() + " (" + why + ")");
    out.push_back({virtualArch.str(), code.str()});
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<GpuTarget>> resolveTargets(const std::vector<std::string>& archs,
                                                      const std::vector<std::string>& gencodes,
                                                      const TargetEnvironment& environment) {
  std::vector<GpuTarget> expanded;
  for (const std::string& arch : archs)
    if (llvm::Error error = expandArch(arch, environment, expanded))
      return error;
  for (const std::string& gencode : gencodes)
    if (llvm::Error error = expandGencode(gencode, environment, expanded))
      return error;
  if (archs.empty() && gencodes.empty())
    addArchWithPtx(environment.defaultArch, expanded);
  // One entry per code: the first spelling of it wins.
  std::vector<GpuTarget> targets;
  for (const GpuTarget& target : expanded)
    if (std::none_of(targets.begin(), targets.end(),
                     [&](const GpuTarget& kept) { return kept.code == target.code; }))
      targets.push_back(target);
  return targets;
}

std::string clangGpuArch(const std::string& arch) {
  llvm::StringRef name(arch);
  return name.ends_with("f") ? name.drop_back().str() : arch;
}

bool isKnownParseArch(const std::string& arch) {
  return clang::StringToOffloadArch(clangGpuArch(arch)) != clang::OffloadArch::UNKNOWN;
}

std::vector<std::string> knownParseArchs() {
  std::vector<std::string> archs;
  for (int arch = static_cast<int>(clang::OffloadArch::SM_20);
       clang::IsNVIDIAOffloadArch(static_cast<clang::OffloadArch>(arch)); ++arch) {
    llvm::StringRef name = clang::OffloadArchToString(static_cast<clang::OffloadArch>(arch));
    if (name.starts_with("sm_") && isKnownParseArch(name.str())) // skips Clang's placeholders
      archs.push_back(name.str());
  }
  return archs;
}

std::string parseArchFor(const std::vector<GpuTarget>& targets) {
  auto numberOf = [](const GpuTarget& target) {
    unsigned number = 0;
    std::string text = target.number(); // kept: the StringRef below must not outlive it
    llvm::StringRef(text).take_while(llvm::isDigit).getAsInteger(10, number);
    return number;
  };
  const GpuTarget* best = nullptr;
  for (const GpuTarget& target : targets)
    if (!best || (!target.ptx() && best->ptx()) ||
        (target.ptx() == best->ptx() && numberOf(target) > numberOf(*best)))
      best = &target;
  return best ? "sm_" + best->number() : "";
}

llvm::Expected<TargetEnvironment> targetEnvironment(const CudaToolkit& toolkit, JobSlots* slots) {
  TargetEnvironment environment;
  environment.defaultArch = toolkit.cudaVersion >= 13000 ? "sm_75" : "sm_52";
  // Both lists are asked for at once, where the job limit allows: every build waits for them
  // before nvcc starts. Each holds a slot: under make, two tlc processes probing at once must
  // not run more nvccs than make's -j.
  auto listOf = [&toolkit, slots](const char* flag) {
    std::optional<SlotGuard> slot;
    if (slots)
      slot.emplace(*slots);
    return runProbe({toolkit.nvcc, flag});
  };
  auto virtualArchs = std::async(std::launch::async, listOf, "--list-gpu-arch");
  auto sassArchs = listOf("--list-gpu-code");
  struct Probe {
    const char* flag;
    llvm::Expected<CommandResult> result;
    std::vector<std::string>& list;
  } probes[] = {{"--list-gpu-code", std::move(sassArchs), environment.sassArchs},
                {"--list-gpu-arch", virtualArchs.get(), environment.virtualArchs}};
  llvm::Error failed = llvm::Error::success();
  for (Probe& probe : probes) {
    if (!probe.result)
      failed = llvm::joinErrors(std::move(failed), probe.result.takeError());
    else if (!probe.result->succeeded())
      failed =
          llvm::joinErrors(std::move(failed),
                           toolchainError("nvcc " + std::string(probe.flag) + " failed (" +
                                          probe.result->status() + "):\n" + probe.result->output));
  }
  if (failed)
    return failed;
  for (Probe& probe : probes) {
    llvm::SmallVector<llvm::StringRef, 16> lines;
    llvm::StringRef(probe.result->output).split(lines, '\n', -1, false);
    for (llvm::StringRef line : lines)
      if (!line.trim().empty())
        probe.list.push_back(line.trim().str());
  }
  environment.nativeArchs = nativeGpuArchs;
  return environment;
}

// ---------------------------------------------------------------------------------------------
// native: the driver's view of this machine, through the one symbol every driver since CUDA 12
// exports (and the fake driver of the tests too), cuGetProcAddress_v2.
// ---------------------------------------------------------------------------------------------

namespace {

using GetProcAddress = int (*)(const char*, void**, int, uint64_t, int*);
using Init = int (*)(unsigned);
using DeviceGetCount = int (*)(int*);
using DeviceGet = int (*)(int*, int);
using DeviceGetAttribute = int (*)(int*, int, int);
constexpr int kComputeCapabilityMajor = 75; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;
constexpr int kNoDevice = 100; // CUDA_ERROR_NO_DEVICE

template <typename Function>
bool resolve(GetProcAddress getProcAddress, const char* name, int version, Function& out) {
  void* address = nullptr;
  int found = 0;
  return getProcAddress(name, &address, version, 0, &found) == 0 && address &&
         (out = reinterpret_cast<Function>(address));
}

} // namespace

llvm::Expected<std::vector<std::string>> nativeGpuArchs() {
  const char* path = "libcuda.so.1";
  if (const char* testing = secure_getenv("TLC_TEST_LIBCUDA"); testing && *testing)
    path = testing;
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return usageError("this machine has no CUDA driver (" + std::string(dlerror()) + ")");
  llvm::scope_exit closeDriver([&] { dlclose(handle); });
  auto getProcAddress = reinterpret_cast<GetProcAddress>(dlsym(handle, "cuGetProcAddress_v2"));
  Init init = nullptr;
  DeviceGetCount getCount = nullptr;
  DeviceGet get = nullptr;
  DeviceGetAttribute getAttribute = nullptr;
  if (!getProcAddress || !resolve(getProcAddress, "cuInit", 2000, init) ||
      !resolve(getProcAddress, "cuDeviceGetCount", 2000, getCount) ||
      !resolve(getProcAddress, "cuDeviceGet", 2000, get) ||
      !resolve(getProcAddress, "cuDeviceGetAttribute", 2000, getAttribute))
    return usageError("the CUDA driver in " + std::string(path) + " is older than CUDA 12.0");
  int result = init(0);
  int count = 0;
  if (result == kNoDevice || (result == 0 && getCount(&count) == 0 && count == 0))
    return usageError("the CUDA driver sees no GPU on this machine");
  if (result != 0)
    return usageError("the CUDA driver failed to initialise (CUresult " + std::to_string(result) +
                      ")");
  std::vector<std::string> archs;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    int device = 0, major = 0, minor = 0;
    if (get(&device, ordinal) != 0 || getAttribute(&major, kComputeCapabilityMajor, device) != 0 ||
        getAttribute(&minor, kComputeCapabilityMinor, device) != 0)
      return usageError("cannot read GPU " + std::to_string(ordinal) + "'s compute capability");
    std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
    if (std::find(archs.begin(), archs.end(), arch) == archs.end())
      archs.push_back(arch);
  }
  return archs;
}

} // namespace tlc
