// TensorFlow compatibility: TensorFormat and its helpers (the path some
// sources use). Includes tensorflow/core/util/tensor_format.h, where
// TensorFlow keeps it.
//
//   #include "tensorflow/core/framework/tensor_format.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_FORMAT_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_FORMAT_H_

#include "tensorflow/core/util/tensor_format.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_TENSOR_FORMAT_H_
