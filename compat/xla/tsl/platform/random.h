// TensorFlow compatibility: random::New64 at the path newer TensorFlow
// keeps it (the same function as tensorflow/core/lib/random/random.h).
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_RANDOM_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_RANDOM_H_

#include "tensorflow/core/lib/random/random.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_RANDOM_H_
