// TensorFlow compatibility: tensorflow::StatusOr and tsl::StatusOr
// (opkit::StatusOr), absl::StatusOr, and TF_ASSIGN_OR_RETURN, which takes
// either kind in a function returning either status (Note [absl::Status
// interop] in opkit/core/status.h).
//
//   StatusOr<int64> Size(const Tensor& t);
//   absl::StatusOr<int64> Rows(const Tensor& t);
//   Status Use(const Tensor& t) {
//     TF_ASSIGN_OR_RETURN(int64 n, Size(t));
//     TF_ASSIGN_OR_RETURN(int64 r, Rows(t));
//     ...
//   }
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUSOR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUSOR_H_

#include "absl/status/statusor.h"
#include "opkit/core/statusor.h"
#include "tensorflow/core/platform/status.h"

#ifndef TF_ASSIGN_OR_RETURN
#define TF_ASSIGN_OR_RETURN(lhs, rexpr) OPKIT_ASSIGN_OR_RETURN(lhs, rexpr)
#endif

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUSOR_H_
