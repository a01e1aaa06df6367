// TensorFlow compatibility: the common shape functions
// (shape_inference::UnchangedShape, ScalarShape, MatMulShape, ...) from
// opkit/shape/common_shape_fns.h.
//
//   REGISTER_OP("ZeroOut")
//       .Input("to_zero: int32")
//       .Output("zeroed: int32")
//       .SetShapeFn(::tensorflow::shape_inference::UnchangedShape);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_COMMON_SHAPE_FNS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_COMMON_SHAPE_FNS_H_

#include "opkit/shape/common_shape_fns.h"
#include "tensorflow/core/framework/shape_inference.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_COMMON_SHAPE_FNS_H_
