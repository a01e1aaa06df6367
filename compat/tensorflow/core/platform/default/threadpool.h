// TensorFlow compatibility: thread::ThreadPool.
// At the platform-specific path some sources include; includes
// tensorflow/core/platform/threadpool.h.
//
//   #include "tensorflow/core/platform/default/threadpool.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_THREADPOOL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_THREADPOOL_H_

#include "tensorflow/core/platform/threadpool.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_DEFAULT_THREADPOOL_H_
