// TensorFlow compatibility: Status, absl::Status interop, TF_RETURN_IF_ERROR.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/status.h.
//
//   #include "tensorflow/core/platform/default/status.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STATUS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STATUS_H_

#include "tensorflow/core/platform/status.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STATUS_H_
