// TensorFlow compatibility: random::PhiloxRandom (Philox4x32-10 with TensorFlow's
// sequences), random::Array and PHILOX_DEVICE_INLINE, from opkit/random/.
// Reached as tensorflow::random::X through the using-directive of
// platform/types.h (Note [Compat namespace]).
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_PHILOX_RANDOM_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_PHILOX_RANDOM_H_

#include "opkit/random/philox_random.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_PHILOX_RANDOM_H_
