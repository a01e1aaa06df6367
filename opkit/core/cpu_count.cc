// NumSchedulableCpus: affinity mask, cgroup v2 quota, hardware threads.
#include "opkit/core/cpu_count.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace opkit {
namespace {

// The cgroup v2 CPU quota in whole CPUs (rounded up), or 0 when there is
// none or it cannot be read.
int CgroupCpuQuota() {
#if defined(__linux__)
  // The process's own cgroup ("0::/path"); the mount is the usual one.
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  std::string path;
  while (std::getline(self, line)) {
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  }
  for (const std::string& dir :
       {std::string("/sys/fs/cgroup") + path, std::string("/sys/fs/cgroup")}) {
    std::ifstream max(dir + "/cpu.max");
    std::string quota;
    double period = 0;
    if (!(max >> quota >> period)) continue;
    if (quota == "max" || period <= 0) return 0;
    // strtod, not stod: a malformed file must not throw.
    const double cpus = std::strtod(quota.c_str(), nullptr) / period;
    return cpus > 0 ? static_cast<int>(std::ceil(cpus)) : 0;
  }
#endif
  return 0;
}

int CountSchedulableCpus() {
  int cpus = 0;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = CPU_COUNT(&set);
#endif
  if (cpus <= 0) cpus = static_cast<int>(std::thread::hardware_concurrency());
  const int quota = CgroupCpuQuota();
  if (quota > 0 && (cpus <= 0 || quota < cpus)) cpus = quota;
  return std::max(cpus, 1);
}

}  // namespace

int NumSchedulableCpus() {
  static const int cpus = CountSchedulableCpus();
  return cpus;
}

}  // namespace opkit
