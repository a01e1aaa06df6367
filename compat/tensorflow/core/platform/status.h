// TensorFlow compatibility: tensorflow::Status (opkit::Status, with
// Status::OK() and error_message()), the error codes in tensorflow::error,
// TF_RETURN_IF_ERROR and TF_CHECK_OK; and, as TensorFlow 2.13+ writes
// them, absl::Status / absl::OkStatus() (which convert to and from Status,
// keeping code and message: Note [absl::Status interop] in
// opkit/core/status.h) and the tsl:: spellings (tsl::Status, tsl::OkStatus,
// tsl::errors, tsl::error: namespace tsl sees what tensorflow does, see
// platform/types.h).
//
//   Status Check(int n) {
//     if (n < 0) return Status(error::INVALID_ARGUMENT, "n < 0");
//     TF_RETURN_IF_ERROR(Other(n));
//     return Status::OK();
//   }
//   absl::Status Modern(int n) {
//     TF_RETURN_IF_ERROR(Check(n));          // an opkit Status: converts
//     return absl::OkStatus();
//   }
//
// One shape TensorFlow accepts does not compile here: a lambda without a
// declared return type that returns both a Status (TF_RETURN_IF_ERROR) and
// absl::OkStatus() has two return types. Write `-> absl::Status` (or
// `-> Status`) on such a lambda, or return OkStatus().
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUS_H_

#include "absl/status/status.h"
#include "opkit/core/status.h"
#include "tensorflow/core/platform/logging.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUS_H_
