// TensorFlow compatibility: TensorFlow 2.12-2.16's path of
// tensorflow/core/lib/random/simple_philox.h; tsl::random names as in
// Note [tsl random namespace] (xla/tsl/lib/random/philox_random.h).
#ifndef OPKIT_COMPAT_TSL_LIB_RANDOM_SIMPLE_PHILOX_H_
#define OPKIT_COMPAT_TSL_LIB_RANDOM_SIMPLE_PHILOX_H_

#include "xla/tsl/lib/random/simple_philox.h"

#endif  // OPKIT_COMPAT_TSL_LIB_RANDOM_SIMPLE_PHILOX_H_
