// TensorFlow compatibility: strings::safe_strto32 and friends.
// At the older include path, where TensorFlow 1.x kept it; includes
// tensorflow/core/platform/numbers.h.
//
//   #include "tensorflow/core/lib/strings/numbers.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_NUMBERS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_NUMBERS_H_

#include "tensorflow/core/platform/numbers.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_STRINGS_NUMBERS_H_
