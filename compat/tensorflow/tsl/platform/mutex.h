// TensorFlow compatibility: mutex, mutex_lock, condition_variable.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/mutex.h.
//
//   #include "tensorflow/tsl/platform/mutex.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_MUTEX_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_MUTEX_H_

#include "tensorflow/core/platform/mutex.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_MUTEX_H_
