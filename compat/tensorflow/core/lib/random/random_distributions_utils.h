// TensorFlow compatibility: random::Uint32ToFloat, Uint64ToDouble and
// BoxMullerFloat, from opkit/random/.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_

#include "opkit/random/random_distributions_utils.h"
#include "tensorflow/core/lib/random/philox_random.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_DISTRIBUTIONS_UTILS_H_
