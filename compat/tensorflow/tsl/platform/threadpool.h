// TensorFlow compatibility: thread::ThreadPool.
// At the path TensorFlow 2.12-2.14 uses; includes
// tensorflow/core/platform/threadpool.h.
//
//   #include "tensorflow/tsl/platform/threadpool.h"
#ifndef OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_THREADPOOL_H_
#define OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_THREADPOOL_H_

#include "tensorflow/core/platform/threadpool.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_TSL_PLATFORM_THREADPOOL_H_
