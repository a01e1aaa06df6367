// TensorFlow compatibility: random::UniformDistribution,
// UniformFullIntDistribution, NormalDistribution, TruncatedNormalDistribution,
// SingleSampleAdapter and the conversions, from opkit/random/ (TensorFlow's
// values for the same generator state).
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_DISTRIBUTIONS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_DISTRIBUTIONS_H_

#include "opkit/random/random_distributions.h"
#include "tensorflow/core/lib/random/philox_random.h"
#include "tensorflow/core/lib/random/random_distributions_utils.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_DISTRIBUTIONS_H_
