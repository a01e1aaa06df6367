// TensorFlow compatibility: Env.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/env.h.
//
//   #include "tsl/platform/env.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_ENV_H_
#define OPKIT_COMPAT_TSL_PLATFORM_ENV_H_

#include "tensorflow/core/platform/env.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_ENV_H_
