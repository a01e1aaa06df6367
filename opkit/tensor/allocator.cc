// The Allocator interface, the process-wide CPU allocator and the large
// block recycler.
#include "opkit/tensor/allocator.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "opkit/core/mutex.h"
#include "opkit/core/str_util.h"

namespace opkit {

std::string AllocatorStats::DebugString() const {
  std::string s = StrCat("num_allocs: ", num_allocs, " bytes_in_use: ",
                         bytes_in_use, " peak_bytes_in_use: ", peak_bytes_in_use,
                         " largest_alloc_size: ", largest_alloc_size);
  if (bytes_limit.has_value()) s += StrCat(" bytes_limit: ", *bytes_limit);
  return s;
}

std::string AllocatorAttributes::DebugString() const {
  return StrCat("AllocatorAttributes(on_host=", on_host() ? 1 : 0,
                " nic_compatible=", nic_compatible() ? 1 : 0,
                " gpu_compatible=", gpu_compatible() ? 1 : 0, ")");
}

Allocator::~Allocator() = default;

namespace {

void UpdateMax(std::atomic<int64_t>& target, int64_t value) {
  int64_t seen = target.load(std::memory_order_relaxed);
  while (value > seen &&
         !target.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// Sanitizer builds skip the block caches below (Note [Small block cache],
// Note [Large block recycling]) so that use-after-free is still caught.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif
#else
constexpr bool kSanitizerBuild = false;
#endif

bool StatsEnabledByEnvironment() {
  const char* v = std::getenv("OPKIT_CPU_ALLOCATOR_STATS");
  return v != nullptr && std::string(v) == "1";
}

// Note [Small block cache]
// posix_memalign is slow for small blocks: it carves an aligned chunk out of
// a bigger one and frees the rest, and the blocks it returns are freed past
// glibc's per-thread cache. Small tensors (the eager hot path allocates one
// per call) would spend most of their time there. So blocks of up to
// kSmallClasses * 64 bytes are recycled through a per-thread cache, by 64-byte
// size class. A block freed on another thread than it was allocated on
// simply joins that thread's cache. Sanitizer builds skip the cache so that
// use-after-free is still caught.
constexpr bool kUseSmallBlockCache = !kSanitizerBuild;
constexpr size_t kSmallClassBytes = 64;
constexpr int kSmallClasses = 16;
constexpr int kBlocksPerClass = 32;

struct SmallBlockCache;
// Set when this thread's cache is gone (thread exit, static destruction):
// blocks are then freed directly. Trivially destructible, so it outlives
// the cache.
thread_local bool small_block_cache_destroyed = false;

struct SmallBlockCache {
  void* blocks[kSmallClasses][kBlocksPerClass];
  int count[kSmallClasses] = {};
  ~SmallBlockCache() {
    small_block_cache_destroyed = true;
    for (int c = 0; c < kSmallClasses; ++c) {
      for (int i = 0; i < count[c]; ++i) free(blocks[c][i]);
    }
  }
};
thread_local SmallBlockCache small_block_cache;

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
    size_t bytes = num_bytes == 0 ? 1 : num_bytes;
    const size_t size_class = (bytes + kSmallClassBytes - 1) / kSmallClassBytes;
    if (kUseSmallBlockCache && alignment == kAllocatorAlignment &&
        size_class <= kSmallClasses && !small_block_cache_destroyed) {
      // Note [Small block cache]
      SmallBlockCache& cache = small_block_cache;
      int& n = cache.count[size_class - 1];
      if (n > 0) {
        ptr = cache.blocks[size_class - 1][--n];
      } else {
        bytes = size_class * kSmallClassBytes;
      }
    }
    if (ptr == nullptr && posix_memalign(&ptr, alignment, bytes) != 0) {
      return nullptr;
    }
    if (!stats_enabled_.load(std::memory_order_relaxed)) return ptr;
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
    if (stats_enabled_.load(std::memory_order_relaxed)) {
      bytes_in_use_.fetch_sub(static_cast<int64_t>(malloc_usable_size(ptr)),
                              std::memory_order_relaxed);
    }
    if (kUseSmallBlockCache && !small_block_cache_destroyed) {
      // Every block here is 64-byte aligned; its class is how many whole
      // 64-byte units it holds, so it serves any request of that class.
      const size_t size_class = malloc_usable_size(ptr) / kSmallClassBytes;
      if (size_class >= 1 && size_class <= kSmallClasses) {
        SmallBlockCache& cache = small_block_cache;
        int& n = cache.count[size_class - 1];
        if (n < kBlocksPerClass) {
          cache.blocks[size_class - 1][n++] = ptr;
          return;
        }
      }
    }
    free(ptr);
  }

  void EnableStats(bool enable) {
    stats_enabled_.store(enable, std::memory_order_relaxed);
  }

  std::optional<AllocatorStats> GetStats() override {
    if (!stats_enabled_.load(std::memory_order_relaxed)) return std::nullopt;
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
  std::atomic<bool> stats_enabled_{StatsEnabledByEnvironment()};
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
};

}  // namespace

namespace {
CpuAllocator* GlobalCpuAllocator() {
  // Never destroyed: tensors in static objects may outlive main().
  static CpuAllocator* const allocator = new CpuAllocator();
  return allocator;
}
}  // namespace

Allocator* cpu_allocator() { return GlobalCpuAllocator(); }

void EnableCpuAllocatorStats(bool enable) { GlobalCpuAllocator()->EnableStats(enable); }

// ---------------------------------------------------------------------------
// LargeBlockRecycler (Note [Large block recycling])

struct LargeBlockRecycler::State {
  struct Block {
    void* ptr;
    size_t bytes;
  };
  mutable mutex mu;
  // Size of every large block handed out or cached.
  absl::flat_hash_map<void*, size_t> sizes OPKIT_GUARDED_BY(mu);
  // Freed blocks kept for reuse, oldest first.
  std::vector<Block> cached OPKIT_GUARDED_BY(mu);
  size_t cached_bytes OPKIT_GUARDED_BY(mu) = 0;
};

LargeBlockRecycler::LargeBlockRecycler(Allocator* base)
    : LargeBlockRecycler(base, Options()) {}

LargeBlockRecycler::LargeBlockRecycler(Allocator* base, Options options)
    : base_(base), options_(options), state_(std::make_unique<State>()) {}

LargeBlockRecycler::~LargeBlockRecycler() {
  mutex_lock l(state_->mu);
  for (const State::Block& b : state_->cached) base_->DeallocateRaw(b.ptr);
}

std::string LargeBlockRecycler::Name() { return base_->Name(); }

void* LargeBlockRecycler::AllocateRaw(size_t alignment, size_t num_bytes) {
  if (num_bytes < options_.min_bytes || alignment > kAllocatorAlignment) {
    return base_->AllocateRaw(alignment, num_bytes);
  }
  {
    mutex_lock l(state_->mu);
    std::vector<State::Block>& cached = state_->cached;
    for (size_t i = 0; i < cached.size(); ++i) {
      if (cached[i].bytes == num_bytes) {
        void* ptr = cached[i].ptr;
        state_->cached_bytes -= num_bytes;
        cached.erase(cached.begin() + i);
        return ptr;  // Still in sizes.
      }
    }
  }
  void* ptr = base_->AllocateRaw(alignment, num_bytes);
  if (ptr != nullptr) {
    mutex_lock l(state_->mu);
    state_->sizes[ptr] = num_bytes;
  }
  return ptr;
}

void LargeBlockRecycler::DeallocateRaw(void* ptr) {
  if (ptr == nullptr) return;
  std::vector<void*> to_free;
  {
    mutex_lock l(state_->mu);
    std::vector<State::Block>& cached = state_->cached;
    auto it = state_->sizes.find(ptr);
    if (it == state_->sizes.end()) {
      // A small block: never tracked.
      to_free.push_back(ptr);
    } else if (base_->GetStats().has_value()) {
      // Counters on: give everything back so bytes_in_use is exact.
      state_->sizes.erase(it);
      to_free.push_back(ptr);
      for (const State::Block& b : cached) {
        state_->sizes.erase(b.ptr);
        to_free.push_back(b.ptr);
      }
      cached.clear();
      state_->cached_bytes = 0;
    } else {
      const size_t bytes = it->second;
      if (bytes > options_.max_cached_bytes || options_.max_cached_blocks == 0) {
        state_->sizes.erase(it);
        to_free.push_back(ptr);
      } else {
        // Evict the oldest blocks to make room.
        while (!cached.empty() &&
               (cached.size() >= options_.max_cached_blocks ||
                state_->cached_bytes + bytes > options_.max_cached_bytes)) {
          state_->sizes.erase(cached.front().ptr);
          to_free.push_back(cached.front().ptr);
          state_->cached_bytes -= cached.front().bytes;
          cached.erase(cached.begin());
        }
        cached.push_back(State::Block{ptr, bytes});
        state_->cached_bytes += bytes;
      }
    }
  }
  for (void* p : to_free) base_->DeallocateRaw(p);
}

std::optional<AllocatorStats> LargeBlockRecycler::GetStats() {
  return base_->GetStats();
}

bool LargeBlockRecycler::ClearStats() { return base_->ClearStats(); }

size_t LargeBlockRecycler::cached_blocks() const {
  mutex_lock l(state_->mu);
  return state_->cached.size();
}

size_t LargeBlockRecycler::cached_bytes() const {
  mutex_lock l(state_->mu);
  return state_->cached_bytes;
}

Allocator* large_block_cpu_allocator() {
  if (kSanitizerBuild) return cpu_allocator();
  // Never destroyed: tensors it allocated may outlive every user.
  static LargeBlockRecycler* const recycler = new LargeBlockRecycler(cpu_allocator());
  return recycler;
}

}  // namespace opkit
