// TensorFlow compatibility: the errors:: helpers (older include path).
// Includes tensorflow/core/platform/errors.h, where newer TensorFlow keeps it.
//
//   #include "tensorflow/core/lib/core/errors.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_ERRORS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_ERRORS_H_

#include "tensorflow/core/platform/errors.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_CORE_ERRORS_H_
