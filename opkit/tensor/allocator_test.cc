#include "opkit/tensor/allocator.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace opkit {
namespace {

bool IsAligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(CpuAllocatorTest, NameAndSingleton) {
  EXPECT_EQ(cpu_allocator()->Name(), "cpu");
  EXPECT_EQ(cpu_allocator(), cpu_allocator());
}

TEST(CpuAllocatorTest, AlignedAndWritable) {
  Allocator* a = cpu_allocator();
  for (size_t bytes : {size_t{1}, size_t{3}, size_t{64}, size_t{1000},
                       size_t{1} << 20}) {
    void* p = a->AllocateRaw(kAllocatorAlignment, bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_TRUE(IsAligned(p, 64)) << bytes;
    std::memset(p, 0xab, bytes);
    a->DeallocateRaw(p);
  }
}

TEST(CpuAllocatorTest, SmallAlignmentIsRaisedTo64) {
  void* p = cpu_allocator()->AllocateRaw(4, 10);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(IsAligned(p, kAllocatorAlignment));
  cpu_allocator()->DeallocateRaw(p);
}

TEST(CpuAllocatorTest, LargerAlignmentHonoured) {
  void* p = cpu_allocator()->AllocateRaw(4096, 100);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(IsAligned(p, 4096));
  cpu_allocator()->DeallocateRaw(p);
}

TEST(CpuAllocatorTest, ZeroBytesGivesDistinctPointers) {
  void* p = cpu_allocator()->AllocateRaw(kAllocatorAlignment, 0);
  void* q = cpu_allocator()->AllocateRaw(kAllocatorAlignment, 0);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  cpu_allocator()->DeallocateRaw(p);
  cpu_allocator()->DeallocateRaw(q);
}

TEST(CpuAllocatorTest, FailuresReturnNull) {
  Allocator* a = cpu_allocator();
  EXPECT_EQ(a->AllocateRaw(kAllocatorAlignment, kMaxCpuAllocationBytes + 1), nullptr);
  EXPECT_EQ(a->AllocateRaw(kAllocatorAlignment, std::numeric_limits<size_t>::max()),
            nullptr);
  EXPECT_EQ(a->AllocateRaw(3, 16), nullptr) << "alignment not a power of two";
  EXPECT_EQ(a->AllocateRaw(0, 16), nullptr) << "alignment 0";
  a->DeallocateRaw(nullptr);  // Ignored.
}

TEST(CpuAllocatorTest, StatsOnlyWhileEnabled) {
  EnableCpuAllocatorStats(false);
  EXPECT_FALSE(cpu_allocator()->GetStats().has_value());
}

TEST(CpuAllocatorTest, Stats) {
  EnableCpuAllocatorStats(true);
  Allocator* a = cpu_allocator();
  ASSERT_TRUE(a->ClearStats());
  auto before = a->GetStats();
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(before->num_allocs, 0);
  void* p = a->AllocateRaw(kAllocatorAlignment, 1 << 16);
  ASSERT_NE(p, nullptr);
  auto during = a->GetStats();
  EXPECT_EQ(during->num_allocs, 1);
  EXPECT_GE(during->bytes_in_use, before->bytes_in_use + (1 << 16));
  EXPECT_GE(during->peak_bytes_in_use, during->bytes_in_use);
  EXPECT_GE(during->largest_alloc_size, 1 << 16);
  a->DeallocateRaw(p);
  auto after = a->GetStats();
  EXPECT_EQ(after->bytes_in_use, before->bytes_in_use);
  EXPECT_THAT(after->DebugString(), ::testing::HasSubstr("num_allocs: 1"));
  EnableCpuAllocatorStats(false);
}

TEST(CpuAllocatorTest, ConcurrentUse) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 200; ++i) {
        void* p = cpu_allocator()->AllocateRaw(kAllocatorAlignment, 128 + i);
        ASSERT_NE(p, nullptr);
        std::memset(p, i & 0xff, 128 + i);
        cpu_allocator()->DeallocateRaw(p);
      }
    });
  }
  for (auto& t : threads) t.join();
}

// A custom allocator only needs the two virtuals; stats are optional.
class NoStatsAllocator : public Allocator {
 public:
  std::string Name() override { return "nostats"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    return cpu_allocator()->AllocateRaw(alignment, bytes);
  }
  void DeallocateRaw(void* p) override { cpu_allocator()->DeallocateRaw(p); }
};

TEST(AllocatorTest, StatsAreOptional) {
  NoStatsAllocator a;
  EXPECT_FALSE(a.GetStats().has_value());
  EXPECT_FALSE(a.ClearStats());
  AllocatorStats stats;
  stats.bytes_limit = 10;
  EXPECT_THAT(stats.DebugString(), ::testing::HasSubstr("bytes_limit: 10"));
}

}  // namespace
}  // namespace opkit
