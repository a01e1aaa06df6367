// TensorFlow compatibility: the errors:: helpers.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/errors.h.
//
//   #include "xla/tsl/platform/errors.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_ERRORS_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_ERRORS_H_

#include "tensorflow/core/platform/errors.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_ERRORS_H_
