// The kernel registry's lookup index: registration records with their
// constraints compiled for matching, the kernels of each (op, device) laid
// out for the selection loop (Bucket), the open-addressing table that finds
// a bucket (BucketIndex), and the immutable Snapshot readers select from.
// Private to opkit/kernel; see Note [Kernel registry concurrency] in
// kernel_registry.h for who may read what when.
#ifndef OPKIT_KERNEL_INTERNAL_KERNEL_INDEX_H_
#define OPKIT_KERNEL_INTERNAL_KERNEL_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "opkit/kernel/kernel_registration.h"
#include "opkit/attr_value.pb.h"
#include "opkit/node_def.pb.h"

namespace opkit {
namespace internal {

enum class ConstraintKind { kType, kString, kInt, kBool };

// A KernelDef constraint prepared for matching without allocation.
struct CompiledConstraint {
  // The attr's name; a std::string so that the node's attr map can be
  // searched without building a key.
  std::string attr;
  ConstraintKind kind = ConstraintKind::kType;
  // Bit t set when DataType t (< 64) is allowed.
  uint64_t type_mask = 0;
  // The allowed values (points into the owning Record's KernelDef).
  const AttrValue* allowed = nullptr;
};

// One registration as the registry keeps it. Never freed before the
// registry; its registration data is immutable once published.
struct Record {
  KernelRegistration reg;
  std::vector<CompiledConstraint> constraints;
  uint64_t seq = 0;
  KernelBatchId batch = 0;

  enum class State { kActive, kHidden, kRemoved };
  // Only under the registry's mutex; lookups never read these.
  State state = State::kActive;
  uint64_t hidden_by = 0;

  int32_t priority() const { return reg.def.priority(); }
  const std::string& op() const { return reg.def.op(); }
  const std::string& device() const { return reg.def.device_type(); }
  const std::string& label() const { return reg.def.label(); }
};

using RecordList = std::vector<const Record*>;

// Compiles `rec`'s constraints. Requires a validated registration (every
// constraint of exactly one kind).
void Compile(Record* rec);

// Whether DataType `type` is allowed by the type constraint `c`.
bool TypeAllowed(const CompiledConstraint& c, int type);

// Whether `value` (the node's, possibly null) satisfies `c`.
bool ConstraintHolds(const CompiledConstraint& c, const AttrValue* value);

// Whether some node could satisfy both `a` and `b` (same op, device and
// label assumed).
inline bool Overlap(const Record& a, const Record& b) {
  return KernelConstraintsOverlap(a.reg.def, b.reg.def);
}

// The attr a node's label is read from.
inline const std::string& KernelLabelAttrName() {
  static const std::string* const name = new std::string("_kernel");
  return *name;
}

inline const std::string& EmptyString() {
  static const std::string* const empty = new std::string();
  return *empty;
}

// The node's `_kernel` attr, or "" when absent or not a string.
inline const std::string& NodeLabel(const NodeDef& node) {
  auto it = node.attr().find(KernelLabelAttrName());
  if (it == node.attr().end() || it->second.value_case() != AttrValue::kS) {
    return EmptyString();
  }
  return it->second.s();
}

// Short-key hashing and comparison for the selection path. Op names and
// device types are short, so a few overlapping word loads hash and compare
// them inline, where memcmp calls and absl's string hash cost more than the
// work. Why not absl::Hash: with absl::HashOf(op, device) as OpDeviceHash a
// lookup was slower. bench/kernel_selection_bench, BM_SelectKernel_Opkit,
// median CPU time per lookup of 5 repetitions, three alternating runs of
// each build in one session (2 cores, loaded): this hash 113, 116, 114 ns;
// absl::HashOf 121, 133, 130 ns.
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Whether the `n` bytes at `a` and `b` are equal.
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    return ((Load64(a) ^ Load64(b)) |
            (Load64(a + n - 8) ^ Load64(b + n - 8))) == 0;
  }
  if (n >= 4) {
    return ((Load32(a) ^ Load32(b)) |
            (Load32(a + n - 4) ^ Load32(b + n - 4))) == 0;
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

inline bool SameString(std::string_view a, std::string_view b) {
  return a.size() == b.size() && SameBytes(a.data(), b.data(), a.size());
}

// 64x64->128 multiply folded to 64 bits (the wyhash mixing step).
inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

constexpr uint64_t kHashK1 = 0xa0761d6478bd642fULL;
constexpr uint64_t kHashK2 = 0xe7037ed1a0b428dbULL;

// A fast 64-bit hash of `s` continuing from `seed`, for the in-memory index
// only (not stable across builds; opkit's printed hashes use
// internal::HashBytes).
inline uint64_t HashKey(std::string_view s, uint64_t seed) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t a;
  uint64_t b;
  if (n <= 16) {
    if (n >= 8) {
      a = Load64(p);
      b = Load64(p + n - 8);
    } else if (n >= 4) {
      a = Load32(p);
      b = Load32(p + n - 4);
    } else if (n > 0) {
      a = (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
          (uint64_t{static_cast<unsigned char>(p[n >> 1])} << 8) |
          uint64_t{static_cast<unsigned char>(p[n - 1])};
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t left = n;
    while (left > 16) {
      seed = Mix(Load64(p) ^ kHashK1, Load64(p + 8) ^ seed);
      p += 16;
      left -= 16;
    }
    // The last 16 bytes (overlapping what was mixed when n % 16 != 0).
    a = Load64(p + left - 16);
    b = Load64(p + left - 8);
  }
  return Mix(kHashK1 ^ n, Mix(a ^ kHashK2, b ^ seed));
}

// The hash of an (op, device) key, for the in-memory index only.
inline uint64_t OpDeviceHash(std::string_view op, std::string_view device) {
  return HashKey(device, HashKey(op, 0));
}

// Distinct attrs one bucket's kernels constrain, resolved once per selection
// (not once per kernel); beyond this many a bucket matches kernel by kernel.
constexpr size_t kMaxBucketAttrs = 16;
// Nodes with at most this many attrs are matched by walking their attr map
// once instead of looking each name up.
constexpr int kLinearScanAttrs = 6;

// A constraint as the selection loop reads it: copied next to its bucket so
// that matching touches neither the record nor its KernelDef. 16 bytes.
struct HotConstraint {
  // Bit t set when DataType t (< 64) is allowed (type constraints).
  uint64_t type_mask = 0;
  // Index of the full constraint (other kinds, types >= 64) in the record's
  // `constraints`.
  uint32_t full = 0;
  ConstraintKind kind = ConstraintKind::kType;
  // Index into Bucket::attrs when the bucket is indexed.
  uint8_t slot = 0;
  // A type constraint whose allowed types are all < 64, so that type_mask is
  // the whole allowed set.
  bool mask_is_exact = false;
};

// Constraints kept inside a BucketEntry (most kernels have one or two), so
// that matching reads one cache line per kernel.
constexpr uint32_t kInlineConstraints = 2;

// BucketEntry::stop values other than an attr slot.
constexpr uint8_t kStopNever = 0xff;
constexpr uint8_t kStopAlways = 0xfe;
// Buckets larger than this do not get stop slots (computing them is
// quadratic in the bucket size).
constexpr size_t kMaxStopBucket = 64;

// One kernel of a bucket, as the selection loop reads it (one cache line;
// what only the winner needs is in BucketResult).
struct BucketEntry {
  // Null when the kernel is unlabelled.
  const std::string* label = nullptr;
  int32_t priority = 0;
  // When this kernel matches, whether a later kernel of the bucket can
  // still match too (an ambiguity the loop must find): kStopAlways when no
  // later kernel has the same priority and label; an attr slot s when every
  // such kernel allows types of attr s disjoint from this one's, so none can
  // match a node whose attr s is a single type; else kStopNever.
  uint8_t stop = kStopNever;
  // The kernel's constraints: the first `end - begin` of `inline_constraints`
  // when there are at most kInlineConstraints, else
  // Bucket::constraints[begin, end).
  uint32_t begin = 0;
  uint32_t end = 0;
  HotConstraint inline_constraints[kInlineConstraints];

  bool is_inline() const { return end - begin <= kInlineConstraints; }
  const HotConstraint* hot(const std::vector<HotConstraint>& shared) const {
    return is_inline() ? inline_constraints : shared.data() + begin;
  }
};

// What a lookup yields for the kernel of the BucketEntry at the same index.
struct BucketResult {
  const Record* rec = nullptr;
  // Copies of the record's, so that a successful lookup does not read the
  // record. Holding `owner` here keeps a library loaded while an index that
  // can select its kernels is alive.
  KernelFactory factory = nullptr;
  // The record's factory object (owned by the record), if it has one.
  OpKernelFactory* factory_object = nullptr;
  std::shared_ptr<const void> owner;
};

// The kernels of one op and device. The first cache line holds what every
// selection reads.
struct alignas(64) Bucket {
  // --- Read by every selection (set by Index()); the first 64 bytes are
  // one cache line, `dispatch` the next ---
  const BucketEntry* entry_data = nullptr;
  const std::string* attr_data = nullptr;
  uint32_t num_entries = 0;
  uint32_t num_attrs = 0;
  // Whether every constraint has a slot (attrs.size() <= kMaxBucketAttrs).
  bool indexed = true;
  // Whether `dispatch` answers unlabelled nodes (see there).
  bool type_dispatch = false;
  // The key: op then device, inline when short enough (else in `op` and
  // `device`).
  bool key_inline = false;
  uint8_t op_size = 0;
  uint8_t device_size = 0;
  // attrs[0], inline when short, so that matching the node's attrs against
  // it does not read the attrs vector.
  bool attr0_inline = false;
  uint8_t attr0_size = 0;
  char attr0[6] = {};
  static constexpr size_t kInlineKey = 27;
  char inline_key[kInlineKey] = {};
  // For a bucket whose kernels each have exactly one constraint, a type
  // constraint on the same attr with DataTypes < 64: for a node without a
  // label whose attr is the single type t, dispatch[t] is the index of the
  // selected kernel, kDispatchNone, or kDispatchAmbiguous (the loop then
  // finds the rival for the message). One cache line (with result_data)
  // instead of a scan.
  // Types >= kDispatchTypes take the loop (none of TensorFlow's non-ref
  // DataTypes is that large).
  static constexpr int kDispatchTypes = 56;
  static constexpr int8_t kDispatchNone = -1;
  static constexpr int8_t kDispatchAmbiguous = -2;
  int8_t dispatch[kDispatchTypes] = {};
  // results.data(), on the same line as `dispatch`.
  const BucketResult* result_data = nullptr;

  // --- The rest ---
  std::string op;
  std::string device;
  // By decreasing priority, then registration order.
  RecordList kernels;
  // The same order, for selection.
  std::vector<BucketEntry> entries;
  std::vector<BucketResult> results;
  std::vector<HotConstraint> constraints;
  // The distinct constrained attr names, each resolved at most once per
  // selection (copies: comparing them must not touch the cold records).
  std::vector<std::string> attrs;

  // Whether this is the bucket of (op, device).
  bool Is(std::string_view o, std::string_view d) const {
    if (key_inline) {
      return o.size() == op_size && d.size() == device_size &&
             SameBytes(inline_key, o.data(), o.size()) &&
             SameBytes(inline_key + op_size, d.data(), d.size());
    }
    return SameString(op, o) && SameString(device, d);
  }

  void SetKey(std::string_view o, std::string_view d);

  // Sorts `kernels` by decreasing priority (stably) and builds everything
  // the selection loop reads from them.
  void Index();

 private:
  // Fills `dispatch` and `type_dispatch` (see there).
  void ComputeDispatch();
  // Fills BucketEntry::stop (see there).
  void ComputeStops();
};

// The buckets of a snapshot by (op, device): open addressing with linear
// probing over 8-byte slots holding 32 bits of each key's hash, so that a
// probe reads one slot line and compares strings only on a tag match.
class BucketIndex {
 public:
  // Reserves room for `n` buckets.
  void Reserve(size_t n) {
    buckets_.reserve(n);
    Rehash(n);
  }

  // The bucket of (op, device), created empty if absent. Pointers returned
  // are invalidated by the next call.
  Bucket* FindOrAdd(std::string_view op, std::string_view device);

  // The bucket of (op, device), or null.
  const Bucket* Find(std::string_view op, std::string_view device) const {
    if (slots_.empty()) return nullptr;
    const uint64_t h = OpDeviceHash(op, device);
    const uint32_t tag = Tag(h);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.index == 0) return nullptr;
      if (s.tag == tag) {
        const Bucket& b = buckets_[s.index - 1];
        if (b.Is(op, device)) return &b;
      }
    }
  }

  std::vector<Bucket>& buckets() { return buckets_; }
  size_t size() const { return buckets_.size(); }

 private:
  struct Slot {
    // The high half of the key's hash (the low bits pick the slot).
    uint32_t tag = 0;
    // 1 + index into buckets_; 0 marks an empty slot.
    uint32_t index = 0;
  };

  static uint32_t Tag(uint64_t h) { return static_cast<uint32_t>(h >> 32); }

  // Resizes the slots for at least `n` keys at a load of at most 1/2.
  void Rehash(size_t n);

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<Bucket> buckets_;
  // The full hash of each bucket's key, for rehashing.
  std::vector<uint64_t> hashes_;
};

// An immutable index of the active records.
struct Snapshot {
  BucketIndex by_key;
  // Kernels of one op, every device, in registration order.
  absl::flat_hash_map<std::string_view, RecordList> by_op;
  // Every active kernel in registration order.
  RecordList all;
};

// Indexes `active` (in registration order), reserving room for
// `size_hint` buckets and ops.
std::unique_ptr<Snapshot> BuildSnapshot(RecordList active,
                                        std::pair<size_t, size_t> size_hint);

// The kernels of `op` in `snapshot`, every device, in registration order.
const RecordList& KernelsOfOp(const Snapshot& snapshot, std::string_view op);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNEL_INTERNAL_KERNEL_INDEX_H_
