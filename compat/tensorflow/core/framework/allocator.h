// TensorFlow compatibility: Allocator (opkit/tensor/allocator.h).
//
//   Tensor t(ctx->device()->GetAllocator(), DT_FLOAT, TensorShape({4}));
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_ALLOCATOR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_ALLOCATOR_H_

#include "opkit/tensor/allocator.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_ALLOCATOR_H_
