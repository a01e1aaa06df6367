// TensorFlow compatibility: int64, string and the other basic types.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/types.h.
//
//   #include "tsl/platform/types.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_TYPES_H_
#define OPKIT_COMPAT_TSL_PLATFORM_TYPES_H_

#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_TYPES_H_
