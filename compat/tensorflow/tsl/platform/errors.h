// TensorFlow compatibility: the errors:: helpers.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/errors.h.
//
//   #include "tensorflow/tsl/platform/errors.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_ERRORS_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_ERRORS_H_

#include "tensorflow/core/platform/errors.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_ERRORS_H_
