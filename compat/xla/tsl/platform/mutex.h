// TensorFlow compatibility: mutex, mutex_lock, condition_variable.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/mutex.h.
//
//   #include "xla/tsl/platform/mutex.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_MUTEX_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_MUTEX_H_

#include "tensorflow/core/platform/mutex.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_MUTEX_H_
