// TensorFlow compatibility: LOG, VLOG and the CHECK family.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/logging.h.
//
//   #include "xla/tsl/platform/logging.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_LOGGING_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_LOGGING_H_

#include "tensorflow/core/platform/logging.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_LOGGING_H_
