// TensorFlow compatibility: Status, error codes, TF_RETURN_IF_ERROR (older include path).
// Includes tensorflow/core/platform/status.h, where newer TensorFlow keeps it.
//
//   #include "tensorflow/core/lib/core/status.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_STATUS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_STATUS_H_

#include "tensorflow/core/platform/status.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_STATUS_H_
