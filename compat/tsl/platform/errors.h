// TensorFlow compatibility: the errors:: helpers.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/errors.h.
//
//   #include "tsl/platform/errors.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_ERRORS_H_
#define OPKIT_COMPAT_TSL_PLATFORM_ERRORS_H_

#include "tensorflow/core/platform/errors.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_ERRORS_H_
