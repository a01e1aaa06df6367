// The allocation limit (Note [Allocation limit]): a tensor over it is a
// ResourceExhausted saying how big it was and how to raise the limit, with
// nothing allocated; the limit is settable, scoped and validated.
#include "opkit/tensor/allocation_limit.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/machine_resources.h"
#include "opkit/tensor/allocator.h"
#include "opkit/tensor/tensor.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(AllocationLimitTest, DefaultIsAtMostTheUsableMemory) {
  const int64_t limit = DefaultMaxAllocationBytes();
  EXPECT_GT(limit, 0);
  EXPECT_LE(limit, static_cast<int64_t>(kMaxCpuAllocationBytes));
  if (UsableMemoryBytes() > 0 && std::getenv("OPKIT_MAX_ALLOCATION_BYTES") == nullptr) {
    EXPECT_LE(limit, UsableMemoryBytes());
  }
  EXPECT_EQ(MaxAllocationBytes(), limit);
}

TEST(AllocationLimitTest, TensorOverTheLimitIsResourceExhaustedBeforeAllocating) {
  ScopedAllocationLimit limit(1 << 20);
  EXPECT_EQ(MaxAllocationBytes(), 1 << 20);
  const bool stats = cpu_allocator()->GetStats().has_value();
  EnableCpuAllocatorStats(true);
  const int64_t allocs_before = cpu_allocator()->GetStats()->num_allocs;
  Tensor t;
  EXPECT_THAT(Tensor::Allocate(DT_FLOAT, TensorShape({1024, 512}), &t),
              StatusIs(error::RESOURCE_EXHAUSTED,
                       AllOf(HasSubstr("tensor with shape [1024,512] and type float"),
                             HasSubstr("2097152 bytes is more than the allocation limit "
                                       "of 1048576 bytes"),
                             HasSubstr("OPKIT_MAX_ALLOCATION_BYTES"))));
  EXPECT_EQ(cpu_allocator()->GetStats()->num_allocs, allocs_before);
  EnableCpuAllocatorStats(stats);
  // At the limit is still fine.
  EXPECT_THAT(Tensor::Allocate(DT_FLOAT, TensorShape({256, 1024}), &t), IsOk());
}

TEST(AllocationLimitTest, ScopeRestoresThePreviousLimit) {
  const int64_t before = MaxAllocationBytes();
  {
    ScopedAllocationLimit outer(4096);
    {
      ScopedAllocationLimit inner(1024);
      EXPECT_EQ(MaxAllocationBytes(), 1024);
    }
    EXPECT_EQ(MaxAllocationBytes(), 4096);
  }
  EXPECT_EQ(MaxAllocationBytes(), before);
  Tensor t;
  EXPECT_THAT(Tensor::Allocate(DT_FLOAT, TensorShape({1024, 512}), &t), IsOk());
}

TEST(AllocationLimitTest, SetRejectsNegativeAndZeroRestoresTheDefault) {
  EXPECT_THAT(SetMaxAllocationBytes(-5),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("positive number of bytes")));
  EXPECT_EQ(MaxAllocationBytes(), DefaultMaxAllocationBytes());
  ASSERT_THAT(SetMaxAllocationBytes(100), IsOk());
  EXPECT_EQ(MaxAllocationBytes(), 100);
  ASSERT_THAT(SetMaxAllocationBytes(0), IsOk());
  EXPECT_EQ(MaxAllocationBytes(), DefaultMaxAllocationBytes());
}

TEST(AllocationLimitTest, ByteSizeBeyondInt64IsStillRefused) {
  Tensor t;
  // 2^61 elements of 8 bytes: the byte count does not fit in int64.
  EXPECT_THAT(Tensor::Allocate(DT_INT64, TensorShape({int64_t{1} << 31, int64_t{1} << 30}), &t),
              StatusIs(error::RESOURCE_EXHAUSTED));
}

}  // namespace
}  // namespace opkit
