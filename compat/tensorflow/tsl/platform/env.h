// TensorFlow compatibility: Env.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/env.h.
//
//   #include "tensorflow/tsl/platform/env.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_ENV_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_ENV_H_

#include "tensorflow/core/platform/env.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_ENV_H_
