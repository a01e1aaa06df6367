// The largest tensor opkit will allocate in one request, so that a shape
// from a GraphDef, a TensorProto or a `Fill` of huge dims is refused with
// ResourceExhausted naming the op, before anything is allocated, instead of
// a std::bad_alloc or a visit from the OOM killer.
//
//   ScopedAllocationLimit limit(64 << 20);   // this scope: at most 64 MiB
//   Status s = session->Run(...);            // a bigger tensor fails cleanly
//
// Note [Allocation limit]
// Every Tensor::Allocate (kernel outputs and temporaries, parsed
// TensorProtos, tensors made by the runtime) compares its byte size with
// MaxAllocationBytes() before asking the allocator. The default is what the
// process could really get: the machine's physical memory, lowered to the
// cgroup v2 memory limit (memory.max) when one is set. Without swap, one
// tensor larger than that could never be filled, and on Linux's overcommit
// the request would succeed and the process be killed while writing it.
// The environment variable OPKIT_MAX_ALLOCATION_BYTES (a positive byte
// count, read once) or SetMaxAllocationBytes overrides the default; a
// value that does not parse is ignored with a logged warning.
#ifndef OPKIT_TENSOR_ALLOCATION_LIMIT_H_
#define OPKIT_TENSOR_ALLOCATION_LIMIT_H_

#include <cstdint>
#include <string_view>

#include "opkit/core/export.h"
#include "opkit/core/status.h"

namespace opkit {

// The limit in bytes on one tensor allocation in this process (thread-safe).
OPKIT_EXPORT int64_t MaxAllocationBytes();

// The limit opkit starts with: OPKIT_MAX_ALLOCATION_BYTES if set and valid,
// otherwise the usable memory described in Note [Allocation limit].
OPKIT_EXPORT int64_t DefaultMaxAllocationBytes();

// Sets the limit for the whole process; 0 restores the default.
// InvalidArgument for a negative value (the limit is unchanged).
OPKIT_EXPORT Status SetMaxAllocationBytes(int64_t bytes);

// OK when a tensor of `bytes` may be allocated; otherwise ResourceExhausted
// saying how big the request and the limit are and how to raise it.
// `what` describes the tensor ("tensor with shape [..] and type float").
OPKIT_EXPORT Status CheckAllocationLimit(int64_t bytes, std::string_view what);

// The same for a container of `count` elements of `element_bytes` each (a
// TensorList's or TensorArray's slots): OK when count * element_bytes is
// within the limit, computed without overflow; ResourceExhausted naming
// `what` otherwise.
OPKIT_EXPORT Status CheckElementCount(int64_t count, size_t element_bytes,
                                      std::string_view what);

// Sets the limit for the life of the object, then puts back the one before
// (process-wide, not per thread: for tests and tools that run one thing).
class OPKIT_EXPORT ScopedAllocationLimit {
 public:
  explicit ScopedAllocationLimit(int64_t bytes);
  ~ScopedAllocationLimit();
  ScopedAllocationLimit(const ScopedAllocationLimit&) = delete;
  ScopedAllocationLimit& operator=(const ScopedAllocationLimit&) = delete;

 private:
  int64_t previous_;
};

}  // namespace opkit

#endif  // OPKIT_TENSOR_ALLOCATION_LIMIT_H_
