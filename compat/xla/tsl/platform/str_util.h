// TensorFlow compatibility: the str_util:: string helpers.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/str_util.h.
//
//   #include "xla/tsl/platform/str_util.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_STR_UTIL_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_STR_UTIL_H_

#include "tensorflow/core/platform/str_util.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_STR_UTIL_H_
