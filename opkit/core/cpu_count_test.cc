// NumSchedulableCpus: at least one CPU, never more than the affinity mask
// allows, the same on every call.
#include "opkit/core/cpu_count.h"

#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

#include "gtest/gtest.h"

namespace opkit {
namespace {

TEST(CpuCountTest, AtLeastOneAndAtMostTheAffinityMask) {
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

}  // namespace
}  // namespace opkit
