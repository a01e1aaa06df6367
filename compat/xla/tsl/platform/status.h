// TensorFlow compatibility: Status, absl::Status interop, TF_RETURN_IF_ERROR.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/status.h.
//
//   #include "xla/tsl/platform/status.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_STATUS_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_STATUS_H_

#include "tensorflow/core/platform/status.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_STATUS_H_
