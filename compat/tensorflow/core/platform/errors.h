// TensorFlow compatibility: the errors:: helpers (opkit/core/errors.h):
// errors::InvalidArgument(...), errors::IsNotFound(s), AppendToMessage, ...
//
//   OP_REQUIRES(ctx, index >= 0,
//               errors::InvalidArgument("Need preserve_index >= 0, got ",
//                                       index));
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ERRORS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ERRORS_H_

#include "opkit/core/errors.h"
#include "tensorflow/core/platform/status.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ERRORS_H_
