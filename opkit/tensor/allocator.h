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
// that fails on purpose) to Tensor::Allocate. LargeBlockRecycler wraps one
// to hand recently freed large blocks back (large_block_cpu_allocator() is
// the process-wide one over cpu_allocator()).
#ifndef OPKIT_TENSOR_ALLOCATOR_H_
#define OPKIT_TENSOR_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
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

// What a kernel asks of the memory behind a tensor it allocates
// (TensorFlow's AllocatorAttributes): host memory, usable by a NIC or a GPU.
// opkit has only host memory, so every request is met by the CPU allocator;
// the attributes still travel so that forwarding can refuse an input whose
// buffer was allocated with fewer guarantees than an output asks for.
//
//   AllocatorAttributes attr;
//   attr.set_on_host(true);
//   OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, shape, &tmp, attr));
struct OPKIT_EXPORT AllocatorAttributes {
  // Each setter only adds its flag (set_on_host(false) clears nothing), as
  // in TensorFlow.
  void set_on_host(bool v) { value |= static_cast<uint32_t>(v); }
  bool on_host() const { return (value & 0x1u) != 0; }
  void set_nic_compatible(bool v) { value |= static_cast<uint32_t>(v) << 1; }
  bool nic_compatible() const { return (value & 0x2u) != 0; }
  void set_gpu_compatible(bool v) { value |= static_cast<uint32_t>(v) << 2; }
  bool gpu_compatible() const { return (value & 0x4u) != 0; }
  // Takes the union of both sets of flags.
  void Merge(AllocatorAttributes other) { value |= other.value; }
  // Whether memory allocated with `other` also meets every flag set here.
  bool IsEqualOrLessRestrictiveThan(const AllocatorAttributes& other) const {
    return (value | other.value) == other.value;
  }
  // "AllocatorAttributes(on_host=1 nic_compatible=0 gpu_compatible=0)".
  std::string DebugString() const;

  // Bits 0-2 as above; bits above 23 are left to devices.
  uint32_t value = 0;
  // Which scoped allocator a tensor comes from (0: none).
  int32_t scope_id = 0;
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

// Note [Large block recycling]
// A program calling the same op in a loop frees the previous call's outputs
// as it gets the new ones. For big tensors that round trip is expensive:
// glibc serves blocks of a few MiB with fresh mmap()s (or trims them back),
// so each call would pay a page fault per 4 KiB of output while the kernel
// first writes it -- about 5% of a 1024^3 float MatMul. LargeBlockRecycler
// keeps a few recently freed large blocks and hands one back for a request
// of the same size (as a framework's pooling allocator would). It is bounded
// (Options::max_cached_blocks blocks, Options::max_cached_bytes bytes),
// gives every cached block back while its base allocator keeps counters (so
// that bytes_in_use stays exact), and large_block_cpu_allocator() is
// cpu_allocator() itself under sanitizers so that use-after-free is still
// caught. Blocks below Options::min_bytes go straight to the base allocator
// untracked (cpu_allocator() has its own cache for small blocks), and every
// tracked block costs a lock when freed, so it is meant for callers whose
// requests are large (eager calls on large inputs; Note [Eager output
// memory] in eager_context.cc).

// An allocator over `base` that recycles large blocks (Note [Large block
// recycling]). Thread-safe.
class OPKIT_EXPORT LargeBlockRecycler final : public Allocator {
 public:
  // Requests at least this large are recycled by default.
  static constexpr size_t kDefaultMinBytes = size_t{1} << 20;

  struct Options {
    // Smaller requests (and those aligned beyond kAllocatorAlignment) go to
    // the base allocator untracked.
    size_t min_bytes = kDefaultMinBytes;
    // Bounds on the freed blocks kept; the oldest go first. A block larger
    // than max_cached_bytes is never kept.
    size_t max_cached_blocks = 4;
    size_t max_cached_bytes = size_t{256} << 20;
  };

  // `base` is borrowed: it must outlive the recycler and every block the
  // recycler handed out.
  explicit LargeBlockRecycler(Allocator* base);
  LargeBlockRecycler(Allocator* base, Options options);
  // Gives the cached blocks back to `base`. Blocks it handed out must be
  // freed (through it) before it is destroyed.
  ~LargeBlockRecycler() override;
  LargeBlockRecycler(const LargeBlockRecycler&) = delete;
  LargeBlockRecycler& operator=(const LargeBlockRecycler&) = delete;

  // The base allocator's name.
  std::string Name() override;
  // A cached block of exactly `num_bytes` if there is one, else the base's.
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  // Keeps a large block for reuse (within the bounds), frees the rest.
  void DeallocateRaw(void* ptr) override;
  // The base allocator's counters.
  std::optional<AllocatorStats> GetStats() override;
  bool ClearStats() override;

  // Freed blocks kept for reuse, and their bytes.
  size_t cached_blocks() const;
  size_t cached_bytes() const;

 private:
  struct State;
  Allocator* const base_;
  const Options options_;
  const std::unique_ptr<State> state_;
};

// The process-wide LargeBlockRecycler over cpu_allocator(), with default
// options (thread-safe, never destroyed); cpu_allocator() itself in
// sanitizer builds.
OPKIT_EXPORT Allocator* large_block_cpu_allocator();

}  // namespace opkit

#endif  // OPKIT_TENSOR_ALLOCATOR_H_
