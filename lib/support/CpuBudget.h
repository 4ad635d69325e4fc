// How many CPUs this process may use: what its affinity mask allows (taskset, a batch
// scheduler's cpuset) and what its cgroup's CPU quota grants (a container's or a login node's
// `cpu.max`), whichever is less. tlc's default job count (-j): counting the machine's cores
// instead (`nproc` of the host) would start more compilers than the quota lets run, each
// waiting its turn with its memory held, the way torch's ninja swarm exceeds cgroup limits on
// shared login nodes.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tlc {

// The CPUs available: the affinity mask's count, bounded by the cgroup quota (rounded up), at
// least 1. The cgroup is read from `procSelfCgroup` under `cgroupRoot` (tests pass others).
unsigned availableCpus(const std::string& procSelfCgroup = "/proc/self/cgroup",
                       const std::string& cgroupRoot = "/sys/fs/cgroup");

// The CPU quota, in CPUs (rounded up), that the cgroup named in `procSelfCgroup` (the text of
// /proc/self/cgroup) and its ancestors set, read under `cgroupRoot` (/sys/fs/cgroup): cgroup v2's
// cpu.max ("200000 100000" = 2 CPUs, "max ..." = none) or v1's cpu.cfs_quota_us and
// cpu.cfs_period_us. nullopt when none is set.
std::optional<unsigned> cgroupCpuQuota(llvm::StringRef procSelfCgroup,
                                       const std::string& cgroupRoot);

} // namespace tlc
