// Resources as kernels reach them through DT_RESOURCE inputs and outputs
// (TensorFlow's resource_mgr.h helpers): make a handle for a resource of
// type T, read a handle from an input, and create / look up / delete the
// resource a handle names in the context's ResourceMgr. ResourceHandleOp<T>
// is the kernel of an op that only outputs a handle.
//
//   class Table : public ResourceBase { ... };
//   REGISTER_KERNEL_BUILDER(Name("TableHandle").Device(DEVICE_CPU),
//                           ResourceHandleOp<Table>);
//
//   void Compute(OpKernelContext* ctx) override {   // an op using the table
//     core::RefCountPtr<Table> table;
//     OP_REQUIRES_OK(ctx, LookupOrCreateResource<Table>(
//         ctx, HandleFromInput(ctx, 0), &table,
//         [](Table** t) { *t = new Table; return OkStatus(); }));
//     ...
//   }
//
// Every helper checks that the handle was made on the calling kernel's device
// and for a resource of type T (TensorFlow's messages) before it touches the
// ResourceMgr.
#ifndef OPKIT_KERNEL_RESOURCE_HANDLE_OP_H_
#define OPKIT_KERNEL_RESOURCE_HANDLE_OP_H_

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/core/str_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/kernel/op_kernel_context.h"
#include "opkit/resource/refcount.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/type_index.h"

namespace opkit {

class DeviceBase;

// A handle to `container`/`name` for a resource of `type` on `device`. The
// name ResourceHandle::ANONYMOUS_NAME becomes a fresh "_AnonymousVar<N>".
OPKIT_EXPORT ResourceHandle MakeResourceHandle(
    const std::string& container, const std::string& name,
    const DeviceBase* device, const TypeIndex& type,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes = {});

// A handle for a resource of type T on the kernel's device; an empty
// `container` means the resource manager's default one.
template <typename T>
ResourceHandle MakeResourceHandle(
    OpKernelContext* ctx, const std::string& container, const std::string& name,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes = {});
template <typename T>
ResourceHandle MakeResourceHandle(
    OpKernelConstruction* ctx, const std::string& container,
    const std::string& name,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes = {});

// A handle in the container of the current step ("__per_step_<step id>").
// The executor removes that container when the step ends (Executor::Run), so
// the resource lives for one graph run; an eager call is a step of its own
// whose container is not removed: delete the resource (DeleteResource) there.
template <typename T>
ResourceHandle MakePerStepResourceHandle(OpKernelContext* ctx,
                                         const std::string& name);

// Allocates output `output_index` as a scalar handle of `type`.
OPKIT_EXPORT Status MakeResourceHandleToOutput(OpKernelContext* context,
                                               int output_index,
                                               const std::string& container,
                                               const std::string& name,
                                               const TypeIndex& type);

// The first handle of input `input` (a DT_RESOURCE input of the kernel); an
// input without elements reads as an empty handle, which no lookup finds.
OPKIT_EXPORT const ResourceHandle& HandleFromInput(OpKernelContext* ctx,
                                                   int input);
// Same, with InvalidArgument "Empty resource handle" for an input without
// elements, and by input name (as the OpDef names it).
OPKIT_EXPORT Status HandleFromInput(OpKernelContext* ctx, int input,
                                    ResourceHandle* handle);
OPKIT_EXPORT Status HandleFromInput(OpKernelContext* ctx,
                                    std::string_view input,
                                    ResourceHandle* handle);

namespace internal {
// InvalidArgument unless `p` was made on the kernel's device.
OPKIT_EXPORT Status ValidateDevice(OpKernelContext* ctx,
                                   const ResourceHandle& p);
// The context's resource manager, or FailedPrecondition naming the kernel.
OPKIT_EXPORT Status ResourceManagerOf(OpKernelContext* ctx, ResourceMgr** rm);

template <typename T>
Status ValidateDeviceAndType(OpKernelContext* ctx, const ResourceHandle& p) {
  OPKIT_RETURN_IF_ERROR(ValidateDevice(ctx, p));
  return p.ValidateType<T>();
}
}  // namespace internal

// Adds `value` as the resource `p` names, taking over the caller's
// reference (dropped on error too). AlreadyExists when it exists.
template <typename T>
Status CreateResource(OpKernelContext* ctx, const ResourceHandle& p, T* value);

// The resource `p` names, with a reference for the caller (Unref it, or use
// the RefCountPtr form). NotFound when it does not exist; InvalidArgument
// when `p` is for another type or device.
template <typename T, bool use_dynamic_cast = false>
Status LookupResource(OpKernelContext* ctx, const ResourceHandle& p, T** value);
template <typename T>
Status LookupResource(OpKernelContext* ctx, const ResourceHandle& p,
                      core::RefCountPtr<T>* value);
// Whatever the resource's type (the handle's type hash must still match it).
OPKIT_EXPORT Status LookupResource(OpKernelContext* ctx,
                                   const ResourceHandle& p,
                                   ResourceBase** value);

// LookupResource, or, when missing, `creator` makes it (see
// ResourceMgr::LookupOrCreate: it runs with the manager locked and must not
// use it).
template <typename T>
Status LookupOrCreateResource(OpKernelContext* ctx, const ResourceHandle& p,
                              T** value, std::function<Status(T**)> creator);
template <typename T>
Status LookupOrCreateResource(OpKernelContext* ctx, const ResourceHandle& p,
                              core::RefCountPtr<T>* value,
                              std::function<Status(T**)> creator);

// Removes the resource `p` names from the manager (holders of references
// keep it alive). NotFound when it does not exist.
template <typename T>
Status DeleteResource(OpKernelContext* ctx, const ResourceHandle& p);
OPKIT_EXPORT Status DeleteResource(OpKernelContext* ctx,
                                   const ResourceHandle& p);

// The kernel of an op with attrs `container` and `shared_name` and one
// DT_RESOURCE output: outputs a scalar handle to a T named (container,
// shared_name). As TensorFlow's: the handle is made once and reused, except
// for shared_name ResourceHandle::ANONYMOUS_NAME, which gives a new
// "_AnonymousVar<N>" name on every call. An empty shared_name is used as it
// is (every such node of the device shares one resource).
template <typename T>
class ResourceHandleOp : public OpKernel {
 public:
  explicit ResourceHandleOp(OpKernelConstruction* context);
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() override { return false; }

 private:
  std::string container_;
  std::string name_;
  mutex mutex_;
  Tensor resource_;
  std::atomic<bool> initialized_{false};
};

// The kernel of an op with a DT_RESOURCE input and a bool output: whether
// the resource of type T that the handle names exists.
template <typename T>
class IsResourceInitialized : public OpKernel {
 public:
  explicit IsResourceInitialized(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* ctx) override;
};

// ---------------------------------------------------------------------------
// Implementation of the templates.

namespace internal {
// MakeResourceHandle on the device of `ctx` (a kernel's construction or
// call context), in its manager's default container when none is given.
template <typename Context>
ResourceHandle MakeResourceHandleIn(
    Context* ctx, const std::string& container, const std::string& name,
    const TypeIndex& type,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes) {
  ResourceMgr* rm = ctx->resource_manager();
  return MakeResourceHandle(
      container.empty() && rm != nullptr ? rm->default_container() : container,
      name, ctx->device(), type, dtypes_and_shapes);
}
}  // namespace internal

template <typename T>
ResourceHandle MakeResourceHandle(
    OpKernelContext* ctx, const std::string& container, const std::string& name,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes) {
  return internal::MakeResourceHandleIn(ctx, container, name,
                                        TypeIndex::Make<T>(), dtypes_and_shapes);
}

template <typename T>
ResourceHandle MakeResourceHandle(
    OpKernelConstruction* ctx, const std::string& container,
    const std::string& name,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes) {
  return internal::MakeResourceHandleIn(ctx, container, name,
                                        TypeIndex::Make<T>(), dtypes_and_shapes);
}

template <typename T>
ResourceHandle MakePerStepResourceHandle(OpKernelContext* ctx,
                                         const std::string& name) {
  return MakeResourceHandle(StrCat("__per_step_", ctx->step_id()), name,
                            ctx->device(), TypeIndex::Make<T>());
}

template <typename T>
Status CreateResource(OpKernelContext* ctx, const ResourceHandle& p, T* value) {
  Status s = internal::ValidateDeviceAndType<T>(ctx, p);
  ResourceMgr* rm = nullptr;
  if (s.ok()) s = internal::ResourceManagerOf(ctx, &rm);
  if (!s.ok()) {
    if (value != nullptr) value->Unref();  // The caller gave it to us.
    return s;
  }
  return rm->Create(p.container(), p.name(), value);
}

template <typename T, bool use_dynamic_cast>
Status LookupResource(OpKernelContext* ctx, const ResourceHandle& p,
                      T** value) {
  *value = nullptr;
  OPKIT_RETURN_IF_ERROR(internal::ValidateDeviceAndType<T>(ctx, p));
  ResourceMgr* rm = nullptr;
  OPKIT_RETURN_IF_ERROR(internal::ResourceManagerOf(ctx, &rm));
  return rm->Lookup<T>(p.container(), p.name(), value);
}

template <typename T>
Status LookupResource(OpKernelContext* ctx, const ResourceHandle& p,
                      core::RefCountPtr<T>* value) {
  T* raw = nullptr;
  OPKIT_RETURN_IF_ERROR((LookupResource<T, false>(ctx, p, &raw)));
  value->reset(raw);
  return OkStatus();
}

template <typename T>
Status LookupOrCreateResource(OpKernelContext* ctx, const ResourceHandle& p,
                              T** value, std::function<Status(T**)> creator) {
  *value = nullptr;
  OPKIT_RETURN_IF_ERROR(internal::ValidateDeviceAndType<T>(ctx, p));
  ResourceMgr* rm = nullptr;
  OPKIT_RETURN_IF_ERROR(internal::ResourceManagerOf(ctx, &rm));
  return rm->LookupOrCreate<T>(p.container(), p.name(), value, creator);
}

template <typename T>
Status LookupOrCreateResource(OpKernelContext* ctx, const ResourceHandle& p,
                              core::RefCountPtr<T>* value,
                              std::function<Status(T**)> creator) {
  T* raw = nullptr;
  OPKIT_RETURN_IF_ERROR(
      LookupOrCreateResource<T>(ctx, p, &raw, std::move(creator)));
  value->reset(raw);
  return OkStatus();
}

template <typename T>
Status DeleteResource(OpKernelContext* ctx, const ResourceHandle& p) {
  OPKIT_RETURN_IF_ERROR(internal::ValidateDeviceAndType<T>(ctx, p));
  ResourceMgr* rm = nullptr;
  OPKIT_RETURN_IF_ERROR(internal::ResourceManagerOf(ctx, &rm));
  return rm->Delete<T>(p.container(), p.name());
}

template <typename T>
void IsResourceInitialized<T>::Compute(OpKernelContext* ctx) {
  Tensor* output = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &output));
  core::RefCountPtr<T> object;
  output->scalar<bool>()() =
      LookupResource(ctx, HandleFromInput(ctx, 0), &object).ok();
}

template <typename T>
ResourceHandleOp<T>::ResourceHandleOp(OpKernelConstruction* context)
    : OpKernel(context) {
  OP_REQUIRES_OK(context, context->GetAttr("container", &container_));
  OP_REQUIRES_OK(context, context->GetAttr("shared_name", &name_));
}

template <typename T>
void ResourceHandleOp<T>::Compute(OpKernelContext* ctx) {
  if (name_ == ResourceHandle::ANONYMOUS_NAME) {
    Tensor handle;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_temp(DT_RESOURCE, TensorShape({}), &handle));
    handle.scalar<ResourceHandle>()() =
        MakeResourceHandle<T>(ctx, container_, name_);
    ctx->set_output(0, handle);
    return;
  }
  if (!initialized_.load(std::memory_order_acquire)) {
    mutex_lock l(mutex_);
    if (!initialized_.load(std::memory_order_relaxed)) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_RESOURCE, TensorShape({}),
                                             &resource_));
      resource_.scalar<ResourceHandle>()() =
          MakeResourceHandle<T>(ctx, container_, name_);
      initialized_.store(true, std::memory_order_release);
    }
  }
  ctx->set_output(0, resource_);
}

}  // namespace opkit

#endif  // OPKIT_KERNEL_RESOURCE_HANDLE_OP_H_
