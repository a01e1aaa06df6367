// TensorFlow compatibility: Env.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/env.h.
//
//   #include "tensorflow/core/platform/default/env.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_ENV_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_ENV_H_

#include "tensorflow/core/platform/env.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_ENV_H_
