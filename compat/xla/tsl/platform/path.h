// TensorFlow compatibility: io::JoinPath, Basename, Dirname, ...
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/path.h.
//
//   #include "xla/tsl/platform/path.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_PATH_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_PATH_H_

#include "tensorflow/core/platform/path.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_PATH_H_
