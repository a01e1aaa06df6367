// The process-wide limit on one tensor allocation: Note [Allocation limit].
#include "opkit/tensor/allocation_limit.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"
#include "opkit/core/machine_resources.h"
#include "opkit/tensor/allocator.h"

namespace opkit {
namespace {

constexpr char kEnvVar[] = "OPKIT_MAX_ALLOCATION_BYTES";

// OPKIT_MAX_ALLOCATION_BYTES as a positive byte count, or 0 when it is unset
// or does not parse (then with a warning: a typo must not go unnoticed).
int64_t LimitFromEnvironment() {
  const char* text = std::getenv(kEnvVar);
  if (text == nullptr || *text == '\0') return 0;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value <= 0) {
    OPKIT_LOG(WARNING) << "Ignoring " << kEnvVar << "=\"" << text
                       << "\": it must be a positive number of bytes";
    return 0;
  }
  return value;
}

int64_t ComputeDefaultLimit() {
  const int64_t from_env = LimitFromEnvironment();
  if (from_env > 0) return from_env;
  const int64_t usable = UsableMemoryBytes();
  const int64_t hard = static_cast<int64_t>(kMaxCpuAllocationBytes);
  return usable > 0 && usable < hard ? usable : hard;
}

// 0 means "the default", resolved on first use.
std::atomic<int64_t> limit_override{0};

}  // namespace

int64_t DefaultMaxAllocationBytes() {
  static const int64_t limit = ComputeDefaultLimit();
  return limit;
}

int64_t MaxAllocationBytes() {
  const int64_t set = limit_override.load(std::memory_order_relaxed);
  return set > 0 ? set : DefaultMaxAllocationBytes();
}

Status SetMaxAllocationBytes(int64_t bytes) {
  if (bytes < 0) {
    return errors::InvalidArgument(
        "SetMaxAllocationBytes(", bytes,
        "): the limit must be a positive number of bytes, or 0 for the "
        "default (", DefaultMaxAllocationBytes(), " bytes)");
  }
  limit_override.store(bytes, std::memory_order_relaxed);
  return OkStatus();
}

Status CheckAllocationLimit(int64_t bytes, std::string_view what) {
  const int64_t limit = MaxAllocationBytes();
  if (bytes <= limit) return OkStatus();
  return errors::ResourceExhausted(
      "OOM when allocating ", what, ": ", bytes,
      " bytes is more than the allocation limit of ", limit,
      " bytes; check the shape, or raise the limit with ", kEnvVar,
      " or opkit::SetMaxAllocationBytes");
}

Status CheckElementCount(int64_t count, size_t element_bytes, std::string_view what) {
  const int64_t per = element_bytes == 0 ? 1 : static_cast<int64_t>(element_bytes);
  const int64_t limit = MaxAllocationBytes();
  if (count <= limit / per) return OkStatus();
  const int64_t bytes = count > INT64_MAX / per ? INT64_MAX : count * per;
  return CheckAllocationLimit(bytes, StrCat(what, " of ", count, " elements"));
}

ScopedAllocationLimit::ScopedAllocationLimit(int64_t bytes)
    : previous_(limit_override.load(std::memory_order_relaxed)) {
  limit_override.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed);
}

ScopedAllocationLimit::~ScopedAllocationLimit() {
  limit_override.store(previous_, std::memory_order_relaxed);
}

}  // namespace opkit
