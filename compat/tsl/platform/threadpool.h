// TensorFlow compatibility: thread::ThreadPool.
// At the path TensorFlow 2.13+ and TSL use; includes
// tensorflow/core/platform/threadpool.h.
//
//   #include "tsl/platform/threadpool.h"
#ifndef OPKIT_COMPAT_TSL_PLATFORM_THREADPOOL_H_
#define OPKIT_COMPAT_TSL_PLATFORM_THREADPOOL_H_

#include "tensorflow/core/platform/threadpool.h"

#endif  // OPKIT_COMPAT_TSL_PLATFORM_THREADPOOL_H_
