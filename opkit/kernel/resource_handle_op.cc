// The non-template resource helpers: making handles, reading them from
// inputs, the device check, and lookups / deletes by handle alone.
#include "opkit/kernel/resource_handle_op.h"

#include "opkit/core/errors.h"
#include "opkit/device/device.h"

namespace opkit {
namespace {

const std::string& DeviceName(const DeviceBase* device) {
  static const std::string* const kNone = new std::string();
  return device == nullptr ? *kNone : device->name();
}

Status HandleFromTensor(const Tensor& tensor, ResourceHandle* handle) {
  if (tensor.dtype() != DT_RESOURCE) {
    return errors::InvalidArgument("Expected a resource handle input, got a ",
                                   DataTypeString(tensor.dtype()), " tensor");
  }
  if (tensor.NumElements() == 0) {
    return errors::InvalidArgument("Empty resource handle");
  }
  *handle = tensor.flat<ResourceHandle>()(0);
  return OkStatus();
}

}  // namespace

ResourceHandle MakeResourceHandle(
    const std::string& container, const std::string& name,
    const DeviceBase* device, const TypeIndex& type,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes) {
  ResourceHandle result;
  result.set_device(DeviceName(device));
  result.set_container(container);
  if (name == ResourceHandle::ANONYMOUS_NAME) {
    result.set_name(
        StrCat("_AnonymousVar", ResourceHandle::GenerateUniqueId()));
  } else {
    result.set_name(name);
  }
  result.set_hash_code(type.hash_code());
  result.set_maybe_type_name(type.name());
  result.set_dtypes_and_shapes(dtypes_and_shapes);
  return result;
}

Status MakeResourceHandleToOutput(OpKernelContext* context, int output_index,
                                  const std::string& container,
                                  const std::string& name,
                                  const TypeIndex& type) {
  Tensor* handle = nullptr;
  OPKIT_RETURN_IF_ERROR(
      context->allocate_output(output_index, TensorShape({}), &handle));
  handle->scalar<ResourceHandle>()() =
      MakeResourceHandle(container, name, context->device(), type);
  return OkStatus();
}

const ResourceHandle& HandleFromInput(OpKernelContext* ctx, int input) {
  static const ResourceHandle* const kEmpty = new ResourceHandle();
  const Tensor& t = ctx->input(input);
  if (t.dtype() != DT_RESOURCE || t.NumElements() == 0) return *kEmpty;
  return t.flat<ResourceHandle>()(0);
}

Status HandleFromInput(OpKernelContext* ctx, int input,
                       ResourceHandle* handle) {
  if (input < 0 || input >= ctx->num_inputs()) {
    return errors::InvalidArgument("Input index ", input,
                                   " is out of range: the kernel has ",
                                   ctx->num_inputs(), " inputs");
  }
  return HandleFromTensor(ctx->input(input), handle);
}

Status HandleFromInput(OpKernelContext* ctx, std::string_view input,
                       ResourceHandle* handle) {
  const Tensor* tensor = nullptr;
  OPKIT_RETURN_IF_ERROR(ctx->input(input, &tensor));
  return HandleFromTensor(*tensor, handle);
}

namespace internal {

Status ValidateDevice(OpKernelContext* ctx, const ResourceHandle& p) {
  const std::string& device = DeviceName(ctx->device());
  if (device != p.device()) {
    return errors::InvalidArgument("Trying to access resource ", p.name(),
                                   " located in device ", p.device(),
                                   " from device ", device);
  }
  return OkStatus();
}

Status ResourceManagerOf(OpKernelContext* ctx, ResourceMgr** rm) {
  *rm = ctx->resource_manager();
  if (*rm == nullptr) {
    return errors::FailedPrecondition(
        "Kernel ", ctx->op_kernel().name(),
        " uses a resource but runs without a resource manager; run it on a "
        "device (eager context or session) that has one");
  }
  return OkStatus();
}

}  // namespace internal

Status LookupResource(OpKernelContext* ctx, const ResourceHandle& p,
                      ResourceBase** value) {
  *value = nullptr;
  OPKIT_RETURN_IF_ERROR(internal::ValidateDevice(ctx, p));
  ResourceMgr* rm = nullptr;
  OPKIT_RETURN_IF_ERROR(internal::ResourceManagerOf(ctx, &rm));
  return rm->Lookup(p, value);
}

Status DeleteResource(OpKernelContext* ctx, const ResourceHandle& p) {
  OPKIT_RETURN_IF_ERROR(internal::ValidateDevice(ctx, p));
  ResourceMgr* rm = nullptr;
  OPKIT_RETURN_IF_ERROR(internal::ResourceManagerOf(ctx, &rm));
  return rm->Delete(p);
}

}  // namespace opkit
