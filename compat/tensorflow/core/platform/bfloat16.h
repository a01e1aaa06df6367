// TensorFlow compatibility: bfloat16 at its platform/ path.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_BFLOAT16_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_BFLOAT16_H_

#include "tensorflow/core/framework/numeric_types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_BFLOAT16_H_
