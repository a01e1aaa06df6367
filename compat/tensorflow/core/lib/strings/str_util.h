// TensorFlow compatibility: the str_util:: string helpers.
// At the older include path, where TensorFlow 1.x kept it; includes
// tensorflow/core/platform/str_util.h.
//
//   #include "tensorflow/core/lib/strings/str_util.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STR_UTIL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STR_UTIL_H_

#include "tensorflow/core/platform/str_util.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_STR_UTIL_H_
