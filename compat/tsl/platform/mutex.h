// TensorFlow compatibility: mutex, mutex_lock, condition_variable.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/mutex.h.
//
//   #include "tsl/platform/mutex.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_MUTEX_H_
#define OPKIT_COMPAT_TSL_PLATFORM_MUTEX_H_

#include "tensorflow/core/platform/mutex.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_MUTEX_H_
