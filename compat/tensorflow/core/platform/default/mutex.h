// TensorFlow compatibility: mutex, mutex_lock, condition_variable.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/mutex.h.
//
//   #include "tensorflow/core/platform/default/mutex.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_MUTEX_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_MUTEX_H_

#include "tensorflow/core/platform/mutex.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_MUTEX_H_
