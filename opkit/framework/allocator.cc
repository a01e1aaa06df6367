// The Allocator interface and the process-wide CPU allocator.
#include "opkit/framework/allocator.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>

#include "opkit/core/str_util.h"

namespace opkit {

std::string AllocatorStats::DebugString() const {
  std::string s = StrCat("num_allocs: ", num_allocs, " bytes_in_use: ",
                         bytes_in_use, " peak_bytes_in_use: ", peak_bytes_in_use,
                         " largest_alloc_size: ", largest_alloc_size);
  if (bytes_limit.has_value()) s += StrCat(" bytes_limit: ", *bytes_limit);
  return s;
}

Allocator::~Allocator() = default;

namespace {

void UpdateMax(std::atomic<int64_t>& target, int64_t value) {
  int64_t seen = target.load(std::memory_order_relaxed);
  while (value > seen &&
         !target.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// posix_memalign with counters. The counters use malloc_usable_size so that
// DeallocateRaw needs no size and no header in front of the block.
class CpuAllocator final : public Allocator {
 public:
  std::string Name() override { return "cpu"; }

  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
    if (num_bytes > kMaxCpuAllocationBytes) return nullptr;
    if (alignment < kAllocatorAlignment) alignment = kAllocatorAlignment;
    void* ptr = nullptr;
    // A zero-byte request still gets a distinct block, so callers may treat
    // nullptr as failure without a special case.
    if (posix_memalign(&ptr, alignment, num_bytes == 0 ? 1 : num_bytes) != 0) {
      return nullptr;
    }
    const int64_t size = static_cast<int64_t>(malloc_usable_size(ptr));
    num_allocs_.fetch_add(1, std::memory_order_relaxed);
    const int64_t in_use =
        bytes_in_use_.fetch_add(size, std::memory_order_relaxed) + size;
    UpdateMax(peak_bytes_in_use_, in_use);
    UpdateMax(largest_alloc_size_, size);
    return ptr;
  }

  void DeallocateRaw(void* ptr) override {
    if (ptr == nullptr) return;
    bytes_in_use_.fetch_sub(static_cast<int64_t>(malloc_usable_size(ptr)),
                            std::memory_order_relaxed);
    free(ptr);
  }

  std::optional<AllocatorStats> GetStats() override {
    AllocatorStats stats;
    stats.num_allocs = num_allocs_.load(std::memory_order_relaxed);
    stats.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
    stats.peak_bytes_in_use = peak_bytes_in_use_.load(std::memory_order_relaxed);
    stats.largest_alloc_size = largest_alloc_size_.load(std::memory_order_relaxed);
    return stats;
  }

  bool ClearStats() override {
    num_allocs_.store(0, std::memory_order_relaxed);
    peak_bytes_in_use_.store(bytes_in_use_.load(std::memory_order_relaxed),
                             std::memory_order_relaxed);
    largest_alloc_size_.store(0, std::memory_order_relaxed);
    return true;
  }

 private:
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
};

}  // namespace

Allocator* cpu_allocator() {
  // Never destroyed: tensors in static objects may outlive main().
  static CpuAllocator* const allocator = new CpuAllocator();
  return allocator;
}

}  // namespace opkit
