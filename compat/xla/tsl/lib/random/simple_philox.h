// TensorFlow compatibility: TensorFlow 2.17+'s path of
// tensorflow/core/lib/random/simple_philox.h; tsl::random names as in
// Note [tsl random namespace] (xla/tsl/lib/random/philox_random.h).
#ifndef OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_SIMPLE_PHILOX_H_
#define OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_SIMPLE_PHILOX_H_

#include "tensorflow/core/lib/random/simple_philox.h"
#include "xla/tsl/lib/random/philox_random.h"

#endif  // OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_SIMPLE_PHILOX_H_
