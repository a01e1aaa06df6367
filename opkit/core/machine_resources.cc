// NumSchedulableCpus: affinity mask, cgroup v2 quota, hardware threads.
// UsableMemoryBytes: physical pages, cgroup v2 memory.max.
#include "opkit/core/machine_resources.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

namespace opkit {
namespace {

#if defined(__linux__)
// The first line of `name` in the process's own cgroup v2 directory
// ("0::/path" in /proc/self/cgroup, under the usual mount), falling back to
// the root cgroup's; false when neither has the file.
bool ReadCgroupFile(const std::string& name, std::string* line) {
  std::ifstream self("/proc/self/cgroup");
  std::string entry;
  std::string path;
  while (std::getline(self, entry)) {
    if (entry.rfind("0::", 0) == 0) path = entry.substr(3);
  }
  for (const std::string& dir :
       {std::string("/sys/fs/cgroup") + path, std::string("/sys/fs/cgroup")}) {
    std::ifstream file(dir + "/" + name);
    if (std::getline(file, *line)) return true;
  }
  return false;
}
#endif

// The cgroup v2 CPU quota in whole CPUs (rounded up), or 0 when there is
// none or it cannot be read.
int CgroupCpuQuota() {
#if defined(__linux__)
  std::string line;
  if (!ReadCgroupFile("cpu.max", &line)) return 0;
  std::istringstream max(line);
  std::string quota;
  double period = 0;
  if (!(max >> quota >> period)) return 0;
  if (quota == "max" || period <= 0) return 0;
  // strtod, not stod: a malformed file must not throw.
  const double cpus = std::strtod(quota.c_str(), nullptr) / period;
  return cpus > 0 ? static_cast<int>(std::ceil(cpus)) : 0;
#else
  return 0;
#endif
}

int64_t CountUsableMemory() {
  int64_t bytes = 0;
#if defined(__linux__)
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    bytes = static_cast<int64_t>(pages) * static_cast<int64_t>(page_size);
  }
  std::string line;
  if (ReadCgroupFile("memory.max", &line) && line != "max") {
    // strtoll, not stoll: a malformed file must not throw.
    const long long limit = std::strtoll(line.c_str(), nullptr, 10);
    if (limit > 0 && (bytes == 0 || limit < bytes)) bytes = limit;
  }
#endif
  return bytes;
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

int64_t UsableMemoryBytes() {
  static const int64_t bytes = CountUsableMemory();
  return bytes;
}

}  // namespace opkit
