// TensorFlow compatibility: StatusOr and TF_ASSIGN_OR_RETURN.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/statusor.h.
//
//   #include "tensorflow/tsl/platform/statusor.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STATUSOR_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STATUSOR_H_

#include "tensorflow/core/platform/statusor.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STATUSOR_H_
