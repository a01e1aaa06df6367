// Replacing kernels: KernelFilter, Unregister/Restore with their handle,
// ScopedKernelOverride, and the log lines that say which kernel a change
// made win (Note [Kernel replacement] in kernel_replacement.h).
#include "opkit/kernel/kernel_replacement.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"
#include "opkit/kernel/internal/kernel_explanation.h"
#include "opkit/kernel/internal/kernel_registry_impl.h"
#include "opkit/kernel/kernel_registry.h"

namespace opkit {
namespace internal {
namespace {

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

void LogAdded(const Snapshot& now, const std::vector<const Record*>& added,
              const std::function<bool(const Record*)>& was_active,
              std::string_view how) {
  for (const Record* k : added) {
    const Bucket* bucket = now.by_key.Find(k->op(), k->device());
    if (bucket == nullptr) continue;
    bool outranked = false;
    int32_t best_lower = INT32_MIN;
    bool any_lower = false;
    for (const Record* p : bucket->kernels) {
      if (p == k || p->label() != k->label() || !Overlap(*k, *p)) continue;
      const bool earlier = was_active(p) || p->seq < k->seq;
      if (p->priority() > k->priority()) {
        outranked = true;
      } else if (p->priority() < k->priority() && was_active(p)) {
        any_lower = true;
        best_lower = std::max(best_lower, p->priority());
      } else if (p->priority() == k->priority() && earlier) {
        // Only a restore gets here: a commit refuses a tie (Note [Kernel
        // ambiguity]).
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

void LogRemoved(const Snapshot& now, const std::vector<const Record*>& gone,
                std::string_view how) {
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

Status RaiseToOutrank(const Snapshot& current, Record* k) {
  const Bucket* bucket = current.by_key.Find(k->op(), k->device());
  if (bucket == nullptr) return OkStatus();
  int32_t top = INT32_MIN;
  bool any = false;
  for (const Record* p : bucket->kernels) {
    if (p->label() != k->label() || !Overlap(*k, *p)) continue;
    any = true;
    top = std::max(top, p->priority());
  }
  if (!any || top < k->priority()) return OkStatus();
  if (top == INT32_MAX) {
    return errors::FailedPrecondition(
        Describe(k->reg), " cannot override the registered kernels: one "
        "already has the highest possible priority; unregister it "
        "instead (KernelRegistry::Unregister)");
  }
  k->reg.def.set_priority(top + 1);
  Compile(k);
  return OkStatus();
}

}  // namespace internal

using internal::KernelLines;
using internal::KernelsOfOp;
using internal::Record;
using internal::RecordList;

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
                     KernelLines(KernelsOfOp(impl_->current(), filter.op)));
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
  internal::LogRemoved(impl_->current(), gone, "unregistered");
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
  internal::LogAdded(
      impl_->current(), restored,
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

}  // namespace opkit
