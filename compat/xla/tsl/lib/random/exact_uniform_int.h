// TensorFlow compatibility: TensorFlow 2.17+'s path of
// tensorflow/core/lib/random/exact_uniform_int.h; tsl::random names as in
// Note [tsl random namespace] (xla/tsl/lib/random/philox_random.h).
#ifndef OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_EXACT_UNIFORM_INT_H_
#define OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_EXACT_UNIFORM_INT_H_

#include "tensorflow/core/lib/random/exact_uniform_int.h"
#include "xla/tsl/lib/random/philox_random.h"

#endif  // OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_EXACT_UNIFORM_INT_H_
