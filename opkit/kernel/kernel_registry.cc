// KernelRegistry: construction, registering (validation against the op
// registry, batches all or nothing), removing, publishing the index, and
// listing what is registered. Selecting is in kernel_selection.cc,
// explaining in kernel_explanation.cc, replacing in kernel_replacement.cc.
#include "opkit/kernel/kernel_registry.h"

#include <algorithm>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"
#include "opkit/kernel/internal/kernel_explanation.h"
#include "opkit/kernel/internal/kernel_registry_impl.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/op/op_registry.h"

namespace opkit {

using internal::Bucket;
using internal::Describe;
using internal::Record;
using internal::RecordList;
using internal::Snapshot;

std::unique_ptr<const Snapshot> KernelRegistry::Impl::BuildIndex(
    RecordList active) {
  std::unique_ptr<const Snapshot> next = internal::BuildSnapshot(
      std::move(active), {by_key_size_hint, by_op_size_hint});
  by_key_size_hint = next->by_key.size();
  by_op_size_hint = next->by_op.size();
  return next;
}

void KernelRegistry::Impl::Install(std::unique_ptr<const Snapshot> next,
                                   std::atomic<uint64_t>* generation) {
  std::unique_ptr<const Snapshot> old = index.Swap(std::move(next));
  // After the swap: a lookup that reads the new generation also sees the
  // new index (Note [Kernel registry concurrency]).
  generation->fetch_add(1, std::memory_order_acq_rel);
  index.Retire(std::move(old));
}

void KernelRegistry::Impl::Publish(std::atomic<uint64_t>* generation) {
  RecordList active;
  for (const auto& rec : records) {
    if (rec->state == Record::State::kActive) active.push_back(rec.get());
  }
  Install(BuildIndex(std::move(active)), generation);
}

// ---------------------------------------------------------------------------
// KernelRegistry: construction.

KernelRegistry::KernelRegistry(const OpRegistryInterface* op_registry)
    : op_registry_(op_registry), impl_(std::make_unique<Impl>()) {
  impl_->concrete_ops = dynamic_cast<const OpRegistry*>(op_registry);
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
  if (reg.factory == nullptr && reg.factory_object == nullptr) {
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

StatusOr<RegistrationHandle> KernelRegistry::CommitBatch(
    std::vector<PendingKernelRegistration> pending,
    const std::string& library) {
  KernelBatchId id = 0;
  OPKIT_RETURN_IF_ERROR(CommitPending(std::move(pending), library, &id));
  if (id == 0) return RegistrationHandle();  // Nothing was registered.
  return RegistrationHandle([this, id] {
    // Already gone (RemoveLibrary, RemoveBatch) is fine.
    Status s = RemoveBatch(id);
    return errors::IsNotFound(s) ? OkStatus() : s;
  });
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

// An active kernel of `index` registered before `k` (a smaller seq) that
// some node could select as well as `k`: same op, device, label and
// priority, overlapping constraints. Null when there is none.
const Record* TiesWithEarlier(const Snapshot& index, const Record& k) {
  const Bucket* bucket = index.by_key.Find(k.op(), k.device());
  if (bucket == nullptr) return nullptr;
  for (const Record* p : bucket->kernels) {
    if (p->seq >= k.seq || p->state != Record::State::kActive ||
        p->priority() != k.priority() || p->label() != k.label()) {
      continue;
    }
    if (internal::Overlap(k, *p)) return p;
  }
  return nullptr;
}

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
    internal::Compile(rec.get());
    fresh.push_back(std::move(rec));
  }
  if (fresh.empty()) return OkStatus();

  if (override_def != nullptr) {
    // Outrank every overlapping kernel of the same op, device and label.
    OPKIT_RETURN_IF_ERROR(
        internal::RaiseToOutrank(current(), fresh.front().get()));
  }

  // Index the registry with the new records, and apply Note [Kernel
  // ambiguity] to them in order: a new kernel that ties with one registered
  // before it (or earlier in the batch) is rejected.
  uint64_t seq = records.size();
  RecordList active = current().all;
  for (auto& rec : fresh) {
    rec->seq = seq++;
    active.push_back(rec.get());
  }
  std::unique_ptr<const Snapshot> next = BuildIndex(active);
  bool any_skipped = false;
  for (auto& rec : fresh) {
    const Record* rival = TiesWithEarlier(*next, *rec);
    if (rival == nullptr) continue;
    Status s = internal::AmbiguousRegistrationError(*rec, *rival);
    if (all_or_nothing) return s;
    LOG(ERROR) << "Skipping kernel registration: " << s;
    // Not active: later records of the batch are not compared with it.
    rec->state = Record::State::kRemoved;
    any_skipped = true;
  }
  if (any_skipped) {
    // `active` and `next` point into `fresh`: drop the skipped records from
    // them before `fresh` frees those records.
    active.erase(std::remove_if(active.begin(), active.end(),
                                [](const Record* rec) {
                                  return rec->state != Record::State::kActive;
                                }),
                 active.end());
    next = BuildIndex(std::move(active));
    fresh.erase(std::remove_if(fresh.begin(), fresh.end(),
                               [](const std::unique_ptr<Record>& rec) {
                                 return rec->state != Record::State::kActive;
                               }),
                fresh.end());
    if (fresh.empty()) return OkStatus();
  }

  const KernelBatchId batch = next_batch++;
  std::vector<const Record*> added;
  added.reserve(fresh.size());
  for (auto& rec : fresh) {
    rec->batch = batch;
    added.push_back(rec.get());
    records.push_back(std::move(rec));
  }
  Install(std::move(next), &self->generation_);
  // The new records are the last ones: seq tells old from new.
  const uint64_t first_new = added.front()->seq;
  internal::LogAdded(
      current(), added,
      [first_new](const Record* r) { return r->seq < first_new; },
      "the former was registered");
  if (id != nullptr) *id = batch;
  if (override_def != nullptr) *override_def = &added.front()->reg.def;
  return OkStatus();
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
  internal::LogRemoved(current(), were_active, how);
  return OkStatus();
}

}  // namespace opkit
