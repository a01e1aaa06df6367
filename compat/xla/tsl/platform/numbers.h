// TensorFlow compatibility: strings::safe_strto32 and friends.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/numbers.h.
//
//   #include "xla/tsl/platform/numbers.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_NUMBERS_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_NUMBERS_H_

#include "tensorflow/core/platform/numbers.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_NUMBERS_H_
