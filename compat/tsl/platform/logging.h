// TensorFlow compatibility: LOG, VLOG and the CHECK family.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/logging.h.
//
//   #include "tsl/platform/logging.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_LOGGING_H_
#define OPKIT_COMPAT_TSL_PLATFORM_LOGGING_H_

#include "tensorflow/core/platform/logging.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_LOGGING_H_
