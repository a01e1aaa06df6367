// TensorFlow compatibility: TensorFlow 2.17+'s path of
// tensorflow/core/lib/random/random_distributions_utils.h; tsl::random names as in
// Note [tsl random namespace] (xla/tsl/lib/random/philox_random.h).
#ifndef OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_
#define OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_

#include "tensorflow/core/lib/random/random_distributions_utils.h"
#include "xla/tsl/lib/random/philox_random.h"

#endif  // OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_
