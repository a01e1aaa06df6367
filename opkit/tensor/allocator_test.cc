// Tests of the CPU allocator (alignment, failures, stats, concurrency) and of
// LargeBlockRecycler, which hands freed large blocks back for the same size.

#include "opkit/tensor/allocator.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
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

// Counts what reaches it; keeps counters (GetStats) when told to.
class CountingAllocator : public Allocator {
 public:
  std::string Name() override { return "counting"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    ++allocs;
    return cpu_allocator()->AllocateRaw(alignment, bytes);
  }
  void DeallocateRaw(void* p) override {
    ++deallocs;
    cpu_allocator()->DeallocateRaw(p);
  }
  std::optional<AllocatorStats> GetStats() override {
    if (!stats) return std::nullopt;
    return AllocatorStats();
  }
  std::atomic<int> allocs{0};
  std::atomic<int> deallocs{0};
  bool stats = false;
};

constexpr size_t kMiB = size_t{1} << 20;

TEST(LargeBlockRecyclerTest, HandsAFreedBlockBackForTheSameSize) {
  CountingAllocator base;
  LargeBlockRecycler r(&base);
  EXPECT_EQ(r.Name(), "counting");
  void* p = r.AllocateRaw(kAllocatorAlignment, 2 * kMiB);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 2 * kMiB);
  r.DeallocateRaw(p);
  EXPECT_EQ(r.cached_blocks(), 1u);
  EXPECT_EQ(r.cached_bytes(), 2 * kMiB);
  EXPECT_EQ(r.AllocateRaw(kAllocatorAlignment, 2 * kMiB), p);
  EXPECT_EQ(r.cached_blocks(), 0u);
  EXPECT_EQ(base.allocs.load(), 1);
  // Another size is not served from the cache.
  r.DeallocateRaw(p);
  void* q = r.AllocateRaw(kAllocatorAlignment, 3 * kMiB);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(base.allocs.load(), 2);
  EXPECT_EQ(r.cached_blocks(), 1u);
  r.DeallocateRaw(q);
  EXPECT_EQ(base.deallocs.load(), 0);
}

TEST(LargeBlockRecyclerTest, SmallAndOveralignedRequestsPassThrough) {
  CountingAllocator base;
  LargeBlockRecycler r(&base);
  void* small = r.AllocateRaw(kAllocatorAlignment, kMiB - 1);
  void* aligned = r.AllocateRaw(4096, 2 * kMiB);
  ASSERT_NE(small, nullptr);
  ASSERT_NE(aligned, nullptr);
  EXPECT_TRUE(IsAligned(aligned, 4096));
  r.DeallocateRaw(small);
  r.DeallocateRaw(aligned);
  EXPECT_EQ(base.deallocs.load(), 2);
  EXPECT_EQ(r.cached_blocks(), 0u);
  r.DeallocateRaw(nullptr);  // Ignored.
}

TEST(LargeBlockRecyclerTest, KeepsAtMostMaxBlocksOldestEvictedFirst) {
  CountingAllocator base;
  LargeBlockRecycler r(&base);
  std::vector<void*> blocks;
  for (size_t i = 0; i < 6; ++i) {
    blocks.push_back(r.AllocateRaw(kAllocatorAlignment, (i + 1) * kMiB));
  }
  for (void* p : blocks) r.DeallocateRaw(p);
  EXPECT_EQ(r.cached_blocks(), 4u);
  EXPECT_EQ(base.deallocs.load(), 2);
  // The two oldest (1 and 2 MiB) went back; the newer ones are kept.
  EXPECT_EQ(r.cached_bytes(), (3 + 4 + 5 + 6) * kMiB);
  EXPECT_EQ(r.AllocateRaw(kAllocatorAlignment, 6 * kMiB), blocks[5]);
  void* fresh = r.AllocateRaw(kAllocatorAlignment, 1 * kMiB);  // not cached
  EXPECT_EQ(base.allocs.load(), 7);
  r.DeallocateRaw(fresh);
  r.DeallocateRaw(blocks[5]);
}

TEST(LargeBlockRecyclerTest, KeepsAtMostMaxBytes) {
  CountingAllocator base;
  LargeBlockRecycler::Options options;
  options.max_cached_bytes = 5 * kMiB;
  LargeBlockRecycler r(&base, options);
  void* a = r.AllocateRaw(kAllocatorAlignment, 2 * kMiB);
  void* b = r.AllocateRaw(kAllocatorAlignment, 2 * kMiB);
  void* c = r.AllocateRaw(kAllocatorAlignment, 2 * kMiB);
  void* huge = r.AllocateRaw(kAllocatorAlignment, 6 * kMiB);
  r.DeallocateRaw(a);
  r.DeallocateRaw(b);
  EXPECT_EQ(r.cached_bytes(), 4 * kMiB);
  r.DeallocateRaw(c);  // a goes to make room
  EXPECT_EQ(r.cached_bytes(), 4 * kMiB);
  EXPECT_EQ(base.deallocs.load(), 1);
  r.DeallocateRaw(huge);  // larger than the whole budget: never kept
  EXPECT_EQ(base.deallocs.load(), 2);
  EXPECT_EQ(r.cached_blocks(), 2u);
}

TEST(LargeBlockRecyclerTest, GivesEverythingBackWhileTheBaseCounts) {
  CountingAllocator base;
  LargeBlockRecycler r(&base);
  void* a = r.AllocateRaw(kAllocatorAlignment, 2 * kMiB);
  void* b = r.AllocateRaw(kAllocatorAlignment, 2 * kMiB);
  r.DeallocateRaw(a);
  EXPECT_EQ(r.cached_blocks(), 1u);
  EXPECT_FALSE(r.GetStats().has_value());
  base.stats = true;
  EXPECT_TRUE(r.GetStats().has_value());
  r.DeallocateRaw(b);
  EXPECT_EQ(r.cached_blocks(), 0u);
  EXPECT_EQ(base.deallocs.load(), 2);
}

TEST(LargeBlockRecyclerTest, DestructionGivesCachedBlocksBack) {
  CountingAllocator base;
  {
    LargeBlockRecycler r(&base);
    r.DeallocateRaw(r.AllocateRaw(kAllocatorAlignment, 2 * kMiB));
    EXPECT_EQ(base.deallocs.load(), 0);
  }
  EXPECT_EQ(base.deallocs.load(), 1);
}

TEST(LargeBlockRecyclerTest, ConcurrentUse) {
  CountingAllocator base;
  LargeBlockRecycler r(&base);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&r, t] {
      for (int i = 0; i < 50; ++i) {
        const size_t bytes = (1 + (i + t) % 3) * kMiB;
        char* p = static_cast<char*>(r.AllocateRaw(kAllocatorAlignment, bytes));
        ASSERT_NE(p, nullptr);
        p[0] = p[bytes - 1] = static_cast<char>(i);
        r.DeallocateRaw(p);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(r.cached_blocks(), 4u);
  EXPECT_EQ(base.allocs.load() - base.deallocs.load(),
            static_cast<int>(r.cached_blocks()));
}

TEST(LargeBlockRecyclerTest, ProcessWideOneServesAlignedBlocks) {
  Allocator* a = large_block_cpu_allocator();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, large_block_cpu_allocator());
  void* p = a->AllocateRaw(kAllocatorAlignment, 2 * kMiB);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(IsAligned(p, kAllocatorAlignment));
  a->DeallocateRaw(p);
}

}  // namespace
}  // namespace opkit
