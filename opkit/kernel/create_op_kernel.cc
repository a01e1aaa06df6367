// CreateOpKernel: instantiates the kernel selected for a node (the factory
// run with an OpKernelConstruction, failures reported with the node).
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_registry.h"

namespace opkit {

Status CreateOpKernel(const KernelSelection& selection,
                      const DeviceType& device_type, DeviceBase* device,
                      Allocator* allocator,
                      std::shared_ptr<const NodeProperties> props,
                      int graph_def_version,
                      std::unique_ptr<OpKernel>* kernel) {
  kernel->reset();
  if (props == nullptr) {
    return errors::InvalidArgument(
        "CreateOpKernel was given no NodeProperties; build them with "
        "NodeProperties::CreateFromNodeDef");
  }
  const std::string class_name = selection.kernel_class_name != nullptr
                                     ? *selection.kernel_class_name
                                     : std::string("<unnamed kernel>");
  if (selection.factory == nullptr && selection.factory_object == nullptr) {
    return errors::InvalidArgument("Cannot create kernel ", class_name, " for ",
                                   FormatNodeDefForError(props->node_def),
                                   ": its registration has no factory");
  }
  const NodeDef& node_def = props->node_def;
  Status status;
  OpKernelConstruction construction(device_type, device, allocator, props,
                                    graph_def_version, &status);
  construction.set_library_owner(selection.owner);
  std::unique_ptr<OpKernel> created;
  // A plugin's constructor is foreign code: an exception must not escape
  // through opkit's API.
  try {
    created.reset(selection.factory_object != nullptr
                      ? selection.factory_object->Create(&construction)
                      : selection.factory(&construction));
  } catch (const std::exception& e) {
    status.Update(errors::Internal("The constructor of kernel ", class_name,
                                   " threw an exception: ", e.what()));
  } catch (...) {
    status.Update(errors::Internal("The constructor of kernel ", class_name,
                                   " threw an exception that is not a "
                                   "std::exception"));
  }
  if (!status.ok()) {
    created.reset();
    return AttachDef(status, node_def);
  }
  if (created == nullptr) {
    return AttachDef(
        errors::Internal("The factory of kernel ", class_name,
                         " returned no kernel and reported no error"),
        node_def);
  }
  *kernel = std::move(created);
  return OkStatus();
}

Status CreateOpKernel(const DeviceType& device_type, DeviceBase* device,
                      Allocator* allocator, const NodeDef& node_def,
                      int graph_def_version,
                      const OpRegistryInterface& op_registry,
                      const KernelRegistry& kernel_registry,
                      std::unique_ptr<OpKernel>* kernel) {
  kernel->reset();
  VLOG(1) << "Instantiating kernel for node: " << SummarizeNodeDef(node_def);
  std::shared_ptr<const NodeProperties> props;
  OPKIT_RETURN_IF_ERROR(
      NodeProperties::CreateFromNodeDef(node_def, op_registry, &props));
  KernelSelection selection;
  OPKIT_RETURN_IF_ERROR(
      kernel_registry.FindKernel(device_type, props->node_def, &selection));
  return CreateOpKernel(selection, device_type, device, allocator,
                        std::move(props), graph_def_version, kernel);
}

Status CreateOpKernel(DeviceType device_type, DeviceBase* device,
                      Allocator* allocator, const NodeDef& node_def,
                      int graph_def_version, OpKernel** kernel) {
  if (kernel == nullptr) {
    return errors::InvalidArgument("CreateOpKernel was given a null OpKernel**");
  }
  *kernel = nullptr;
  KernelRegistry* registry = KernelRegistry::Global();
  const OpRegistryInterface* ops = registry->op_registry();
  if (ops == nullptr) ops = OpRegistry::Global();
  std::unique_ptr<OpKernel> created;
  Status s = CreateOpKernel(device_type, device, allocator, node_def,
                            graph_def_version, *ops, *registry, &created);
  *kernel = created.release();
  return s;
}

}  // namespace opkit
