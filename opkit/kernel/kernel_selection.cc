// Kernel selection: the selection loop over one index snapshot (Note [Kernel
// selection] in kernel_selection.h), KernelRegistry's lookups, and
// TensorFlow's free functions over the process-wide registry.
#include "opkit/kernel/kernel_selection.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/kernel/internal/kernel_explanation.h"
#include "opkit/kernel/internal/kernel_select.h"
#include "opkit/kernel/kernel_registry.h"

namespace opkit {
namespace internal {
namespace {

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

}  // namespace

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

}  // namespace internal

using internal::AmbiguityError;
using internal::KernelLines;
using internal::KernelsOfOp;
using internal::NodeAttrs;
using internal::NoKernelError;
using internal::Record;
using internal::RecordList;
using internal::Select;
using internal::Selection;

Status KernelRegistry::UnknownOpStatus(const std::string& op) const {
  const OpRegistrationData* unused = nullptr;
  Status s = op_registry_->LookUp(op, &unused);
  if (s.ok()) s = errors::NotFound("Op type not registered '", op, "'");
  return s;
}

Status KernelRegistry::FindKernel(const DeviceType& device_type,
                                  const NodeDef& node_def,
                                  KernelSelection* selection) const {
  return Find(device_type, node_def, selection, /*find_kernel_def_text=*/false);
}

Status KernelRegistry::Find(const DeviceType& device_type,
                            const NodeDef& node_def, KernelSelection* selection,
                            bool find_kernel_def_text) const {
  const uint64_t generation = this->generation();
  NodeAttrs attrs(impl_->concrete_ops, *op_registry_, node_def);
  Selection result;
  RecordList op_kernels;
  {
    Impl::ReadSection section(impl_->index);
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
        selection->factory_object = result.best_result->factory_object;
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
  const size_t num_pending =
      impl_->is_global ? NumPendingKernelRegistrations() : 0;
  if (find_kernel_def_text) {
    return internal::FindKernelDefError(
        node_def, device_type.type_string(), op_def, op_kernels, num_pending,
        op_def == nullptr ? UnknownOpStatus(node_def.op()) : OkStatus());
  }
  if (op_def == nullptr) {
    // Kernels are only committed for known ops, so this is the usual way an
    // unknown op ends: with the op registry's own message.
    return UnknownOpStatus(node_def.op());
  }
  return NoKernelError(node_def, device_type.type_string(), op_def, op_kernels,
                       num_pending);
}

Status KernelRegistry::FindKernelDef(const DeviceType& device_type,
                                     const NodeDef& node_def,
                                     const KernelDef** def,
                                     std::string* kernel_class_name) const {
  KernelSelection selection;
  OPKIT_RETURN_IF_ERROR(
      Find(device_type, node_def, &selection, /*find_kernel_def_text=*/true));
  if (def != nullptr) *def = selection.def;
  if (kernel_class_name != nullptr) *kernel_class_name = *selection.kernel_class_name;
  return OkStatus();
}

bool KernelRegistry::KernelDefAvailable(const DeviceType& device_type,
                                        const NodeDef& node_def) const {
  NodeAttrs attrs(impl_->concrete_ops, *op_registry_, node_def);
  Impl::ReadSection section(impl_->index);
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
      Impl::ReadSection section(impl_->index);
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
  Impl::ReadSection section(impl_->index);
  return KernelLines(KernelsOfOp(section.snapshot(), op_name));
}

KernelList KernelRegistry::GetAllRegisteredKernels() const {
  KernelList list;
  Impl::ReadSection section(impl_->index);
  list.mutable_kernel()->Reserve(static_cast<int>(section.snapshot().all.size()));
  for (const Record* rec : section.snapshot().all) {
    *list.add_kernel() = rec->reg.def;
  }
  return list;
}

KernelList KernelRegistry::GetRegisteredKernelsForOp(
    std::string_view op_name) const {
  KernelList list;
  Impl::ReadSection section(impl_->index);
  for (const Record* rec : KernelsOfOp(section.snapshot(), op_name)) {
    *list.add_kernel() = rec->reg.def;
  }
  return list;
}

std::vector<KernelRegistration> KernelRegistry::GetRegistrationsForOp(
    std::string_view op_name) const {
  std::vector<KernelRegistration> out;
  Impl::ReadSection section(impl_->index);
  for (const Record* rec : KernelsOfOp(section.snapshot(), op_name)) {
    out.push_back(rec->reg);
  }
  return out;
}

size_t KernelRegistry::size() const {
  Impl::ReadSection section(impl_->index);
  return section.snapshot().all.size();
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

void* GlobalKernelRegistry() { return KernelRegistry::Global(); }

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
