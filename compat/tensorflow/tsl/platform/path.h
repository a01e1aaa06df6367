// TensorFlow compatibility: io::JoinPath, Basename, Dirname, ...
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/path.h.
//
//   #include "tensorflow/tsl/platform/path.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_PATH_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_PATH_H_

#include "tensorflow/core/platform/path.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_PATH_H_
