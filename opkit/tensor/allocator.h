// Allocator: where tensor memory comes from. The process-wide CPU allocator
// returns memory aligned to kAllocatorAlignment (64 bytes, enough for any
// Eigen packet), and reports failure as nullptr, never by aborting:
//
//   Allocator* a = cpu_allocator();
//   void* p = a->AllocateRaw(kAllocatorAlignment, bytes);
//   if (p == nullptr) return errors::ResourceExhausted("...");
//   ...
//   a->DeallocateRaw(p);
//
// A device or a test may supply its own Allocator (a pool, an arena, one
// that fails on purpose) to Tensor::Allocate.
#ifndef OPKIT_TENSOR_ALLOCATOR_H_
#define OPKIT_TENSOR_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "opkit/core/export.h"

namespace opkit {

// The alignment of every tensor buffer opkit allocates.
inline constexpr size_t kAllocatorAlignment = 64;

// Counters an allocator may keep (all in bytes except num_allocs).
struct OPKIT_EXPORT AllocatorStats {
  int64_t num_allocs = 0;          // Allocations made so far.
  int64_t bytes_in_use = 0;        // Bytes currently allocated.
  int64_t peak_bytes_in_use = 0;   // Highest bytes_in_use seen.
  int64_t largest_alloc_size = 0;  // Largest single allocation.
  std::optional<int64_t> bytes_limit;  // Set when the allocator has a cap.

  // "num_allocs: 3 bytes_in_use: 192 peak_bytes_in_use: 256 ...".
  std::string DebugString() const;
};

// An abstract memory source. Implementations must be thread-safe: kernels on
// many threads allocate from the same instance.
class OPKIT_EXPORT Allocator {
 public:
  virtual ~Allocator();

  // A short name for messages ("cpu").
  virtual std::string Name() = 0;

  // Returns `num_bytes` of uninitialised memory aligned to `alignment` (a
  // power of two; kAllocatorAlignment is always accepted), or nullptr when
  // the memory cannot be had or the request is invalid. Never aborts and
  // never throws. A request of 0 bytes returns a pointer that must still be
  // passed to DeallocateRaw.
  virtual void* AllocateRaw(size_t alignment, size_t num_bytes) = 0;

  // Releases memory from AllocateRaw of this allocator; nullptr is ignored.
  virtual void DeallocateRaw(void* ptr) = 0;

  // Counters, when the allocator keeps them.
  virtual std::optional<AllocatorStats> GetStats() { return std::nullopt; }
  // Resets num_allocs and largest_alloc_size to 0 and peak_bytes_in_use to
  // the current use; false if the allocator keeps no counters.
  virtual bool ClearStats() { return false; }
};

// The process-wide CPU allocator (thread-safe, never destroyed). Its limit on
// one request is kMaxCpuAllocationBytes; larger requests return nullptr.
// It keeps counters (GetStats) only while stats are enabled: counting costs
// shared atomic updates on every allocation, which the hot path of small
// kernels on several threads should not pay.
OPKIT_EXPORT Allocator* cpu_allocator();

// Turns cpu_allocator()'s counters on or off (default: off, or on when the
// environment variable OPKIT_CPU_ALLOCATOR_STATS is "1"). Enable before the
// allocations to be counted: memory allocated while disabled and freed while
// enabled is not subtracted. GetStats() is nullopt while disabled.
OPKIT_EXPORT void EnableCpuAllocatorStats(bool enable);

// The largest single request cpu_allocator() attempts (1 TiB): bigger ones
// fail fast with nullptr rather than reaching the system allocator.
inline constexpr size_t kMaxCpuAllocationBytes = size_t{1} << 40;

}  // namespace opkit

#endif  // OPKIT_TENSOR_ALLOCATOR_H_
