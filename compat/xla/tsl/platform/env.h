// TensorFlow compatibility: Env.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/env.h.
//
//   #include "xla/tsl/platform/env.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_ENV_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_ENV_H_

#include "tensorflow/core/platform/env.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_ENV_H_
