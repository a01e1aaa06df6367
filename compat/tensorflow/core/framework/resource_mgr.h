// TensorFlow compatibility: ResourceBase and ResourceMgr
// (opkit/resource/resource_mgr.h), state shared between kernels of one
// device; core::RefCounted and core::ScopedUnref come with them.
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

#include "opkit/resource/resource_mgr.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/platform/refcount.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_MGR_H_
