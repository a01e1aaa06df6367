// TensorFlow compatibility: LOG, VLOG and the CHECK family.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/logging.h.
//
//   #include "tensorflow/tsl/platform/logging.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_LOGGING_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_LOGGING_H_

#include "tensorflow/core/platform/logging.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_LOGGING_H_
