// TensorFlow compatibility: tensorflow::Status (opkit::Status, with
// Status::OK() and error_message()), the error codes in tensorflow::error,
// TF_RETURN_IF_ERROR and TF_CHECK_OK.
//
//   Status Check(int n) {
//     if (n < 0) return Status(error::INVALID_ARGUMENT, "n < 0");
//     TF_RETURN_IF_ERROR(Other(n));
//     return Status::OK();
//   }
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUS_H_

#include "opkit/core/status.h"
#include "tensorflow/core/platform/logging.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUS_H_
