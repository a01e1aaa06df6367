// TensorFlow compatibility: the str_util:: string helpers.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/str_util.h.
//
//   #include "tsl/platform/str_util.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_STR_UTIL_H_
#define OPKIT_COMPAT_TSL_PLATFORM_STR_UTIL_H_

#include "tensorflow/core/platform/str_util.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_STR_UTIL_H_
