// NumSchedulableCpus: at least one CPU, never more than the affinity mask
// allows, the same on every call. UsableMemoryBytes: some memory, never more
// than the machine has.
#include "opkit/core/machine_resources.h"

#include <thread>

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

#include "gtest/gtest.h"

namespace opkit {
namespace {

TEST(MachineResourcesTest, AtLeastOneAndAtMostTheAffinityMask) {
  const int cpus = NumSchedulableCpus();
  EXPECT_GE(cpus, 1);
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_LE(cpus, CPU_COUNT(&set));
#else
  const unsigned hw = std::thread::hardware_concurrency();
  if (hw > 0) EXPECT_LE(cpus, static_cast<int>(hw));
#endif
  EXPECT_EQ(NumSchedulableCpus(), cpus);
}

TEST(MachineResourcesTest, UsableMemoryIsAtMostThePhysicalMemory) {
  const int64_t bytes = UsableMemoryBytes();
#if defined(__linux__)
  EXPECT_GT(bytes, 0);
  const int64_t physical = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) *
                           static_cast<int64_t>(sysconf(_SC_PAGE_SIZE));
  EXPECT_LE(bytes, physical);
#endif
  EXPECT_EQ(UsableMemoryBytes(), bytes);
}

}  // namespace
}  // namespace opkit
