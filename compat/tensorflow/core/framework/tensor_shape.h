// TensorFlow compatibility: TensorShape, PartialTensorShape and
// TensorShapeUtils (opkit/tensor/tensor_shape.h).
//
//   OP_REQUIRES(ctx, TensorShapeUtils::IsVector(input.shape()),
//               errors::InvalidArgument("ZeroOut expects a 1-D vector."));
//   TensorShape shape({2, 3});
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_

#include "opkit/tensor/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/platform/errors.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_
