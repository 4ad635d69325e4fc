// The CPUs a process may use: affinity and cgroup quota (CpuBudget.h).
#include "support/CpuBudget.h"

#include "support/Files.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <sched.h>

namespace tlc {

namespace {

// Small files of the kernel's: read whole, "" when missing.
std::string kernelFile(const std::string& path) {
  auto text = readFile(path, 4096);
  if (!text) {
    llvm::consumeError(text.takeError());
    return "";
  }
  return *text;
}

// CPUs granted by `quota` microseconds every `period`, rounded up; nullopt for no limit.
std::optional<unsigned> cpusOf(llvm::StringRef quota, llvm::StringRef period) {
  long long q = 0, p = 0;
  if (quota.trim().getAsInteger(10, q) || period.trim().getAsInteger(10, p) || q <= 0 || p <= 0)
    return std::nullopt;
  return unsigned(std::max<long long>(1, (q + p - 1) / p));
}

// The least of the limits set on `relative` (a cgroup's path) and its ancestors, each read by
// `limitAt` from the folder `root`/<ancestor>.
template <typename Read>
std::optional<unsigned> leastOnTheWay(const std::string& root, llvm::StringRef relative,
                                      Read limitAt) {
  std::optional<unsigned> least;
  std::string path = relative.str();
  while (true) {
    if (std::optional<unsigned> limit = limitAt(root + path))
      least = least ? std::min(*least, *limit) : *limit;
    if (path.empty() || path == "/")
      break;
    path = llvm::sys::path::parent_path(path).str();
  }
  return least;
}

} // namespace

std::optional<unsigned> cgroupCpuQuota(llvm::StringRef procSelfCgroup,
                                       const std::string& cgroupRoot) {
  llvm::SmallVector<llvm::StringRef, 16> lines;
  procSelfCgroup.split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    // "hierarchy-ID:controllers:path"; cgroup v2 has ID 0 and no controllers.
    auto [id, rest] = line.split(':');
    auto [controllers, path] = rest.split(':');
    if (id == "0" && controllers.empty())
      return leastOnTheWay(cgroupRoot, path, [](const std::string& dir) {
        auto [quota, period] = llvm::StringRef(kernelFile(dir + "/cpu.max")).trim().split(' ');
        return quota == "max" ? std::nullopt : cpusOf(quota, period);
      });
    llvm::SmallVector<llvm::StringRef, 4> names;
    controllers.split(names, ',');
    if (llvm::is_contained(names, "cpu")) {
      std::string mount = cgroupRoot + "/" + controllers.str();
      return leastOnTheWay(mount, path, [](const std::string& dir) {
        return cpusOf(kernelFile(dir + "/cpu.cfs_quota_us"),
                      kernelFile(dir + "/cpu.cfs_period_us"));
      });
    }
  }
  return std::nullopt;
}

unsigned availableCpus(const std::string& procSelfCgroup, const std::string& cgroupRoot) {
  unsigned cpus = 1;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0)
    cpus = std::max(1, CPU_COUNT(&mask));
  if (std::optional<unsigned> quota = cgroupCpuQuota(kernelFile(procSelfCgroup), cgroupRoot))
    cpus = std::min(cpus, *quota);
  return std::max(1u, cpus);
}

} // namespace tlc
