// TensorFlow compatibility: random::New64 and random::New64DefaultSeed,
// from opkit/random/.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_H_

#include "opkit/random/random.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_RANDOM_H_
