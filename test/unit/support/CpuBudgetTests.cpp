// support/CpuBudget: the default job count follows the CPUs the process may use, its affinity
// mask and its cgroup's CPU quota (issue 34: torch's ninja swarm counts every core of a login
// node and exceeds its cgroup). Fake cgroup trees, v2 and v1.
#include "support/CpuBudget.h"

#include "TestSupport.h"

#include "frontend/Frontend.h"
#include "support/Files.h"
#include "support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <sched.h>

using namespace tlc;
using namespace tlc::test;

namespace {

void put(const std::string& path, const std::string& text) {
  REQUIRE(!llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)));
  REQUIRE(!writeFile(path, text));
}

} // namespace

TEST_CASE("a cgroup v2 cpu.max bounds the CPUs and the least ancestor wins", "[support]") {
  std::string root = scratchDir("cgroup-v2");
  put(root + "/user.slice/cpu.max", "max 100000\n");
  put(root + "/user.slice/login/cpu.max", "350000 100000\n"); // 3.5 CPUs: 4 jobs
  put(root + "/user.slice/login/session/cpu.max", "max 100000\n");
  CHECK(cgroupCpuQuota("0::/user.slice/login/session\n", root) == 4u);
  put(root + "/user.slice/cpu.max", "150000 100000\n"); // an ancestor's quota is lower
  CHECK(cgroupCpuQuota("0::/user.slice/login/session\n", root) == 2u);
  put(root + "/cpu.max", "50000 100000\n"); // half a CPU still runs one job
  put(root + "/user.slice/cpu.max", "max 100000\n");
  put(root + "/user.slice/login/cpu.max", "max 100000\n");
  CHECK(cgroupCpuQuota("0::/user.slice/login/session\n", root) == 1u);
  CHECK_FALSE(cgroupCpuQuota("0::/nowhere\n", scratchDir("cgroup-none")));
}

TEST_CASE("a cgroup v1 CFS quota bounds the CPUs", "[support]") {
  std::string root = scratchDir("cgroup-v1");
  put(root + "/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "200000\n");
  put(root + "/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  std::string self = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n";
  CHECK(cgroupCpuQuota(self, root) == 2u);
  put(root + "/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n"); // no quota
  CHECK_FALSE(cgroupCpuQuota(self, root));
}

TEST_CASE("the quota bounds the CPUs the affinity mask allows", "[support]") {
  cpu_set_t mask;
  REQUIRE(sched_getaffinity(0, sizeof mask, &mask) == 0);
  unsigned affinity = unsigned(CPU_COUNT(&mask));
  std::string root = scratchDir("cgroup-budget");
  put(root + "/proc-self-cgroup", "0::/job\n");
  put(root + "/job/cpu.max", "100000 100000\n"); // one CPU
  CHECK(availableCpus(root + "/proc-self-cgroup", root) == 1u);
  put(root + "/job/cpu.max", "100000000 100000\n"); // a thousand: the mask decides
  CHECK(availableCpus(root + "/proc-self-cgroup", root) == affinity);
  CHECK(availableCpus(root + "/none", root) == affinity);
}

TEST_CASE("the default job count is the CPUs the affinity mask allows", "[support]") {
  cpu_set_t mask;
  REQUIRE(sched_getaffinity(0, sizeof mask, &mask) == 0);
  CHECK(availableCpus() <= unsigned(CPU_COUNT(&mask)));
  CHECK(availableCpus() >= 1u);
  // Under `taskset -c 0` a build runs one job at a time: tlc -v says so.
  std::string dir = scratchDir("cpu-budget-taskset");
  auto run = runCommand({"taskset", "-c", "0", TLC_BINARY, "build", sample("vadd/vadd.cu"), "-o",
                         dir + "/out", "--emit-only", "-v"});
  REQUIRE_EXPECTED(run);
  CHECK_THAT(run->output, Catch::Contains("at most 1 jobs at once"));
  if (CPU_COUNT(&mask) >= 2) { // two CPUs allowed: two jobs, not the machine's count or one
    auto two = runCommand({"taskset", "-c", "0,1", TLC_BINARY, "build", sample("vadd/vadd.cu"),
                           "-o", dir + "/out2", "--emit-only", "-v"});
    REQUIRE_EXPECTED(two);
    CHECK_THAT(two->output, Catch::Contains("at most 2 jobs at once"));
  }
  CHECK(effectiveJobs(3) == 3u);
}
