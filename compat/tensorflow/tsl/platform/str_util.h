// TensorFlow compatibility: the str_util:: string helpers.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/str_util.h.
//
//   #include "tensorflow/tsl/platform/str_util.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STR_UTIL_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STR_UTIL_H_

#include "tensorflow/core/platform/str_util.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_STR_UTIL_H_
