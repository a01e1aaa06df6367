// TensorFlow compatibility: bfloat16 at the path TensorFlow 1.x and early
// 2.x kept it (now framework/numeric_types.h); the type is Eigen's, as in
// TensorFlow.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_BFLOAT16_BFLOAT16_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_BFLOAT16_BFLOAT16_H_

#include "tensorflow/core/framework/numeric_types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_BFLOAT16_BFLOAT16_H_
