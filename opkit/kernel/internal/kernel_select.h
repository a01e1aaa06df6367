// Selection among the kernels of one index snapshot (Note [Kernel
// selection] in kernel_selection.h): the loop FindKernel, KernelDefAvailable,
// SupportedDeviceTypesForNode and ExplainKernelSelection share. Private to
// opkit/kernel.
#ifndef OPKIT_KERNEL_INTERNAL_KERNEL_SELECT_H_
#define OPKIT_KERNEL_INTERNAL_KERNEL_SELECT_H_

#include <string>

#include "opkit/kernel/internal/kernel_registry_impl.h"
#include "opkit/op/op_def_util.h"
#include "opkit/op/op_registry.h"
#include "opkit/attr_value.pb.h"
#include "opkit/node_def.pb.h"
#include "opkit/op_def.pb.h"

namespace opkit {
namespace internal {

// The outcome of selecting among a snapshot's kernels.
struct Selection {
  enum class Outcome { kFound, kNone, kAmbiguous };
  Outcome outcome = Outcome::kNone;
  const Record* best = nullptr;
  const Record* rival = nullptr;
  // best's result in the snapshot (valid while the snapshot is read).
  const BucketResult* best_result = nullptr;
};

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

// Selects among `snapshot`'s kernels for `node` on `device` (Note [Kernel
// selection]); allocates nothing.
Selection Select(const Snapshot& snapshot, const std::string& device,
                 const NodeDef& node, NodeAttrs& attrs);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNEL_INTERNAL_KERNEL_SELECT_H_
