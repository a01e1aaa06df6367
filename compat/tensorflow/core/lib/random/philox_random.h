// TensorFlow compatibility: random::PhiloxRandom (Philox4x32-10 with TensorFlow's
// sequences), random::Array and PHILOX_DEVICE_INLINE, from opkit/random/.
// tensorflow::random::X is opkit::random::X (`tensorflow` spells `opkit`,
// Note [Compat namespace] in platform/types.h).
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_PHILOX_RANDOM_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_PHILOX_RANDOM_H_

#include "opkit/random/philox_random.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_RANDOM_PHILOX_RANDOM_H_
