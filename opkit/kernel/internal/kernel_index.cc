// The kernel registry's lookup index: compiling constraints, laying out a
// bucket for the selection loop, the (op, device) table, and building a
// snapshot of the active records. See internal/kernel_index.h.
#include "opkit/kernel/internal/kernel_index.h"

#include <algorithm>

namespace opkit {
namespace internal {

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

bool TypeAllowed(const CompiledConstraint& c, int type) {
  if (type >= 0 && type < 64) return ((c.type_mask >> type) & 1) != 0;
  for (int allowed : c.allowed->list().type()) {
    if (allowed == type) return true;
  }
  return false;
}

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

void Bucket::SetKey(std::string_view o, std::string_view d) {
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

void Bucket::Index() {
  // Buckets are small: a stable insertion sort by decreasing priority
  // beats std::stable_sort's buffer.
  for (size_t i = 1; i < kernels.size(); ++i) {
    const Record* rec = kernels[i];
    size_t j = i;
    while (j > 0 && kernels[j - 1]->priority() < rec->priority()) {
      kernels[j] = kernels[j - 1];
      --j;
    }
    kernels[j] = rec;
  }
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
    r.factory_object = rec->reg.factory_object.get();
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

// Runs the selection loop for each type at index time.
void Bucket::ComputeDispatch() {
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

void Bucket::ComputeStops() {
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

Bucket* BucketIndex::FindOrAdd(std::string_view op, std::string_view device) {
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

void BucketIndex::Rehash(size_t n) {
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

std::unique_ptr<Snapshot> BuildSnapshot(RecordList active,
                                        std::pair<size_t, size_t> size_hint) {
  auto next = std::make_unique<Snapshot>();
  next->all = std::move(active);
  next->by_key.Reserve(size_hint.first);
  next->by_op.reserve(size_hint.second);
  for (const Record* rec : next->all) {
    next->by_key.FindOrAdd(rec->op(), rec->device())->kernels.push_back(rec);
    next->by_op[rec->op()].push_back(rec);
  }
  for (Bucket& bucket : next->by_key.buckets()) bucket.Index();
  return next;
}

const RecordList& KernelsOfOp(const Snapshot& snapshot, std::string_view op) {
  static const RecordList* const empty = new RecordList;
  auto it = snapshot.by_op.find(op);
  return it == snapshot.by_op.end() ? *empty : it->second;
}

}  // namespace internal
}  // namespace opkit
