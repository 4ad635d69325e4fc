// Launcher names: deterministic, readable C identifiers for kernels. `saxpy` stays `saxpy`,
// `nn::act::gelu` becomes `nn_act_gelu` (`act_gelu` in module nn), `copy_vec<float, 4>` becomes
// `copy_vec_float_4`. Overloads sharing a name get a suffix from their parameter types; static
// kernels of several inputs sharing a name get their input's stem as a prefix; TLC_NAME overrides.
// A name longer than kMaxLauncherName (a template library's instance) becomes the kernel's own name
// and a short, stable hash of the full name: `device_kernel_1a2b3c4d`; its C++ spelling stays in
// the header's comment, the manifest and `tlc inspect`. No launcher name is reserved: tlc's own API
// is tlc_NAME_*, which no launcher (NAME_*) can spell.
#pragma once

#include "model/Model.h"

#include <string>
#include <vector>

namespace tlc {

class SourceDiagnostics;

constexpr size_t kMaxLauncherName = 64;

// The entry points a kernel gets in the generated API besides the launcher itself.
std::vector<std::string> entryPointNames(const Kernel& kernel);

// Sets Kernel::launcher for every kernel. Collisions that remain (explicit names, overloads whose
// parameter types spell alike) are reported; returns false if there were any. A kernel in an
// outermost namespace named `moduleName` (the build's --name) drops it: the API's prefix says it
// already (`mylib::axpy` in module mylib is mylib_axpy, not mylib_mylib_axpy).
bool assignLauncherNames(std::vector<Kernel>& kernels, SourceDiagnostics& diagnostics,
                         const std::string& moduleName = "");

} // namespace tlc
