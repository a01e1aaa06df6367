// TensorFlow compatibility: thread::ThreadPool.
// At the path TensorFlow 2.17+ uses; includes
// tensorflow/core/platform/threadpool.h.
//
//   #include "xla/tsl/platform/threadpool.h"
#ifndef OPKIT_COMPAT_XLA_TSL_PLATFORM_THREADPOOL_H_
#define OPKIT_COMPAT_XLA_TSL_PLATFORM_THREADPOOL_H_

#include "tensorflow/core/platform/threadpool.h"

#endif  // OPKIT_COMPAT_XLA_TSL_PLATFORM_THREADPOOL_H_
