// TensorFlow compatibility: random::SimplePhilox (Rand32, Rand64, RandFloat,
// RandDouble, Uniform, Uniform64, OneIn, Skewed), from opkit/random/.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_SIMPLE_PHILOX_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_SIMPLE_PHILOX_H_

#include "opkit/random/simple_philox.h"
#include "tensorflow/core/lib/random/philox_random.h"
#include "tensorflow/core/lib/random/random_distributions.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_SIMPLE_PHILOX_H_
