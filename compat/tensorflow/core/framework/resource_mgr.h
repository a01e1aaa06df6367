// TensorFlow compatibility: ResourceBase and ResourceMgr
// (opkit/resource/resource_mgr.h), state shared between kernels of one
// device; core::RefCounted, core::ScopedUnref and core::RefCountPtr come with
// them, and so do the helpers for resources passed as DT_RESOURCE handles
// (opkit/kernel/resource_handle_op.h): ResourceHandle, MakeResourceHandle,
// HandleFromInput, LookupResource, LookupOrCreateResource, CreateResource,
// DeleteResource, ResourceHandleOp<T>, IsResourceInitialized<T>, and
// TensorFlow's REGISTER_RESOURCE_HANDLE_OP / REGISTER_RESOURCE_HANDLE_KERNEL.
//
//   class Counter : public ResourceBase {
//    public:
//     string DebugString() const override { return "Counter"; }
//     mutex mu;
//     int64 value TF_GUARDED_BY(mu) = 0;
//   };
//   Counter* c = nullptr;
//   OP_REQUIRES_OK(ctx, ctx->resource_manager()->LookupOrCreate<Counter>(
//                           "my_container", "counter", &c,
//                           [](Counter** r) {
//                             *r = new Counter;
//                             return Status::OK();
//                           }));
//   core::ScopedUnref unref(c);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_MGR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_MGR_H_

#include "opkit/kernel/resource_handle_op.h"
#include "opkit/resource/resource_mgr.h"
#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/resource_handle.h"
#include "tensorflow/core/platform/refcount.h"

// An op `<Type>HandleOp` that outputs a handle to a resource of type Type,
// and its CPU kernel, as TensorFlow spells them.
#ifndef REGISTER_RESOURCE_HANDLE_OP
#define REGISTER_RESOURCE_HANDLE_OP(Type)  \
  REGISTER_OP(#Type "HandleOp")            \
      .Attr("container: string = ''")      \
      .Attr("shared_name: string = ''")    \
      .Output("resource: resource")        \
      .SetIsStateful()                     \
      .SetShapeFn(::tensorflow::shape_inference::ScalarShape)
#endif
#ifndef REGISTER_RESOURCE_HANDLE_KERNEL
#define REGISTER_RESOURCE_HANDLE_KERNEL(Type)                        \
  REGISTER_KERNEL_BUILDER(Name(#Type "HandleOp").Device(DEVICE_CPU), \
                          ResourceHandleOp<Type>)
#endif

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_MGR_H_
