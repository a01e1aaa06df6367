// TensorFlow compatibility: LOG, VLOG and the CHECK family.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/logging.h.
//
//   #include "tensorflow/core/platform/default/logging.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_LOGGING_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_LOGGING_H_

#include "tensorflow/core/platform/logging.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_LOGGING_H_
