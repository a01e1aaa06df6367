// TensorFlow compatibility: int8 ... uint64.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/types.h.
//
//   #include "tensorflow/core/platform/default/integral_types.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_INTEGRAL_TYPES_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_INTEGRAL_TYPES_H_

#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_INTEGRAL_TYPES_H_
