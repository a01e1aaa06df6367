// TensorFlow compatibility: TensorFlow 2.12-2.16's path of
// tensorflow/core/lib/random/exact_uniform_int.h; tsl::random names as in
// Note [tsl random namespace] (xla/tsl/lib/random/philox_random.h).
#ifndef OPKIT_COMPAT_TSL_LIB_RANDOM_EXACT_UNIFORM_INT_H_
#define OPKIT_COMPAT_TSL_LIB_RANDOM_EXACT_UNIFORM_INT_H_

#include "xla/tsl/lib/random/exact_uniform_int.h"

#endif  // OPKIT_COMPAT_TSL_LIB_RANDOM_EXACT_UNIFORM_INT_H_
