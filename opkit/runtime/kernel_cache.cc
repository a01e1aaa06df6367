// CachedKernel: selecting and building a node's kernel, and re-selecting it
// when the kernel registry's generation moves.
#include "opkit/runtime/kernel_cache.h"

#include <utility>

namespace opkit {

CachedKernel::CachedKernel(const KernelRegistry* registry, Device* device,
                           std::shared_ptr<const NodeProperties> props,
                           int graph_def_version)
    : registry_(registry),
      device_(device),
      props_(std::move(props)),
      graph_def_version_(graph_def_version) {}

Status CachedKernel::Refresh() {
  if (current()) return Status::OK();
  const DeviceType type(device_->device_type());
  KernelSelection selection;
  OPKIT_RETURN_IF_ERROR(registry_->FindKernel(type, props_->node_def, &selection));
  std::unique_ptr<OpKernel> built;
  OPKIT_RETURN_IF_ERROR(CreateOpKernel(selection, type, device_, nullptr, props_,
                                       graph_def_version_, &built));
  kernel_ = std::move(built);
  kernel_def_ = selection.def;
  kernel_class_name_ = selection.kernel_class_name;
  generation_ = selection.generation;
  ++selections_;
  return Status::OK();
}

}  // namespace opkit
