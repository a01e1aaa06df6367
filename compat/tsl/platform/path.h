// TensorFlow compatibility: io::JoinPath, Basename, Dirname, ...
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/path.h.
//
//   #include "tsl/platform/path.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_PATH_H_
#define OPKIT_COMPAT_TSL_PLATFORM_PATH_H_

#include "tensorflow/core/platform/path.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_PATH_H_
