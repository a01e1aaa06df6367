// TensorFlow compatibility: Status, absl::Status interop, TF_RETURN_IF_ERROR.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/status.h.
//
//   #include "tensorflow/tsl/platform/status.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STATUS_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STATUS_H_

#include "tensorflow/core/platform/status.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STATUS_H_
