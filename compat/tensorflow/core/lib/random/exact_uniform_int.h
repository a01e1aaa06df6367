// TensorFlow compatibility: random::ExactUniformInt, from opkit/random/.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_EXACT_UNIFORM_INT_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_EXACT_UNIFORM_INT_H_

#include "opkit/random/exact_uniform_int.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_EXACT_UNIFORM_INT_H_
