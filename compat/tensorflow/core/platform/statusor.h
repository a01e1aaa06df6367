// TensorFlow compatibility: tensorflow::StatusOr (opkit::StatusOr) and
// TF_ASSIGN_OR_RETURN.
//
//   StatusOr<int64> Size(const Tensor& t);
//   Status Use(const Tensor& t) {
//     TF_ASSIGN_OR_RETURN(int64 n, Size(t));
//     ...
//   }
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUSOR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUSOR_H_

#include "opkit/core/statusor.h"
#include "tensorflow/core/platform/status.h"

#ifndef TF_ASSIGN_OR_RETURN
#define TF_ASSIGN_OR_RETURN(lhs, rexpr) OPKIT_ASSIGN_OR_RETURN(lhs, rexpr)
#endif

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STATUSOR_H_
