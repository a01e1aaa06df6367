// TensorFlow compatibility: io::JoinPath, Basename, Dirname, ...
// At the older include path, where TensorFlow 1.x kept it; includes
// tensorflow/core/platform/path.h.
//
//   #include "tensorflow/core/lib/io/path.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_IO_PATH_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_IO_PATH_H_

#include "tensorflow/core/platform/path.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_IO_PATH_H_
