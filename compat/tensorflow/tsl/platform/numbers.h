// TensorFlow compatibility: strings::safe_strto32 and friends.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/numbers.h.
//
//   #include "tensorflow/tsl/platform/numbers.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_NUMBERS_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_NUMBERS_H_

#include "tensorflow/core/platform/numbers.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_NUMBERS_H_
