// KernelRegistry's private state (KernelRegistry::Impl) and the helpers its
// .cc files share: registering and removing live in kernel_registry.cc,
// selecting in kernel_selection.cc, explaining in kernel_explanation.cc,
// replacing and the log lines about it in kernel_replacement.cc.
//
// Layout (see Note [Kernel registry concurrency] in kernel_registry.h):
//   - Impl::records owns every Record ever registered, in registration order;
//     a Record is never freed before the registry, so pointers into it stay
//     valid. Its registration data is immutable once published; its `state`
//     is read and written only under Impl::mu.
//   - Impl::index holds an immutable Snapshot indexing the active records.
//     Writers build a new one, swap it in, then wait until no reader can
//     still hold the old one, and free it (internal/published_snapshot.h).
#ifndef OPKIT_KERNEL_INTERNAL_KERNEL_REGISTRY_IMPL_H_
#define OPKIT_KERNEL_INTERNAL_KERNEL_REGISTRY_IMPL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/kernel/internal/kernel_index.h"
#include "opkit/kernel/internal/published_snapshot.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op_registry.h"

namespace opkit {
namespace internal {

// The op's definition, or null. Through `concrete_ops` when the registry is
// an OpRegistry: its pointer lookup builds no Status on a miss.
inline const OpDef* LookUpOpDef(const OpRegistry* concrete_ops,
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

// --- kernel_replacement.cc: what a change did to selection ----------------

// Logs what adding `added` (now active in `now`) changed: which kernel each
// one displaced, or a warning for a tie with a kernel active before (which
// only a restore can bring about; Note [Kernel ambiguity]). `was_active` tells whether a record was active before
// the change.
void LogAdded(const Snapshot& now, const std::vector<const Record*>& added,
              const std::function<bool(const Record*)>& was_active,
              std::string_view how);
// Logs which kernel now wins (in `now`) where each of `gone` (just hidden or
// removed, active before) used to.
void LogRemoved(const Snapshot& now, const std::vector<const Record*>& gone,
                std::string_view how);
// Raises `k`'s priority (and recompiles it) to one above every kernel of
// `current` with its op, device and label whose constraints overlap its
// own; FailedPrecondition if one of them has the highest priority.
Status RaiseToOutrank(const Snapshot& current, Record* k);

}  // namespace internal

struct KernelRegistry::Impl {
  mutable mutex mu;
  std::vector<std::unique_ptr<internal::Record>> records OPKIT_GUARDED_BY(mu);
  uint64_t next_batch OPKIT_GUARDED_BY(mu) = 1;
  uint64_t next_token OPKIT_GUARDED_BY(mu) = 1;

  internal::PublishedSnapshot<internal::Snapshot> index{
      std::make_unique<internal::Snapshot>()};

  // The op registry as an OpRegistry when it is one: its pointer lookup
  // builds no Status.
  const OpRegistry* concrete_ops = nullptr;
  bool is_global = false;
  // Sizes of the last index (buckets, ops), to reserve the next one.
  size_t by_key_size_hint OPKIT_GUARDED_BY(mu) = 0;
  size_t by_op_size_hint OPKIT_GUARDED_BY(mu) = 0;

  using ReadSection =
      internal::PublishedSnapshot<internal::Snapshot>::ReadSection;

  // The current index, for a writer holding `mu`.
  const internal::Snapshot& current() const OPKIT_REQUIRES(mu) {
    return index.current();
  }

  // Indexes `active` (in registration order).
  std::unique_ptr<const internal::Snapshot> BuildIndex(
      internal::RecordList active) OPKIT_REQUIRES(mu);
  // Publishes `next`, bumps `*generation` and frees the previous index once
  // no lookup reads it.
  void Install(std::unique_ptr<const internal::Snapshot> next,
               std::atomic<uint64_t>* generation) OPKIT_REQUIRES(mu);
  // Indexes the active records and installs the index.
  void Publish(std::atomic<uint64_t>* generation) OPKIT_REQUIRES(mu);

  // Validates, indexes and publishes `pending` (see RegisterBatch), under
  // Note [Kernel ambiguity]: with `all_or_nothing` the first failing
  // registration fails the batch, else failing ones are skipped and logged;
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
  Status RemoveLocked(KernelRegistry* self,
                      const std::vector<internal::Record*>& matched,
                      std::string_view how) OPKIT_REQUIRES(mu);

  // The op's definition, or null.
  const OpDef* LookUpOp(const std::string& name,
                        const OpRegistryInterface& ops) const {
    return internal::LookUpOpDef(concrete_ops, ops, name);
  }
};

}  // namespace opkit

#endif  // OPKIT_KERNEL_INTERNAL_KERNEL_REGISTRY_IMPL_H_
