// TensorFlow compatibility: StatusOr and TF_ASSIGN_OR_RETURN.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/statusor.h.
//
//   #include "tensorflow/core/platform/default/statusor.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STATUSOR_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STATUSOR_H_

#include "tensorflow/core/platform/statusor.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_STATUSOR_H_
