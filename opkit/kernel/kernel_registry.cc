// KernelRegistry: registration records, the published lookup index, kernel
// selection and its messages, replacement and its log lines.
//
// Layout (see Note [Kernel registry concurrency] in the header):
//   - Impl::records owns every Record ever registered, in registration order;
//     a Record is never freed before the registry, so pointers into it stay
//     valid. Its registration data is immutable once published; its `state`
//     is read and written only under Impl::mu.
//   - Impl::snapshot points to an immutable Snapshot indexing the active
//     records. Writers build a new one, swap it in, then wait (Synchronize)
//     until no reader can still hold the old one, and free it.
//   - Readers bracket their use of a snapshot with a ReadSection: a counter
//     per epoch parity, no mutex (see Note [Read sections]).
#include "opkit/kernel/kernel_registry.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/mutex.h"
#include "opkit/core/str_util.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/op/op_registry.h"

namespace opkit {
namespace kernel_registry_internal {

// ---------------------------------------------------------------------------
// Pending registrations.

struct PendingList {
  mutex mu;
  std::vector<PendingKernelRegistration> items OPKIT_GUARDED_BY(mu);
};

PendingList& Pending() {
  // Never destroyed: static initializers of other libraries may append to it
  // at any time, and it must outlive every static destructor.
  static PendingList* const list = new PendingList;
  return *list;
}

void AppendPending(PendingKernelRegistration p) {
  PendingList& list = Pending();
  mutex_lock lock(list.mu);
  list.items.push_back(std::move(p));
}

// ---------------------------------------------------------------------------
// Records and the index.

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

struct Record {
  KernelRegistration reg;
  std::vector<CompiledConstraint> constraints;
  uint64_t seq = 0;
  KernelBatchId batch = 0;

  enum class State { kActive, kHidden, kRemoved };
  // Only under Impl::mu; lookups never read these.
  State state = State::kActive;
  uint64_t hidden_by = 0;

  int32_t priority() const { return reg.def.priority(); }
  const std::string& op() const { return reg.def.op(); }
  const std::string& device() const { return reg.def.device_type(); }
  const std::string& label() const { return reg.def.label(); }
};

// Short-key hashing and comparison for the selection path. absl's string
// hash (std::hash in this build) and memcmp calls were a third of a lookup;
// op names and device types are short, so a few overlapping word loads
// hash and compare them inline.
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

inline uint64_t OpDeviceHash(std::string_view op, std::string_view device) {
  return HashKey(device, HashKey(op, 0));
}

using RecordList = std::vector<const Record*>;

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

  void SetKey(std::string_view o, std::string_view d) {
    op = std::string(o);
    device = std::string(d);
    key_inline = o.size() + d.size() <= kInlineKey;
    if (key_inline) {
      op_size = static_cast<uint8_t>(o.size());
      device_size = static_cast<uint8_t>(d.size());
      std::memcpy(inline_key, o.data(), o.size());
      std::memcpy(inline_key + o.size(), d.data(), d.size());
    }
  }

  void Index() {
    entries.clear();
    results.clear();
    constraints.clear();
    attrs.clear();
    indexed = true;
    entries.reserve(kernels.size());
    results.reserve(kernels.size());
    for (const Record* rec : kernels) {
      BucketEntry e;
      e.label = rec->label().empty() ? nullptr : &rec->label();
      e.priority = rec->priority();
      BucketResult r;
      r.rec = rec;
      r.factory = rec->reg.factory;
      r.owner = rec->reg.owner;
      const bool fits_inline = rec->constraints.size() <= kInlineConstraints;
      e.begin = static_cast<uint32_t>(constraints.size());
      uint32_t n = 0;
      for (const auto& c : rec->constraints) {
        HotConstraint h;
        h.type_mask = c.type_mask;
        h.full = n;
        h.kind = c.kind;
        if (c.kind == ConstraintKind::kType) {
          h.mask_is_exact = true;
          for (int t : c.allowed->list().type()) {
            if (t < 0 || t >= 64) h.mask_is_exact = false;
          }
        }
        size_t slot = 0;
        while (slot < attrs.size() && attrs[slot] != c.attr) ++slot;
        if (slot == attrs.size()) {
          if (attrs.size() < kMaxBucketAttrs) {
            attrs.push_back(c.attr);
          } else {
            indexed = false;
          }
        }
        h.slot = static_cast<uint8_t>(slot < kMaxBucketAttrs ? slot : 0);
        if (fits_inline) {
          e.inline_constraints[n] = h;
        } else {
          constraints.push_back(h);
        }
        ++n;
      }
      e.end = e.begin + n;
      entries.push_back(e);
      results.push_back(std::move(r));
    }
    ComputeStops();
    ComputeDispatch();
    attr0_inline = !attrs.empty() && attrs[0].size() <= sizeof(attr0);
    if (attr0_inline) {
      attr0_size = static_cast<uint8_t>(attrs[0].size());
      std::memcpy(attr0, attrs[0].data(), attrs[0].size());
    }
    entry_data = entries.data();
    result_data = results.data();
    attr_data = attrs.data();
    num_entries = static_cast<uint32_t>(entries.size());
    num_attrs = static_cast<uint32_t>(attrs.size());
  }

 private:
  // Fills `dispatch` and `type_dispatch` (see there) by running the
  // selection loop for each type at index time.
  void ComputeDispatch() {
    type_dispatch = indexed && attrs.size() == 1 && entries.size() <= 127;
    for (const BucketEntry& e : entries) {
      if (!type_dispatch) break;
      const HotConstraint* h = e.hot(constraints);
      type_dispatch = e.end - e.begin == 1 && h[0].kind == ConstraintKind::kType &&
                      h[0].mask_is_exact && h[0].slot == 0;
    }
    if (!type_dispatch) return;
    // What the selection loop does for type t, for all t at once: entries
    // are sorted by decreasing priority, so the first unlabelled kernel
    // allowing t wins unless a later one of the same priority allows it too.
    int32_t best_priority[kDispatchTypes];
    for (int t = 0; t < kDispatchTypes; ++t) dispatch[t] = kDispatchNone;
    for (size_t i = 0; i < entries.size(); ++i) {
      const BucketEntry& e = entries[i];
      if (e.label != nullptr) continue;
      uint64_t mask = e.hot(constraints)[0].type_mask;
      while (mask != 0) {
        const int t = __builtin_ctzll(mask);
        mask &= mask - 1;
        if (t >= kDispatchTypes) break;
        if (dispatch[t] == kDispatchNone) {
          dispatch[t] = static_cast<int8_t>(i);
          best_priority[t] = e.priority;
        } else if (dispatch[t] >= 0 && best_priority[t] == e.priority) {
          dispatch[t] = kDispatchAmbiguous;
        }
      }
    }
  }

  // Fills BucketEntry::stop (see there).
  void ComputeStops() {
    if (!indexed || entries.size() > kMaxStopBucket) return;
    // Whether entries[j] (j > i) could tie with entries[i].
    auto rival = [this](size_t i, size_t j) {
      const BucketEntry& e = entries[i];
      const BucketEntry& o = entries[j];
      return o.priority == e.priority &&
             SameString(o.label ? *o.label : std::string_view(),
                        e.label ? *e.label : std::string_view());
    };
    for (size_t i = 0; i < entries.size(); ++i) {
      BucketEntry& e = entries[i];
      bool any_rival = false;
      for (size_t j = i + 1; j < entries.size() && !any_rival; ++j) {
        any_rival = rival(i, j);
      }
      if (!any_rival) {
        e.stop = kStopAlways;
        continue;
      }
      const HotConstraint* mine = e.hot(constraints);
      const uint32_t my_count = e.end - e.begin;
      for (uint32_t k = 0; k < my_count && e.stop == kStopNever; ++k) {
        const HotConstraint& c = mine[k];
        if (c.kind != ConstraintKind::kType || !c.mask_is_exact) continue;
        bool disjoint_from_all = true;
        for (size_t j = i + 1; j < entries.size() && disjoint_from_all; ++j) {
          if (!rival(i, j)) continue;
          const BucketEntry& o = entries[j];
          const HotConstraint* theirs = o.hot(constraints);
          bool disjoint = false;
          for (uint32_t m = 0; m < o.end - o.begin && !disjoint; ++m) {
            const HotConstraint& d = theirs[m];
            disjoint = d.slot == c.slot && d.kind == ConstraintKind::kType &&
                       d.mask_is_exact && (d.type_mask & c.type_mask) == 0;
          }
          disjoint_from_all = disjoint;
        }
        if (disjoint_from_all) e.stop = c.slot;
      }
    }
  }
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
  Bucket* FindOrAdd(std::string_view op, std::string_view device) {
    if ((buckets_.size() + 1) * 2 > slots_.size()) Rehash(buckets_.size() + 1);
    const uint64_t h = OpDeviceHash(op, device);
    const uint32_t tag = Tag(h);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.index == 0) {
        Bucket& b = buckets_.emplace_back();
        b.SetKey(op, device);
        s.tag = tag;
        s.index = static_cast<uint32_t>(buckets_.size());
        hashes_.push_back(h);
        return &b;
      }
      if (s.tag == tag) {
        Bucket& b = buckets_[s.index - 1];
        if (b.Is(op, device)) return &b;
      }
    }
  }

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
  void Rehash(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap <= slots_.size()) return;
    std::vector<Slot> next(cap);
    const size_t mask = cap - 1;
    for (const Slot& s : slots_) {
      if (s.index == 0) continue;
      size_t i = hashes_[s.index - 1] & mask;
      while (next[i].index != 0) i = (i + 1) & mask;
      next[i] = s;
    }
    slots_ = std::move(next);
    mask_ = mask;
  }

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

const std::string& KernelLabelAttrName() {
  static const std::string* const name = new std::string("_kernel");
  return *name;
}

const std::string& EmptyString() {
  static const std::string* const empty = new std::string();
  return *empty;
}

// The node's `_kernel` attr, or "" when absent or not a string.
const std::string& NodeLabel(const NodeDef& node) {
  auto it = node.attr().find(KernelLabelAttrName());
  if (it == node.attr().end() || it->second.value_case() != AttrValue::kS) {
    return EmptyString();
  }
  return it->second.s();
}

// The node's value of `attr`, else the op's default, else null.
const AttrValue* AttrOrDefault(const NodeDef& node, const std::string& attr,
                               const OpDef* op_def) {
  auto it = node.attr().find(attr);
  if (it != node.attr().end()) return &it->second;
  if (op_def == nullptr) return nullptr;
  const OpDef::AttrDef* attr_def = FindAttr(attr, *op_def);
  if (attr_def == nullptr || !attr_def->has_default_value()) return nullptr;
  return &attr_def->default_value();
}

bool TypeAllowed(const CompiledConstraint& c, int type) {
  if (type >= 0 && type < 64) return ((c.type_mask >> type) & 1) != 0;
  for (int allowed : c.allowed->list().type()) {
    if (allowed == type) return true;
  }
  return false;
}

// Whether `value` (the node's, possibly null) satisfies `c`.
bool ConstraintHolds(const CompiledConstraint& c, const AttrValue* value) {
  if (value == nullptr) return false;
  switch (c.kind) {
    case ConstraintKind::kType:
      if (value->value_case() == AttrValue::kType) {
        return TypeAllowed(c, value->type());
      }
      if (value->value_case() == AttrValue::kList) {
        for (int t : value->list().type()) {
          if (!TypeAllowed(c, t)) return false;
        }
        return true;
      }
      return false;
    case ConstraintKind::kString: {
      if (value->value_case() != AttrValue::kS) return false;
      const AttrValue::ListValue& allowed = c.allowed->list();
      return std::find(allowed.s().begin(), allowed.s().end(), value->s()) !=
             allowed.s().end();
    }
    case ConstraintKind::kInt: {
      if (value->value_case() != AttrValue::kI) return false;
      const AttrValue::ListValue& allowed = c.allowed->list();
      return std::find(allowed.i().begin(), allowed.i().end(), value->i()) !=
             allowed.i().end();
    }
    case ConstraintKind::kBool: {
      if (value->value_case() != AttrValue::kB) return false;
      const AttrValue::ListValue& allowed = c.allowed->list();
      return std::find(allowed.b().begin(), allowed.b().end(), value->b()) !=
             allowed.b().end();
    }
  }
  return false;
}

// Why `c` does not hold for the node; "" when it does.
std::string ConstraintMismatch(const CompiledConstraint& c, const NodeDef& node,
                               const OpDef* op_def) {
  const AttrValue* value = AttrOrDefault(node, c.attr, op_def);
  if (value == nullptr) {
    return StrCat("attr '", c.attr,
                  "' is not set in the node and the op gives no default");
  }
  if (ConstraintHolds(c, value)) return "";
  const std::string allowed = SummarizeAttrValue(*c.allowed);
  if (c.kind == ConstraintKind::kType && value->value_case() == AttrValue::kList) {
    for (int t : value->list().type()) {
      if (!TypeAllowed(c, t)) {
        return StrCat("attr '", c.attr, "' is ", SummarizeAttrValue(*value),
                      ": element ", DataType_Name(static_cast<DataType>(t)),
                      " is not in ", allowed);
      }
    }
  }
  const bool kind_ok =
      (c.kind == ConstraintKind::kType &&
       (value->value_case() == AttrValue::kType ||
        value->value_case() == AttrValue::kList)) ||
      (c.kind == ConstraintKind::kString && value->value_case() == AttrValue::kS) ||
      (c.kind == ConstraintKind::kInt && value->value_case() == AttrValue::kI) ||
      (c.kind == ConstraintKind::kBool && value->value_case() == AttrValue::kB);
  if (!kind_ok) {
    return StrCat("attr '", c.attr, "' of the node is ",
                  SummarizeAttrValue(*value),
                  ", which is not the kind of value the constraint ", allowed,
                  " restricts");
  }
  return StrCat("attr '", c.attr, "' is ", SummarizeAttrValue(*value),
                ", not in ", allowed);
}

// Why `rec` is not a candidate for the node on `device` with `label`; ""
// when it is.
std::string RejectionReason(const Record& rec, std::string_view device,
                            std::string_view label, const NodeDef& node,
                            const OpDef* op_def) {
  if (rec.device() != device) {
    return StrCat("device '", rec.device(), "' is not the requested '", device,
                  "'");
  }
  if (rec.label() != label) {
    return StrCat("label '", rec.label(), "' does not match the node's _kernel '",
                  label, "'");
  }
  for (const CompiledConstraint& c : rec.constraints) {
    std::string why = ConstraintMismatch(c, node, op_def);
    if (!why.empty()) return why;
  }
  return "";
}

std::string NameOf(const Record& rec) {
  return StrCat("'", rec.reg.kernel_class_name, "' (registered at ",
                rec.reg.origin.ToString(), ")");
}

// TensorFlow's KernelsRegisteredForOp() line for one kernel.
std::string KernelLine(const KernelDef& def) {
  std::string line = StrCat("  device='", def.device_type(), "'");
  if (!def.label().empty()) line += StrCat("; label='", def.label(), "'");
  for (const auto& c : def.constraint()) {
    line += StrCat("; ", c.name(), " in ", SummarizeAttrValue(c.allowed_values()));
  }
  line += "\n";
  return line;
}

std::string KernelLines(const RecordList& records) {
  if (records.empty()) return "  <no registered kernels>\n";
  std::string out;
  for (const Record* rec : records) out += KernelLine(rec->reg.def);
  return out;
}

std::string ConstraintsSummary(const KernelDef& def) {
  std::vector<std::string> parts;
  for (const auto& c : def.constraint()) {
    parts.push_back(StrCat(c.name(), " in ", SummarizeAttrValue(c.allowed_values())));
  }
  if (parts.empty()) return "no constraints";
  return StrJoin(parts, "; ");
}

// Whether some node could satisfy both `a` and `b` (same op, device and
// label assumed).
bool Overlap(const Record& a, const Record& b) {
  return KernelConstraintsOverlap(a.reg.def, b.reg.def);
}

std::string Describe(const KernelRegistration& reg) {
  return StrCat("Kernel '", reg.kernel_class_name, "' (registered at ",
                reg.origin.ToString(), ") for op '", reg.def.op(), "'");
}

// Compiles `rec`'s constraints. Requires a validated registration (every
// constraint of exactly one kind).
void Compile(Record* rec) {
  const KernelDef& def = rec->reg.def;
  rec->constraints.clear();
  rec->constraints.reserve(def.constraint_size());
  for (const auto& c : def.constraint()) {
    CompiledConstraint cc;
    cc.attr = c.name();
    cc.allowed = &c.allowed_values();
    const auto& list = c.allowed_values().list();
    if (list.type_size() > 0) {
      cc.kind = ConstraintKind::kType;
      for (int t : list.type()) {
        if (t >= 0 && t < 64) cc.type_mask |= uint64_t{1} << t;
      }
    } else if (list.s_size() > 0) {
      cc.kind = ConstraintKind::kString;
    } else if (list.i_size() > 0) {
      cc.kind = ConstraintKind::kInt;
    } else {
      cc.kind = ConstraintKind::kBool;
    }
    rec->constraints.push_back(std::move(cc));
  }
}

template <typename List>
bool SameSet(const List& a, const List& b) {
  for (const auto& v : a) {
    if (std::find(b.begin(), b.end(), v) == b.end()) return false;
  }
  for (const auto& v : b) {
    if (std::find(a.begin(), a.end(), v) == a.end()) return false;
  }
  return true;
}

bool SameConstraint(const CompiledConstraint& a, const CompiledConstraint& b) {
  if (a.kind != b.kind || a.attr != b.attr) return false;
  const auto& la = a.allowed->list();
  const auto& lb = b.allowed->list();
  switch (a.kind) {
    case ConstraintKind::kType:
      return SameSet(la.type(), lb.type());
    case ConstraintKind::kString:
      return SameSet(la.s(), lb.s());
    case ConstraintKind::kInt:
      return SameSet(la.i(), lb.i());
    case ConstraintKind::kBool:
      return SameSet(la.b(), lb.b());
  }
  return false;
}

// Whether `a` and `b` declare the same kernel: op, device, label, priority
// and the same allowed sets per constrained attr (in any order).
bool SameDefinition(const Record& a, const Record& b) {
  if (a.op() != b.op() || a.device() != b.device() || a.label() != b.label() ||
      a.priority() != b.priority()) {
    return false;
  }
  auto covered = [](const Record& x, const Record& y) {
    for (const CompiledConstraint& cx : x.constraints) {
      bool found = false;
      for (const CompiledConstraint& cy : y.constraints) {
        found = found || SameConstraint(cx, cy);
      }
      if (!found) return false;
    }
    return true;
  };
  return covered(a, b) && covered(b, a);
}

}  // namespace kernel_registry_internal

using namespace kernel_registry_internal;  // NOLINT: this file's own details.

// ---------------------------------------------------------------------------
// Note [Read sections]
// A reader increments readers[e & 1] for the epoch e it read, then checks
// that the epoch is still e (else it undoes and retries), then loads the
// snapshot. A writer swaps the snapshot, advances the epoch from e to e + 1
// and waits for readers[e & 1] to reach 0. Readers that validated epoch e
// may hold the old snapshot and are waited for; readers that validate e + 1
// load the snapshot after the swap and so see the new one; readers of
// earlier epochs were waited for by the previous writer (writers hold mu).
// All of it is sequentially consistent atomics, so ThreadSanitizer sees the
// happens-before edges; new readers never wait for writers.

struct KernelRegistry::Impl {
  struct alignas(64) Counter {
    std::atomic<int64_t> value{0};
  };

  mutable mutex mu;
  std::vector<std::unique_ptr<Record>> records OPKIT_GUARDED_BY(mu);
  uint64_t next_batch OPKIT_GUARDED_BY(mu) = 1;
  uint64_t next_token OPKIT_GUARDED_BY(mu) = 1;

  std::atomic<const Snapshot*> snapshot{nullptr};
  std::atomic<uint64_t> epoch{0};
  mutable Counter readers[2];

  // The op registry as an OpRegistry when it is one: its pointer lookup
  // builds no Status.
  const OpRegistry* concrete_ops = nullptr;
  bool is_global = false;
  // Sizes of the last index, to reserve the next one.
  size_t by_key_size_hint OPKIT_GUARDED_BY(mu) = 0;
  size_t by_op_size_hint OPKIT_GUARDED_BY(mu) = 0;

  ~Impl() { delete snapshot.load(); }

  class ReadSection {
   public:
    explicit ReadSection(const Impl& impl) : impl_(impl) {
      for (;;) {
        const uint64_t e = impl_.epoch.load();
        slot_ = static_cast<int>(e & 1);
        impl_.readers[slot_].value.fetch_add(1);
        if (impl_.epoch.load() == e) break;
        impl_.readers[slot_].value.fetch_sub(1);
      }
      snapshot_ = impl_.snapshot.load();
    }
    ~ReadSection() { impl_.readers[slot_].value.fetch_sub(1); }
    ReadSection(const ReadSection&) = delete;
    ReadSection& operator=(const ReadSection&) = delete;

    const Snapshot& snapshot() const { return *snapshot_; }

   private:
    const Impl& impl_;
    int slot_ = 0;
    const Snapshot* snapshot_ = nullptr;
  };

  // Waits until no reader can hold a snapshot loaded before this call.
  void Synchronize() OPKIT_REQUIRES(mu) {
    const uint64_t e = epoch.load();
    epoch.store(e + 1);
    std::atomic<int64_t>& waited = readers[e & 1].value;
    int spins = 0;
    while (waited.load() != 0) {
      if (++spins > 100) std::this_thread::yield();
    }
  }

  // Builds the index of the active records, publishes it, bumps
  // `*generation` and frees the previous index once unused.
  void Publish(std::atomic<uint64_t>* generation)
      OPKIT_REQUIRES(mu) {
    auto next = std::make_unique<Snapshot>();
    for (const auto& rec : records) {
      if (rec->state == Record::State::kActive) next->all.push_back(rec.get());
    }
    next->by_key.Reserve(by_key_size_hint);
    next->by_op.reserve(by_op_size_hint);
    for (const Record* rec : next->all) {
      next->by_key.FindOrAdd(rec->op(), rec->device())->kernels.push_back(rec);
      next->by_op[rec->op()].push_back(rec);
    }
    for (Bucket& bucket : next->by_key.buckets()) {
      // Buckets are small: a stable insertion sort by decreasing priority
      // beats std::stable_sort's buffer.
      RecordList& list = bucket.kernels;
      for (size_t i = 1; i < list.size(); ++i) {
        const Record* rec = list[i];
        size_t j = i;
        while (j > 0 && list[j - 1]->priority() < rec->priority()) {
          list[j] = list[j - 1];
          --j;
        }
        list[j] = rec;
      }
      bucket.Index();
    }
    by_key_size_hint = next->by_key.size();
    by_op_size_hint = next->by_op.size();
    const Snapshot* old = snapshot.exchange(next.release());
    generation->fetch_add(1, std::memory_order_acq_rel);
    Synchronize();
    delete old;
  }

  // Validates, indexes and publishes `pending` (see RegisterBatch);
  // `library`, if not null, becomes each origin's library; with
  // `override_def` the single registration is raised to outrank what it
  // overlaps and *override_def receives its published KernelDef.
  // `Item` is KernelRegistration or PendingKernelRegistration.
  template <typename Item>
  Status AddLocked(KernelRegistry* self, std::vector<Item> pending,
                   bool all_or_nothing, const std::string* library,
                   const KernelDef** override_def, KernelBatchId* id)
      OPKIT_REQUIRES(mu);
  // Removes `matched` for good and releases their owners.
  Status RemoveLocked(KernelRegistry* self, const std::vector<Record*>& matched,
                      std::string_view how) OPKIT_REQUIRES(mu);
  // Logs which kernel now wins where each of `gone` (just hidden or
  // removed, active before) used to.
  void LogRemoved(const std::vector<const Record*>& gone, std::string_view how)
      OPKIT_REQUIRES(mu);

  // The op's definition, or null.
  const OpDef* LookUpOp(const std::string& name,
                        const OpRegistryInterface& ops) const;
};

namespace {


// The outcome of selecting among a snapshot's kernels.
struct Selection {
  enum class Outcome { kFound, kNone, kAmbiguous };
  Outcome outcome = Outcome::kNone;
  const Record* best = nullptr;
  const Record* rival = nullptr;
  // best's result in the snapshot (valid while the snapshot is read).
  const BucketResult* best_result = nullptr;
};

// The op's definition, or null. Through `concrete_ops` when the registry is
// an OpRegistry: its pointer lookup builds no Status on a miss.
const OpDef* LookUpOpDef(const OpRegistry* concrete_ops,
                         const OpRegistryInterface& ops,
                         const std::string& name) {
  if (concrete_ops != nullptr) {
    const OpRegistrationData* data = concrete_ops->LookUp(name);
    return data == nullptr ? nullptr : &data->op_def;
  }
  const OpRegistrationData* data = nullptr;
  if (!ops.LookUp(name, &data).ok() || data == nullptr) return nullptr;
  return &data->op_def;
}

// Resolves the node's attrs for one selection, reading the op's defaults
// only when the node lacks a constrained attr (so the common selection does
// not look the op up at all).
class NodeAttrs {
 public:
  NodeAttrs(const OpRegistry* concrete_ops, const OpRegistryInterface& ops,
            const NodeDef& node)
      : concrete_ops_(concrete_ops), ops_(ops), node_(node) {}

  const AttrValue* Find(const std::string& attr) {
    auto it = node_.attr().find(attr);
    if (it != node_.attr().end()) return &it->second;
    const OpDef* op_def = op_def_or_null();
    if (op_def == nullptr) return nullptr;
    const OpDef::AttrDef* attr_def = FindAttr(attr, *op_def);
    if (attr_def == nullptr || !attr_def->has_default_value()) return nullptr;
    return &attr_def->default_value();
  }

  // The node's op, looked up once; null when unknown.
  const OpDef* op_def_or_null() {
    if (!looked_up_) {
      op_def_ = LookUpOpDef(concrete_ops_, ops_, node_.op());
      looked_up_ = true;
    }
    return op_def_;
  }

 private:
  const OpRegistry* concrete_ops_;
  const OpRegistryInterface& ops_;
  const NodeDef& node_;
  const OpDef* op_def_ = nullptr;
  bool looked_up_ = false;
};

// Whether `value` satisfies `h` (a constraint of `rec`); reads only `h`
// and `value` in the common case of a type constraint with small DataTypes.
inline bool HotHolds(const Record& rec, const HotConstraint& h,
                     const AttrValue* value) {
  if (value == nullptr) return false;
  if (h.kind != ConstraintKind::kType) {
    return ConstraintHolds(rec.constraints[h.full], value);
  }
  if (value->value_case() == AttrValue::kType) {
    const int t = value->type();
    if (t >= 0 && t < 64) return ((h.type_mask >> t) & 1) != 0;
    return TypeAllowed(rec.constraints[h.full], t);
  }
  if (value->value_case() == AttrValue::kList) {
    for (int t : value->list().type()) {
      const bool ok = (t >= 0 && t < 64) ? ((h.type_mask >> t) & 1) != 0
                                         : TypeAllowed(rec.constraints[h.full], t);
      if (!ok) return false;
    }
    return true;
  }
  return false;
}

// Note [Kernel selection]; allocates nothing.
Selection Select(const Snapshot& snapshot, const std::string& device,
                 const NodeDef& node, NodeAttrs& attrs) {
  Selection result;
  const Bucket* found = snapshot.by_key.Find(node.op(), device);
  if (found == nullptr) return result;
  const Bucket& bucket = *found;
  const AttrValue* values[kMaxBucketAttrs];
  bool resolved[kMaxBucketAttrs] = {};
  const std::string* label_ptr = &EmptyString();
  const std::string* const bucket_attrs = bucket.attr_data;
  if (bucket.indexed && node.attr().size() <= kLinearScanAttrs) {
    // A small attr map is cheaper to walk once than to hash into for the
    // label and for each constrained attr.
    const std::string& kernel_attr = KernelLabelAttrName();
    const uint32_t num_attrs = bucket.num_attrs;
    const uint32_t first_slot = bucket.attr0_inline ? 1 : 0;
    for (const auto& [name, value] : node.attr()) {
      if (SameString(name, kernel_attr)) {
        if (value.value_case() == AttrValue::kS) label_ptr = &value.s();
        continue;
      }
      if (first_slot == 1 && name.size() == bucket.attr0_size &&
          SameBytes(name.data(), bucket.attr0, name.size())) {
        values[0] = &value;
        resolved[0] = true;
        continue;
      }
      for (uint32_t slot = first_slot; slot < num_attrs; ++slot) {
        if (SameString(bucket_attrs[slot], name)) {
          values[slot] = &value;
          resolved[slot] = true;
          break;
        }
      }
    }
  } else {
    label_ptr = &NodeLabel(node);
  }
  const std::string& label = *label_ptr;
  if (bucket.type_dispatch && label.empty() && resolved[0] &&
      values[0]->value_case() == AttrValue::kType) {
    const int t = values[0]->type();
    if (t >= 0 && t < Bucket::kDispatchTypes) {
      const int8_t d = bucket.dispatch[t];
      if (d >= 0) {
        const BucketResult& r = bucket.result_data[d];
        result.best = r.rec;
        result.best_result = &r;
        result.outcome = Selection::Outcome::kFound;
        return result;
      }
      if (d == Bucket::kDispatchNone) return result;
      // Ambiguous: the loop below finds both kernels for the message.
    }
  }
  int32_t best_priority = 0;
  const BucketEntry* const entries = bucket.entry_data;
  const uint32_t num_entries = bucket.num_entries;
  for (uint32_t i = 0; i < num_entries; ++i) {
    const BucketEntry& e = entries[i];
    if (result.best != nullptr && e.priority < best_priority) {
      break;  // Sorted by priority: nothing below can tie the winner.
    }
    if (e.label == nullptr ? !label.empty() : !SameString(*e.label, label)) {
      continue;
    }
    bool match = true;
    const HotConstraint* hot = e.hot(bucket.constraints);
    const uint32_t count = e.end - e.begin;
    for (uint32_t j = 0; j < count && match; ++j) {
      const HotConstraint& h = hot[j];
      const AttrValue* value;
      if (bucket.indexed) {
        if (!resolved[h.slot]) {
          values[h.slot] = attrs.Find(bucket_attrs[h.slot]);
          resolved[h.slot] = true;
        }
        value = values[h.slot];
      } else {
        value = attrs.Find(bucket.results[i].rec->constraints[h.full].attr);
      }
      match = HotHolds(*bucket.results[i].rec, h, value);
    }
    if (!match) continue;
    const BucketResult& r = bucket.result_data[i];
    if (result.best == nullptr) {
      result.best = r.rec;
      result.best_result = &r;
      best_priority = e.priority;
      result.outcome = Selection::Outcome::kFound;
      // No later kernel can tie (see BucketEntry::stop); the stop slot was
      // resolved while matching, since this kernel constrains it.
      if (e.stop == kStopAlways) break;
      if (e.stop != kStopNever &&
          values[e.stop]->value_case() == AttrValue::kType) {
        break;
      }
    } else {
      result.rival = r.rec;
      result.outcome = Selection::Outcome::kAmbiguous;
      break;
    }
  }
  return result;
}

const RecordList& KernelsOfOp(const Snapshot& snapshot, std::string_view op) {
  static const RecordList* const empty = new RecordList;
  auto it = snapshot.by_op.find(op);
  return it == snapshot.by_op.end() ? *empty : it->second;
}

Status AmbiguityError(const NodeDef& node, const Record& a, const Record& b) {
  return errors::InvalidArgument(
      "Multiple OpKernel registrations match NodeDef '", SummarizeNodeDef(node),
      "': '", a.reg.def.ShortDebugString(), "' and '",
      b.reg.def.ShortDebugString(), "'\n  ", NameOf(a), "\n  ", NameOf(b),
      "\nBoth have priority ", a.priority(),
      ". To resolve this, give one of them a higher priority "
      "(KernelDefBuilder::Priority()) or unregister one "
      "(KernelRegistry::Unregister()).");
}

Status NoKernelError(const NodeDef& node, const std::string& device,
                     const OpDef* op_def, const RecordList& op_kernels,
                     size_t num_pending) {
  NodeDef with_defaults = node;
  if (op_def != nullptr) AddDefaultsToNodeDef(*op_def, &with_defaults);
  std::string message = StrCat(
      "No OpKernel was registered to support Op '", node.op(), "' used by ",
      FormatNodeDefForError(node), " with these attrs: [",
      SummarizeAttrs(with_defaults), "]\nRegistered devices: [", device,
      "]\nRegistered kernels:\n", KernelLines(op_kernels));
  if (!op_kernels.empty()) {
    const std::string& label = NodeLabel(node);
    message += StrCat("Why each registered kernel was rejected for device '",
                      device, "'", label.empty() ? "" : StrCat(" and label '", label, "'"),
                      ":\n");
    for (const Record* rec : op_kernels) {
      message += StrCat("  ", NameOf(*rec), ": ",
                        RejectionReason(*rec, device, label, node, op_def), "\n");
    }
  }
  if (num_pending > 0) {
    message += StrCat(num_pending,
                      " kernel registrations are pending and not committed to "
                      "the registry yet (see KernelRegistry::CommitPending)\n");
  }
  return errors::NotFound(message);
}

// One line per change: `winner` now runs for the nodes `region` matches,
// where `displaced` ran before.
void LogChange(const Record& winner, const Record& displaced,
               const Record& region, std::string_view how) {
  LOG(INFO) << "Kernel selection changed for op '" << winner.op()
            << "' on device '" << winner.device() << "'"
            << (winner.label().empty() ? std::string()
                                       : StrCat(" with label '", winner.label(), "'"))
            << " where " << ConstraintsSummary(region.reg.def) << ": "
            << NameOf(winner) << " with priority " << winner.priority()
            << " now wins over " << NameOf(displaced) << " with priority "
            << displaced.priority() << " (" << how << ")";
}

}  // namespace

const OpDef* KernelRegistry::Impl::LookUpOp(const std::string& name,
                                            const OpRegistryInterface& ops) const {
  return LookUpOpDef(concrete_ops, ops, name);
}

// ---------------------------------------------------------------------------
// Pending list.

namespace internal {

void AddPendingKernelRegistration(const KernelDefBuilder& builder,
                                  std::string kernel_class_name,
                                  KernelFactory factory,
                                  RegistrationOrigin origin) {
  PendingKernelRegistration p;
  p.build_status = builder.Finalize(&p.registration.def);
  p.registration.kernel_class_name = std::move(kernel_class_name);
  p.registration.factory = factory;
  p.registration.origin = std::move(origin);
  AppendPending(std::move(p));
}

void AddPendingKernelRegistration(KernelDef def, std::string kernel_class_name,
                                  KernelFactory factory,
                                  RegistrationOrigin origin) {
  PendingKernelRegistration p;
  p.registration.def = std::move(def);
  p.registration.kernel_class_name = std::move(kernel_class_name);
  p.registration.factory = factory;
  p.registration.origin = std::move(origin);
  AppendPending(std::move(p));
}

}  // namespace internal

std::vector<PendingKernelRegistration> TakePendingKernelRegistrations() {
  PendingList& list = Pending();
  mutex_lock lock(list.mu);
  std::vector<PendingKernelRegistration> out;
  out.swap(list.items);
  return out;
}

size_t NumPendingKernelRegistrations() {
  PendingList& list = Pending();
  mutex_lock lock(list.mu);
  return list.items.size();
}

// ---------------------------------------------------------------------------
// KernelFilter.

bool KernelFilter::Matches(const KernelRegistration& registration) const {
  const KernelDef& def = registration.def;
  if (!op.empty() && def.op() != op) return false;
  if (!device_type.empty() && def.device_type() != device_type) return false;
  if (label.has_value() && def.label() != *label) return false;
  if (!kernel_class_name.empty() &&
      registration.kernel_class_name != kernel_class_name) {
    return false;
  }
  if (!library.empty() && registration.origin.library != library) return false;
  for (const auto& [attr, dtype] : types) {
    for (const auto& c : def.constraint()) {
      if (c.name() != attr) continue;
      const auto& allowed = c.allowed_values().list().type();
      if (std::find(allowed.begin(), allowed.end(), static_cast<int>(dtype)) ==
          allowed.end()) {
        return false;
      }
    }
  }
  return true;
}

std::string KernelFilter::DebugString() const {
  std::vector<std::string> parts;
  if (!op.empty()) parts.push_back(StrCat("op='", op, "'"));
  if (!device_type.empty()) parts.push_back(StrCat("device='", device_type, "'"));
  if (label.has_value()) parts.push_back(StrCat("label='", *label, "'"));
  if (!kernel_class_name.empty()) {
    parts.push_back(StrCat("class='", kernel_class_name, "'"));
  }
  if (!library.empty()) parts.push_back(StrCat("library='", library, "'"));
  for (const auto& [attr, dtype] : types) {
    parts.push_back(StrCat(attr, "=", DataType_Name(dtype)));
  }
  if (parts.empty()) return "<all kernels>";
  return StrJoin(parts, " ");
}

// ---------------------------------------------------------------------------
// KernelRegistry: construction.

KernelRegistry::KernelRegistry(const OpRegistryInterface* op_registry)
    : op_registry_(op_registry), impl_(std::make_unique<Impl>()) {
  impl_->concrete_ops = dynamic_cast<const OpRegistry*>(op_registry);
  impl_->snapshot.store(new Snapshot);
}

KernelRegistry::~KernelRegistry() = default;

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* const global = [] {
    auto* registry = new KernelRegistry(OpRegistry::Global());
    registry->impl_->is_global = true;
    registry->CommitForGlobal(TakePendingKernelRegistrations()).IgnoreError();
    return registry;
  }();
  return global;
}

// ---------------------------------------------------------------------------
// Registering.

namespace {

// Checks one registration against its op (see RegisterBatch's contract).
Status Validate(const KernelRegistration& reg, const OpDef* op_def) {
  const KernelDef& def = reg.def;
  if (def.op().empty()) {
    return errors::InvalidArgument(Describe(reg), " has an empty op name");
  }
  if (op_def == nullptr) {
    return errors::NotFound(
        Describe(reg), " names an op that is not registered; register op '",
        def.op(), "' (REGISTER_OP) or load the library defining it before "
        "committing its kernels");
  }
  if (def.device_type().empty()) {
    return errors::InvalidArgument(
        Describe(reg), " has no device; call .Device(DEVICE_CPU) or another "
        "device type");
  }
  if (reg.factory == nullptr) {
    return errors::InvalidArgument(Describe(reg),
                                   " has no factory function to create it");
  }
  for (const auto& c : def.constraint()) {
    const OpDef::AttrDef* attr = FindAttr(c.name(), *op_def);
    if (attr == nullptr) {
      std::vector<std::string> names;
      for (const auto& a : op_def->attr()) names.push_back(a.name());
      return errors::InvalidArgument(
          Describe(reg), " has a constraint on attr '", c.name(),
          "', which op '", def.op(), "' does not have; its attrs are [",
          StrJoin(names, ", "), "]");
    }
    const auto& list = c.allowed_values().list();
    const int kinds = (list.type_size() > 0) + (list.s_size() > 0) +
                      (list.i_size() > 0) + (list.b_size() > 0);
    if (kinds == 0) {
      return errors::InvalidArgument(
          Describe(reg), " has a constraint on attr '", c.name(),
          "' that allows no values (", SummarizeAttrValue(c.allowed_values()),
          "); list the allowed types or values");
    }
    if (kinds > 1 || c.allowed_values().value_case() != AttrValue::kList) {
      return errors::InvalidArgument(
          Describe(reg), " has a constraint on attr '", c.name(),
          "' whose allowed values are not a list of one kind: ",
          SummarizeAttrValue(c.allowed_values()));
    }
    if (list.type_size() > 0) {
      if (attr->type() != "type" && attr->type() != "list(type)") {
        return errors::InvalidArgument(
            Describe(reg), " has a type constraint on attr '", c.name(),
            "', but that attr has type '", attr->type(),
            "', not 'type' or 'list(type)'; use AttrConstraint for other "
            "attrs");
      }
      for (int t : list.type()) {
        if (!DataTypeIsValid(t) || t == DT_INVALID) {
          return errors::InvalidArgument(Describe(reg),
                                         " allows an invalid DataType (", t,
                                         ") for attr '", c.name(), "'");
        }
      }
    } else {
      const char* needed = list.s_size() > 0 ? "string"
                           : list.i_size() > 0 ? "int"
                                               : "bool";
      if (attr->type() != needed) {
        return errors::InvalidArgument(
            Describe(reg), " constrains attr '", c.name(), "' to ",
            needed, " values ", SummarizeAttrValue(c.allowed_values()),
            ", but that attr has type '", attr->type(), "'");
      }
    }
  }
  for (const std::string& arg : def.host_memory_arg()) {
    if (FindInputArg(arg, *op_def) == nullptr &&
        FindOutputArg(arg, *op_def) == nullptr) {
      return errors::InvalidArgument(Describe(reg), " has HostMemory arg '",
                                     arg, "', which is not an input or output of ",
                                     SummarizeOpDef(*op_def));
    }
  }
  return OkStatus();
}

// Logs what adding `added` (now active) changed: which kernel each one
// displaced, or a warning for duplicates and same-priority overlaps.
// `before` tells whether a record was active before the change.
template <typename WasActive>
void LogAdded(const Snapshot& now, const std::vector<const Record*>& added,
              const WasActive& was_active, std::string_view how) {
  for (const Record* k : added) {
    const Bucket* bucket = now.by_key.Find(k->op(), k->device());
    if (bucket == nullptr) continue;
    bool outranked = false;
    int32_t best_lower = INT32_MIN;
    bool any_lower = false;
    bool warned_duplicate = false;
    for (const Record* p : bucket->kernels) {
      if (p == k || p->label() != k->label() || !Overlap(*k, *p)) continue;
      const bool earlier = was_active(p) || p->seq < k->seq;
      if (p->priority() == k->priority() && earlier && !warned_duplicate &&
          SameDefinition(*k, *p)) {
        // Exact duplicates: accepted, but selection between them is
        // ambiguous.
        warned_duplicate = true;
        LOG(WARNING) << "Kernel " << NameOf(*k) << " duplicates kernel "
                     << NameOf(*p) << " exactly (op '" << k->op()
                     << "', device '" << k->device() << "', label '"
                     << k->label() << "', priority " << k->priority() << ", "
                     << ConstraintsSummary(k->reg.def)
                     << "); selecting a kernel for the nodes they match will "
                        "be ambiguous. Give one a higher Priority() or "
                        "unregister one.";
        continue;
      }
      if (p->priority() > k->priority()) {
        outranked = true;
      } else if (p->priority() < k->priority() && was_active(p)) {
        any_lower = true;
        best_lower = std::max(best_lower, p->priority());
      } else if (p->priority() == k->priority() && earlier &&
                 !SameDefinition(*k, *p)) {
        LOG(WARNING) << "Kernel " << NameOf(*k) << " and kernel " << NameOf(*p)
                     << " of op '" << k->op() << "' on device '" << k->device()
                     << "' both have priority " << k->priority()
                     << " and can match the same nodes ("
                     << ConstraintsSummary(k->reg.def) << " / "
                     << ConstraintsSummary(p->reg.def)
                     << "); selection for such nodes will be ambiguous. Give "
                        "one a higher Priority() or unregister one.";
      }
    }
    if (outranked || !any_lower) continue;
    for (const Record* p : bucket->kernels) {
      if (p == k || p->label() != k->label() || !was_active(p)) continue;
      if (p->priority() == best_lower && Overlap(*k, *p)) {
        LogChange(*k, *p, *k, how);
      }
    }
  }
}

}  // namespace

Status KernelRegistry::RegisterBatch(std::vector<KernelRegistration> batch,
                                     KernelBatchId* id) {
  mutex_lock lock(impl_->mu);
  return impl_->AddLocked(this, std::move(batch), /*all_or_nothing=*/true,
                          /*library=*/nullptr, /*override_def=*/nullptr, id);
}

Status KernelRegistry::Register(KernelRegistration registration,
                                KernelBatchId* id) {
  std::vector<KernelRegistration> batch;
  batch.push_back(std::move(registration));
  return RegisterBatch(std::move(batch), id);
}

Status KernelRegistry::CommitPending(
    std::vector<PendingKernelRegistration> pending, const std::string& library,
    KernelBatchId* id) {
  mutex_lock lock(impl_->mu);
  return impl_->AddLocked(this, std::move(pending), /*all_or_nothing=*/true,
                          &library, /*override_def=*/nullptr, id);
}

Status KernelRegistry::CommitPending(const std::string& library,
                                     KernelBatchId* id) {
  return CommitPending(TakePendingKernelRegistrations(), library, id);
}

Status KernelRegistry::CommitForGlobal(
    std::vector<PendingKernelRegistration> pending) {
  static const std::string* const kLinkedIn = new std::string();
  mutex_lock lock(impl_->mu);
  return impl_->AddLocked(this, std::move(pending), /*all_or_nothing=*/false,
                          kLinkedIn, /*override_def=*/nullptr, nullptr);
}

Status KernelRegistry::AddOverride(KernelRegistration registration,
                                   KernelBatchId* id, const KernelDef** def) {
  std::vector<PendingKernelRegistration> pending;
  pending.push_back(PendingKernelRegistration{std::move(registration), OkStatus()});
  mutex_lock lock(impl_->mu);
  return impl_->AddLocked(this, std::move(pending), /*all_or_nothing=*/true,
                          nullptr, def, id);
}

namespace {

KernelRegistration& RegistrationOf(KernelRegistration& r) { return r; }
KernelRegistration& RegistrationOf(PendingKernelRegistration& p) {
  return p.registration;
}
Status BuildStatusOf(const KernelRegistration&) { return OkStatus(); }
Status BuildStatusOf(const PendingKernelRegistration& p) { return p.build_status; }

}  // namespace

template <typename Item>
Status KernelRegistry::Impl::AddLocked(KernelRegistry* self,
                                       std::vector<Item> pending,
                                       bool all_or_nothing,
                                       const std::string* library,
                                       const KernelDef** override_def,
                                       KernelBatchId* id) {
  if (id != nullptr) *id = 0;
  std::vector<std::unique_ptr<Record>> fresh;
  fresh.reserve(pending.size());
  // Kernels of one op usually come together: look each op up once per run.
  std::string last_op;
  bool have_last_op = false;
  const OpDef* last_op_def = nullptr;
  for (Item& item : pending) {
    KernelRegistration& reg = RegistrationOf(item);
    if (library != nullptr) reg.origin.library = *library;
    Status s = BuildStatusOf(item);
    if (s.ok()) {
      const std::string& op = reg.def.op();
      if (!have_last_op || last_op != op) {
        last_op_def = LookUpOp(op, *self->op_registry_);
        last_op = op;
        have_last_op = true;
      }
      s = Validate(reg, last_op_def);
    } else {
      s = Status(s.code(), StrCat(Describe(reg), ": ", s.message()));
    }
    if (!s.ok()) {
      if (all_or_nothing) return s;
      LOG(ERROR) << "Skipping kernel registration: " << s;
      continue;
    }
    auto rec = std::make_unique<Record>();
    rec->reg = std::move(reg);
    Compile(rec.get());
    fresh.push_back(std::move(rec));
  }
  if (fresh.empty()) return OkStatus();

  const Snapshot& current = *snapshot.load();
  if (override_def != nullptr) {
    // Outrank every overlapping kernel of the same op, device and label.
    Record& k = *fresh.front();
    const Bucket* bucket = current.by_key.Find(k.op(), k.device());
    if (bucket != nullptr) {
      int32_t top = INT32_MIN;
      bool any = false;
      for (const Record* p : bucket->kernels) {
        if (p->label() != k.label() || !Overlap(k, *p)) continue;
        any = true;
        top = std::max(top, p->priority());
      }
      if (any && top >= k.priority()) {
        if (top == INT32_MAX) {
          return errors::FailedPrecondition(
              Describe(k.reg), " cannot override the registered kernels: one "
              "already has the highest possible priority; unregister it "
              "instead (KernelRegistry::Unregister)");
        }
        k.reg.def.set_priority(top + 1);
        Compile(&k);
      }
    }
  }

  const KernelBatchId batch = next_batch++;
  std::vector<const Record*> added;
  added.reserve(fresh.size());
  uint64_t seq = records.size();
  for (auto& rec : fresh) {
    rec->seq = seq++;
    rec->batch = batch;
    added.push_back(rec.get());
    records.push_back(std::move(rec));
  }
  Publish(&self->generation_);
  // The new records are the last ones: seq tells old from new.
  const uint64_t first_new = added.front()->seq;
  LogAdded(*snapshot.load(), added,
           [first_new](const Record* r) { return r->seq < first_new; },
           "the former was registered");
  if (id != nullptr) *id = batch;
  if (override_def != nullptr) *override_def = &added.front()->reg.def;
  return OkStatus();
}

// Logs what hiding or removing `gone` (no longer active) changed.
void KernelRegistry::Impl::LogRemoved(const std::vector<const Record*>& gone,
                                      std::string_view how) {
  const Snapshot& now = *snapshot.load();
  for (const Record* k : gone) {
    const Bucket* bucket = now.by_key.Find(k->op(), k->device());
    // Was k winning anywhere before? Not if an overlapping kernel (remaining
    // or removed with it) outranked it.
    bool outranked = false;
    auto outranks = [&](const Record* p) {
      return p != k && p->op() == k->op() && p->device() == k->device() &&
             p->label() == k->label() && p->priority() > k->priority() &&
             Overlap(*k, *p);
    };
    for (const Record* p : gone) outranked = outranked || outranks(p);
    std::vector<const Record*> peers;
    if (bucket != nullptr) {
      for (const Record* p : bucket->kernels) {
        outranked = outranked || outranks(p);
        if (p->label() == k->label() && Overlap(*k, *p)) peers.push_back(p);
      }
    }
    if (outranked) continue;
    if (peers.empty()) {
      LOG(INFO) << "Kernel selection changed for op '" << k->op()
                << "' on device '" << k->device() << "': " << NameOf(*k)
                << " was " << how << " and no other kernel matches the nodes "
                << "it matched (" << ConstraintsSummary(k->reg.def) << ")";
      continue;
    }
    const int32_t top = peers.front()->priority();  // Sorted by priority.
    for (const Record* w : peers) {
      if (w->priority() != top) break;
      LogChange(*w, *k, *k, StrCat("the latter was ", how));
    }
  }
}

Status KernelRegistry::RemoveBatch(KernelBatchId id) {
  mutex_lock lock(impl_->mu);
  std::vector<Record*> matched;
  for (auto& rec : impl_->records) {
    if (rec->batch == id && rec->state != Record::State::kRemoved) {
      matched.push_back(rec.get());
    }
  }
  if (matched.empty()) {
    return errors::NotFound("No kernel batch ", id,
                            " is registered (unknown id, or already removed)");
  }
  return impl_->RemoveLocked(this, matched, "removed");
}

Status KernelRegistry::RemoveLibrary(const std::string& library,
                                     size_t* removed) {
  if (removed != nullptr) *removed = 0;
  if (library.empty()) {
    return errors::InvalidArgument(
        "RemoveLibrary needs a library path; kernels linked into the program "
        "are removed with Unregister() or RemoveBatch()");
  }
  mutex_lock lock(impl_->mu);
  std::vector<Record*> matched;
  for (auto& rec : impl_->records) {
    if (rec->reg.origin.library == library &&
        rec->state != Record::State::kRemoved) {
      matched.push_back(rec.get());
    }
  }
  if (removed != nullptr) *removed = matched.size();
  if (matched.empty()) return OkStatus();
  return impl_->RemoveLocked(this, matched,
                             StrCat("removed with library ", library));
}

Status KernelRegistry::Impl::RemoveLocked(KernelRegistry* self,
                                          const std::vector<Record*>& matched,
                                          std::string_view how) {
  std::vector<const Record*> were_active;
  for (Record* rec : matched) {
    if (rec->state == Record::State::kActive) were_active.push_back(rec);
    rec->state = Record::State::kRemoved;
  }
  Publish(&self->generation_);
  // Publish() waited for every lookup that could still reach these records,
  // so nothing reads their owners any more: release the libraries.
  for (Record* rec : matched) rec->reg.owner.reset();
  LogRemoved(were_active, how);
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Replacing.

StatusOr<KernelRegistrationHandle> KernelRegistry::Unregister(
    const KernelFilter& filter) {
  mutex_lock lock(impl_->mu);
  std::vector<Record*> matched;
  for (auto& rec : impl_->records) {
    if (rec->state == Record::State::kActive && filter.Matches(rec->reg)) {
      matched.push_back(rec.get());
    }
  }
  if (matched.empty()) {
    std::string known;
    if (!filter.op.empty()) {
      known = StrCat("; registered kernels of op '", filter.op, "':\n",
                     KernelLines(KernelsOfOp(*impl_->snapshot.load(), filter.op)));
    }
    return errors::NotFound("No registered kernel matches the filter ",
                            filter.DebugString(), known);
  }
  const uint64_t token = impl_->next_token++;
  KernelRegistrationHandle handle;
  handle.registry_ = this;
  handle.token_ = token;
  std::vector<const Record*> gone;
  for (Record* rec : matched) {
    rec->state = Record::State::kHidden;
    rec->hidden_by = token;
    handle.defs_.push_back(&rec->reg.def);
    gone.push_back(rec);
  }
  impl_->Publish(&generation_);
  impl_->LogRemoved(gone, "unregistered");
  return handle;
}

Status KernelRegistry::Restore(uint64_t token) {
  mutex_lock lock(impl_->mu);
  std::vector<const Record*> restored;
  for (auto& rec : impl_->records) {
    if (rec->state == Record::State::kHidden && rec->hidden_by == token) {
      rec->state = Record::State::kActive;
      rec->hidden_by = 0;
      restored.push_back(rec.get());
    }
  }
  if (restored.empty()) return OkStatus();
  impl_->Publish(&generation_);
  absl::flat_hash_set<const Record*> restored_set(restored.begin(),
                                                  restored.end());
  LogAdded(*impl_->snapshot.load(), restored,
           [&](const Record* r) { return restored_set.count(r) == 0; },
           "the former was restored");
  return OkStatus();
}

KernelRegistrationHandle::KernelRegistrationHandle(
    KernelRegistrationHandle&& other) noexcept
    : registry_(std::exchange(other.registry_, nullptr)),
      token_(std::exchange(other.token_, 0)),
      defs_(std::move(other.defs_)) {}

KernelRegistrationHandle& KernelRegistrationHandle::operator=(
    KernelRegistrationHandle&& other) noexcept {
  registry_ = std::exchange(other.registry_, nullptr);
  token_ = std::exchange(other.token_, 0);
  defs_ = std::move(other.defs_);
  return *this;
}

KernelRegistrationHandle::~KernelRegistrationHandle() = default;

Status KernelRegistrationHandle::Restore() {
  if (registry_ == nullptr) {
    return errors::FailedPrecondition(
        "This KernelRegistrationHandle has nothing to restore (it is empty, "
        "moved from, or already restored)");
  }
  Status s = registry_->Restore(token_);
  if (s.ok()) registry_ = nullptr;
  return s;
}

StatusOr<std::unique_ptr<ScopedKernelOverride>> ScopedKernelOverride::Create(
    KernelRegistry* registry, KernelRegistration registration) {
  if (registry == nullptr) {
    return errors::InvalidArgument("ScopedKernelOverride needs a registry");
  }
  KernelBatchId id = 0;
  const KernelDef* def = nullptr;
  OPKIT_RETURN_IF_ERROR(
      registry->AddOverride(std::move(registration), &id, &def));
  return std::unique_ptr<ScopedKernelOverride>(
      new ScopedKernelOverride(registry, id, def));
}

ScopedKernelOverride::~ScopedKernelOverride() {
  Status s = registry_->RemoveBatch(id_);
  if (!s.ok()) VLOG(1) << "ScopedKernelOverride: " << s;
}

// ---------------------------------------------------------------------------
// Selecting.

Status KernelRegistry::FindKernel(const DeviceType& device_type,
                                  const NodeDef& node_def,
                                  KernelSelection* selection) const {
  const uint64_t generation = this->generation();
  NodeAttrs attrs(impl_->concrete_ops, *op_registry_, node_def);
  Selection result;
  RecordList op_kernels;
  {
    Impl::ReadSection section(*impl_);
    result = Select(section.snapshot(), device_type.type_string(), node_def,
                    attrs);
    if (result.outcome == Selection::Outcome::kFound) {
      const Record& rec = *result.best;
      if (selection != nullptr) {
        // Addresses only: the record itself is not read.
        selection->def = &rec.reg.def;
        selection->kernel_class_name = &rec.reg.kernel_class_name;
        selection->origin = &rec.reg.origin;
        selection->factory = result.best_result->factory;
        selection->owner = result.best_result->owner;
        selection->generation = generation;
      }
      return OkStatus();
    }
    if (result.outcome == Selection::Outcome::kNone) {
      op_kernels = KernelsOfOp(section.snapshot(), node_def.op());
    }
  }
  if (result.outcome == Selection::Outcome::kAmbiguous) {
    return AmbiguityError(node_def, *result.best, *result.rival);
  }
  const OpDef* op_def = attrs.op_def_or_null();
  if (op_def == nullptr) {
    // Kernels are only committed for known ops, so this is the usual way an
    // unknown op ends: with the op registry's own message.
    const OpRegistrationData* unused = nullptr;
    Status s = op_registry_->LookUp(node_def.op(), &unused);
    if (s.ok()) s = errors::NotFound("Op type not registered '", node_def.op(), "'");
    return s;
  }
  return NoKernelError(node_def, device_type.type_string(), op_def, op_kernels,
                       impl_->is_global ? NumPendingKernelRegistrations() : 0);
}

Status KernelRegistry::FindKernelDef(const DeviceType& device_type,
                                     const NodeDef& node_def,
                                     const KernelDef** def,
                                     std::string* kernel_class_name) const {
  KernelSelection selection;
  OPKIT_RETURN_IF_ERROR(FindKernel(device_type, node_def, &selection));
  if (def != nullptr) *def = selection.def;
  if (kernel_class_name != nullptr) *kernel_class_name = *selection.kernel_class_name;
  return OkStatus();
}

bool KernelRegistry::KernelDefAvailable(const DeviceType& device_type,
                                        const NodeDef& node_def) const {
  NodeAttrs attrs(impl_->concrete_ops, *op_registry_, node_def);
  Impl::ReadSection section(*impl_);
  return Select(section.snapshot(), device_type.type_string(), node_def, attrs)
             .outcome == Selection::Outcome::kFound;
}

Status KernelRegistry::SupportedDeviceTypesForNode(
    const std::vector<DeviceType>& prioritized_types, const NodeDef& def,
    PrioritizedDeviceTypeVector* device_types) const {
  if (device_types == nullptr) {
    return errors::InvalidArgument("SupportedDeviceTypesForNode: null output");
  }
  const OpDef* op_def = impl_->LookUpOp(def.op(), *op_registry_);
  if (op_def == nullptr) {
    // As TensorFlow: an op this process does not know (say a function) is
    // assumed to run anywhere.
    for (const DeviceType& t : prioritized_types) device_types->emplace_back(t, 0);
    return OkStatus();
  }
  NodeAttrs attrs(impl_->concrete_ops, *op_registry_, def);
  for (const DeviceType& t : prioritized_types) {
    Selection result;
    {
      Impl::ReadSection section(*impl_);
      result = Select(section.snapshot(), t.type_string(), def, attrs);
    }
    if (result.outcome == Selection::Outcome::kAmbiguous) {
      return AmbiguityError(def, *result.best, *result.rival);
    }
    if (result.outcome == Selection::Outcome::kFound) {
      device_types->emplace_back(t, result.best->priority());
    }
  }
  std::stable_sort(device_types->begin(), device_types->end(),
                   [](const std::pair<DeviceType, int32_t>& a,
                      const std::pair<DeviceType, int32_t>& b) {
                     return a.second > b.second;
                   });
  return OkStatus();
}

std::string KernelRegistry::KernelsRegisteredForOp(
    std::string_view op_name) const {
  Impl::ReadSection section(*impl_);
  return KernelLines(KernelsOfOp(section.snapshot(), op_name));
}

KernelList KernelRegistry::GetAllRegisteredKernels() const {
  KernelList list;
  Impl::ReadSection section(*impl_);
  list.mutable_kernel()->Reserve(static_cast<int>(section.snapshot().all.size()));
  for (const Record* rec : section.snapshot().all) {
    *list.add_kernel() = rec->reg.def;
  }
  return list;
}

KernelList KernelRegistry::GetRegisteredKernelsForOp(
    std::string_view op_name) const {
  KernelList list;
  Impl::ReadSection section(*impl_);
  for (const Record* rec : KernelsOfOp(section.snapshot(), op_name)) {
    *list.add_kernel() = rec->reg.def;
  }
  return list;
}

std::vector<KernelRegistration> KernelRegistry::GetRegistrationsForOp(
    std::string_view op_name) const {
  std::vector<KernelRegistration> out;
  Impl::ReadSection section(*impl_);
  for (const Record* rec : KernelsOfOp(section.snapshot(), op_name)) {
    out.push_back(rec->reg);
  }
  return out;
}

size_t KernelRegistry::size() const {
  Impl::ReadSection section(*impl_);
  return section.snapshot().all.size();
}

KernelSelectionExplanation KernelRegistry::ExplainKernelSelection(
    const DeviceType& device_type, const NodeDef& node_def) const {
  KernelSelectionExplanation out;
  out.node_name = node_def.name();
  out.op = node_def.op();
  out.device_type = device_type.type_string();
  out.label = NodeLabel(node_def);
  const OpDef* op_def = impl_->LookUpOp(node_def.op(), *op_registry_);
  Selection result;
  RecordList op_kernels;
  {
    Impl::ReadSection section(*impl_);
    op_kernels = KernelsOfOp(section.snapshot(), node_def.op());
    if (op_def != nullptr) {
      NodeAttrs attrs(impl_->concrete_ops, *op_registry_, node_def);
      result = Select(section.snapshot(), out.device_type, node_def, attrs);
    }
  }
  for (const Record* rec : op_kernels) {
    KernelCandidate c;
    c.def = rec->reg.def;
    c.kernel_class_name = rec->reg.kernel_class_name;
    c.origin = rec->reg.origin;
    if (op_def == nullptr) {
      c.reason = StrCat("op '", out.op, "' is not registered");
    } else {
      c.reason = RejectionReason(*rec, out.device_type, out.label, node_def,
                                 op_def);
      c.matched = c.reason.empty();
      if (c.matched && result.outcome == Selection::Outcome::kAmbiguous &&
          rec->priority() == result.best->priority()) {
        const Record& other = rec == result.best ? *result.rival : *result.best;
        c.reason = StrCat("matched at the same priority ", rec->priority(),
                          " as ", NameOf(other), ": ambiguous");
      } else if (c.matched && rec != result.best) {
        if (result.best != nullptr) {
          c.reason = StrCat("matched, but its priority ", rec->priority(),
                            " is below the winner's ", result.best->priority());
        }
      }
    }
    if (rec == result.best && result.outcome == Selection::Outcome::kFound) {
      out.winner = static_cast<int>(out.candidates.size());
    }
    out.candidates.push_back(std::move(c));
  }
  if (op_def == nullptr) {
    const OpRegistrationData* unused = nullptr;
    out.status = op_registry_->LookUp(node_def.op(), &unused);
    if (out.status.ok()) {
      out.status = errors::NotFound("Op type not registered '", out.op, "'");
    }
  } else if (result.outcome == Selection::Outcome::kAmbiguous) {
    out.status = AmbiguityError(node_def, *result.best, *result.rival);
  } else if (result.outcome == Selection::Outcome::kNone) {
    out.status = NoKernelError(node_def, out.device_type, op_def, op_kernels,
                               impl_->is_global ? NumPendingKernelRegistrations() : 0);
  }
  return out;
}

std::string KernelSelectionExplanation::ToString() const {
  std::string out = StrCat("Kernel selection for ", FormatNodeNameForError(node_name),
                           " (op '", op, "') on device '", device_type,
                           "', label '", label, "': ", candidates.size(),
                           " registered kernel(s)\n");
  for (size_t i = 0; i < candidates.size(); ++i) {
    const KernelCandidate& c = candidates[i];
    const char* verdict = static_cast<int>(i) == winner ? "[selected]"
                          : c.matched                   ? "[matched] "
                                                        : "[rejected]";
    std::string line = KernelLine(c.def);
    line.pop_back();  // The trailing newline.
    out += StrCat("  ", verdict, " '", c.kernel_class_name, "' (",
                  c.origin.ToString(), "):", line.substr(1), "; priority ",
                  c.def.priority());
    if (!c.reason.empty()) out += StrCat(" -- ", c.reason);
    out += "\n";
  }
  if (winner >= 0) {
    out += StrCat("Selected: '", candidates[winner].kernel_class_name, "'\n");
  } else {
    out += StrCat("No kernel selected: ", status.ToString(), "\n");
  }
  return out;
}

// ---------------------------------------------------------------------------
// Free functions over the global registries.

Status FindKernelDef(const DeviceType& device_type, const NodeDef& node_def,
                     const KernelDef** def, std::string* kernel_class_name) {
  return KernelRegistry::Global()->FindKernelDef(device_type, node_def, def,
                                                 kernel_class_name);
}

bool KernelDefAvailable(const DeviceType& device_type, const NodeDef& node_def) {
  return KernelRegistry::Global()->KernelDefAvailable(device_type, node_def);
}

Status SupportedDeviceTypesForNode(
    const std::vector<DeviceType>& prioritized_types, const NodeDef& def,
    PrioritizedDeviceTypeVector* device_types) {
  return KernelRegistry::Global()->SupportedDeviceTypesForNode(
      prioritized_types, def, device_types);
}

std::string KernelsRegisteredForOp(std::string_view op_name) {
  return KernelRegistry::Global()->KernelsRegisteredForOp(op_name);
}

KernelList GetAllRegisteredKernels() {
  return KernelRegistry::Global()->GetAllRegisteredKernels();
}

KernelList GetRegisteredKernelsForOp(std::string_view op_name) {
  return KernelRegistry::Global()->GetRegisteredKernelsForOp(op_name);
}

KernelSelectionExplanation ExplainKernelSelection(const DeviceType& device_type,
                                                  const NodeDef& node_def) {
  return KernelRegistry::Global()->ExplainKernelSelection(device_type, node_def);
}

}  // namespace opkit
