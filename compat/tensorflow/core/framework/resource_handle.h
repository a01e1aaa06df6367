// TensorFlow compatibility: ResourceHandle (opkit/tensor/resource_handle.h),
// the element of a DT_RESOURCE tensor, and DtypeAndPartialTensorShape.
//
//   const ResourceHandle& h = ctx->input(0).scalar<ResourceHandle>()();
//   LOG(INFO) << h.DebugString();
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_HANDLE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_HANDLE_H_

#include "opkit/tensor/resource_handle.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_RESOURCE_HANDLE_H_
